// ChunkControl::payload_offset: a publisher may publish a message that starts a few bytes into its
// chunk (rmw_baton_cpp does, so a fixed-size ROS type's C struct lands 8-aligned); subscribers read
// it there, in place, and treat an offset that does not fit the chunk as corruption.
#include <cstring>
#include <limits>

#include "baton/memory/pool_view.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

std::shared_ptr<Topic> make_topic() {
  auto t = Topic::open_or_create(testing::unique_name("offset"), TypeInfo::from_name("test/Off"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

TEST(PayloadOffsetTest, publish_with_offset_past_the_loan_returns_size_too_large) {
  auto pub = PublisherPort::create(make_topic(), {});
  ASSERT_TRUE(pub);
  auto loan = (*pub)->loan(64);
  ASSERT_TRUE(loan);
  const std::uint64_t cap = loan->capacity;
  EXPECT_EQ((*pub)->publish(*loan, 8, cap - 4).error(), PublishError::SizeTooLarge);
  EXPECT_EQ((*pub)->publish(*loan, 1, std::numeric_limits<std::uint64_t>::max()).error(),
            PublishError::SizeTooLarge);            // offset + size overflows: refused, not wrapped
  EXPECT_TRUE((*pub)->publish(*loan, 4, cap - 4));  // exactly up to the end is fine
}

TEST(PayloadOffsetTest, subscriber_reads_the_message_at_its_offset_in_place) {
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  auto sub = SubscriberPort::create(topic, {});
  ASSERT_TRUE(pub && sub);
  auto loan = (*pub)->loan(64);
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, "....payload", 11);
  ASSERT_TRUE((*pub)->publish(*loan, 7, 4));
  auto sut = (*sub)->take();
  ASSERT_TRUE(sut);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sut->data()), sut->size()), "payload");
  // In place (same chunk, shifted), and what is left of the chunk from there is readable.
  EXPECT_EQ(sut->capacity(), loan->capacity - 4);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(sut->data()) % 4, 0u);
}

TEST(PayloadOffsetTest, offset_that_does_not_fit_the_chunk_is_skipped_as_lost) {
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  auto sub = SubscriberPort::create(topic, {});
  ASSERT_TRUE(pub && sub);
  memory::PoolView view(topic->pool_name((*pub)->slot(), (*pub)->generation()));
  // A hostile publisher rewrites the offset after publishing: past the end, and so large that
  // offset + size wraps around. Each such message is dropped and counted; the next one arrives.
  const std::uint64_t lies[] = {0, std::numeric_limits<std::uint64_t>::max() - 2};
  for (std::uint64_t lie : lies) {
    auto loan = (*pub)->loan(16);
    ASSERT_TRUE(loan);
    ASSERT_TRUE((*pub)->publish(*loan, 8, 0));
    auto access = view.resolve(loan->ref);
    ASSERT_TRUE(access);
    access->control->payload_offset.store(lie == 0 ? access->capacity - 4 : lie);
  }
  auto good = (*pub)->loan(16);
  ASSERT_TRUE(good);
  std::memcpy(good->data, "xxok", 4);
  ASSERT_TRUE((*pub)->publish(*good, 2, 2));
  auto sut = (*sub)->take();
  ASSERT_TRUE(sut);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sut->data()), sut->size()), "ok");
  EXPECT_EQ((*sub)->lost(), 2u);
}

}  // namespace
}  // namespace baton::topic
