// A publisher's pool growth as the topic layer drives it: sized for the ring, one chunk
// committed ahead after each publish, or everything paid up front with reserve().
#include <cstring>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;

std::shared_ptr<Topic> make_topic() {
  auto t =
      Topic::open_or_create(testing::unique_name("growth"), TypeInfo::from_name("test/msg/Bytes"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

void publish(PublisherPort& pub, std::uint64_t size, std::uint64_t seq) {
  auto loan = pub.loan(size);
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, &seq, sizeof(seq));
  ASSERT_TRUE(pub.publish(*loan, size));
}

TEST(PublisherGrowthTest, reserve_larger_than_max_message_size_is_refused) {
  PublisherOptions o;
  o.pool.max_chunk_size = MiB;
  auto pub = PublisherPort::create(make_topic(), o);
  ASSERT_TRUE(pub);
  auto r = (*pub)->reserve(2 * MiB, 4);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, memory::ReserveError::TooLarge);
  EXPECT_EQ((*pub)->pool().segment_count(), 0u);
}

TEST(PublisherGrowthTest, reserved_publisher_streams_through_its_ring_without_growing) {
  auto topic = make_topic();
  PublisherOptions o;
  o.depth = 8;
  auto pub = PublisherPort::create(topic, o);
  SubscriberOptions so;
  so.depth = 8;
  so.reliability = Reliability::BestEffort;
  auto sub = SubscriberPort::create(topic, so);
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE((*pub)->reserve(MiB, o.depth + 2));
  const auto& pool = (*pub)->pool();
  ASSERT_EQ(pool.segment_count(), 1u);
  const auto committed = pool.committed_bytes();
  for (std::uint64_t seq = 0; seq < 40; ++seq) {
    publish(**pub, MiB - 64, seq);
    auto m = (*sub)->take();  // read and released at once, as a quick reader does
    ASSERT_TRUE(m);
    std::uint64_t got = 0;
    std::memcpy(&got, m->data(), sizeof(got));
    EXPECT_EQ(got, seq);
    EXPECT_EQ(pool.segment_count(), 1u) << "grew at message " << seq;
    EXPECT_EQ(pool.committed_bytes(), committed) << "committed memory at message " << seq;
  }
  (*pub)->collect_returns();
  EXPECT_EQ(pool.chunk_count(), o.depth + 2u);
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

TEST(PublisherGrowthTest, unreserved_publisher_has_the_next_chunk_ready_after_each_publish) {
  PublisherOptions o;
  o.depth = 6;
  auto pub = PublisherPort::create(make_topic(), o);
  ASSERT_TRUE(pub);
  const auto& pool = (*pub)->pool();
  for (std::uint64_t seq = 0; seq < 30; ++seq) {
    publish(**pub, 2 * MiB, seq);
    // The loan of the next message will not have to commit memory.
    EXPECT_TRUE(pool.has_free(2 * MiB)) << "after message " << seq;
  }
  // Sized for the ring: one segment, never more chunks than the publisher can hold at once.
  EXPECT_EQ(pool.segment_count(), 1u);
  EXPECT_LE(pool.chunk_count(), o.depth + 2u);
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

}  // namespace
}  // namespace baton::topic
