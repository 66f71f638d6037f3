// Domains on a topic with more than 63 subscribers: a domain table has reader bits for subscriber
// slots 0..62 only (domain_table_layout.hpp), while a topic has 256 slots (topic_layout.hpp).
#include <cstring>
#include <vector>

#include "baton/topic/domain_publisher.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using memory::domain::DomainSpec;

constexpr std::uint64_t MSG = 4096;

std::shared_ptr<Topic> make_topic() {
  auto t = Topic::open_or_create(testing::unique_name("domfan"), TypeInfo::from_name("test/Blob"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

std::vector<std::unique_ptr<SubscriberPort>> plain_subscribers(const std::shared_ptr<Topic>& t,
                                                               std::uint32_t n) {
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  for (std::uint32_t k = 0; k < n; ++k) {
    auto s = SubscriberPort::create(t, {});
    EXPECT_TRUE(s);
    if (s) subs.push_back(std::move(*s));
  }
  return subs;
}

TEST(DomainFanOutTest, a_domain_subscriber_is_refused_when_no_slot_below_63_is_free) {
  auto topic = make_topic();
  auto plain = plain_subscribers(topic, memory::domain::MAX_TABLE_READERS);
  auto sut = DomainSubscriber::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainSubscriberCreateError::NoFreeSlot);
  EXPECT_NE(sut.error().detail.find("slots 0..62"), std::string::npos) << sut.error().detail;
  EXPECT_EQ(topic->subscriber_count(), plain.size());  // the refused one gave its slot back
  plain.erase(plain.begin() + 5);                      // slot 5 free again
  auto ok = DomainSubscriber::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(ok) << ok.error().detail;
}

TEST(DomainFanOutTest, a_plain_subscriber_in_slot_64_reads_a_device_published_message) {
  auto topic = make_topic();
  auto plain = plain_subscribers(topic, 65);  // slots 0..64
  ASSERT_EQ(plain.size(), 65u);
  plain.erase(plain.begin());  // slot 0 for the domain reader
  auto reader = DomainSubscriber::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(reader) << reader.error().detail;
  // Leave only the domain reader (slot 0) and the plain subscriber in slot 64: the publisher must
  // see the latter in the second active_subs word and write the host chunk for it.
  plain.erase(plain.begin(), plain.end() - 1);
  ASSERT_EQ(plain.back()->slot(), 64u);
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(pub) << pub.error().detail;
  auto loan = (*pub)->loan(MSG);
  ASSERT_TRUE(loan);
  ASSERT_NE(loan->view().host, nullptr);  // staging memory, not the host chunk
  for (std::uint64_t i = 0; i < MSG; ++i) loan->view().host[i] = std::byte(i * 7 + 1);
  ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));
  auto m = plain.back()->take();
  ASSERT_TRUE(m);
  ASSERT_EQ(m->size(), MSG);
  for (std::uint64_t i = 0; i < MSG; ++i) {
    ASSERT_EQ(m->data()[i], std::byte(i * 7 + 1)) << "byte " << i;
  }
  auto d = (*reader)->take();
  ASSERT_TRUE(d) << to_string(d.error());
}

}  // namespace
}  // namespace baton::topic
