// MAX_SUBSCRIBERS (256) subscribers on one topic: slots 63 and up hold their chunk references in
// the second control line (memory/chunk_refs.hpp), active_subs spans four words and the return
// queues' pending bits are shared by four queues each. These tests fill every slot.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

std::shared_ptr<Topic> make_topic() {
  auto t =
      Topic::open_or_create(testing::unique_name("fanout"), TypeInfo::from_name("test/msg/Bytes"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

std::vector<std::unique_ptr<SubscriberPort>> fill(const std::shared_ptr<Topic>& topic,
                                                  const SubscriberOptions& o) {
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  for (std::uint32_t k = 0; k < MAX_SUBSCRIBERS; ++k) {
    auto s = SubscriberPort::create(topic, o);
    EXPECT_TRUE(s) << "subscriber " << k << ": " << (s ? "" : s.error().detail);
    if (!s) break;
    subs.push_back(std::move(*s));
  }
  return subs;
}

void publish_number(PublisherPort& pub, std::uint64_t n) {
  auto loan = pub.loan(sizeof n);
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, &n, sizeof n);
  ASSERT_TRUE(pub.publish(*loan, sizeof n));
}

std::uint64_t number_of(const TakenSample& s) {
  std::uint64_t n = 0;
  std::memcpy(&n, s.data(), sizeof n);
  return n;
}

TEST(FanOutTest, a_topic_takes_256_subscribers_and_refuses_the_next_naming_the_limit) {
  auto topic = make_topic();
  auto subs = fill(topic, {});
  ASSERT_EQ(subs.size(), 256u);
  EXPECT_EQ(topic->subscriber_count(), 256u);
  EXPECT_TRUE(topic->all_subscribers_in_this_process(256));
  auto extra = SubscriberPort::create(topic, {});
  ASSERT_FALSE(extra);
  EXPECT_EQ(extra.error().code, SubscriberCreateError::NoFreeSlot);
  EXPECT_NE(extra.error().detail.find("256 subscribers"), std::string::npos)
      << extra.error().detail;
  subs.pop_back();  // slot 255 free again: the next subscriber gets it
  auto again = SubscriberPort::create(topic, {});
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->slot(), 255u);
}

TEST(FanOutTest, every_one_of_256_reliable_subscribers_gets_every_message_in_order) {
  auto topic = make_topic();
  SubscriberOptions so;
  so.depth = 4;
  auto subs = fill(topic, so);
  ASSERT_EQ(subs.size(), 256u);
  PublisherOptions po;
  po.depth = 4;
  po.reliable_timeout = std::chrono::seconds(5);
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  for (std::uint64_t n = 0; n < 12; ++n) {
    publish_number(**pub, n);
    for (std::size_t k = 0; k < subs.size(); ++k) {
      auto m = subs[k]->take();
      ASSERT_TRUE(m) << "subscriber " << k << " message " << n;
      EXPECT_EQ(number_of(*m), n) << "subscriber " << k;
    }
  }
}

// Every subscriber of a topic sleeps on the topic's wake word (TopicHeader::wake_seq): one
// publish wakes all of them with one wake call, however many there are (issue 20, fan-out tail:
// one call per subscriber let the woken ones preempt the publisher between its calls).
TEST(FanOutTest, one_publish_wakes_every_sleeping_subscriber_with_one_wake_call) {
  constexpr std::uint32_t N = 16;
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  for (std::uint32_t k = 0; k < N; ++k) {
    auto s = SubscriberPort::create(topic, {});
    ASSERT_TRUE(s);
    EXPECT_EQ((*s)->wake_word(), &topic->header()->wake_seq);
    subs.push_back(std::move(*s));
  }
  std::atomic<std::uint32_t> woken_with_data{0};
  std::vector<std::thread> sleepers;
  for (auto& s : subs) {
    sleepers.emplace_back([&, sub = s.get()] {
      if (sub->wait(std::chrono::seconds(10))) woken_with_data.fetch_add(1);
    });
  }
  // Publish once all N have announced themselves on the topic's word (asleep or about to be).
  auto* waiters = &topic->header()->waiters;
  while (shm::sleeper_count(waiters->load()) < N) std::this_thread::yield();
  const std::uint32_t wakes_before = topic->header()->wake_seq.load();
  publish_number(**pub, 7);
  for (auto& t : sleepers) t.join();
  EXPECT_EQ(woken_with_data.load(), N);
  EXPECT_EQ(topic->header()->wake_seq.load(), wakes_before + 1) << "one wake call for all";
  for (auto& s : subs) {
    auto m = s->take();
    ASSERT_TRUE(m);
    EXPECT_EQ(number_of(*m), 7u);
  }
}

TEST(FanOutTest, a_chunk_held_only_by_slots_63_and_up_is_reused_only_after_the_last_lets_go) {
  auto topic = make_topic();
  SubscriberOptions so;
  so.depth = 2;
  so.reliability = Reliability::BestEffort;
  auto subs = fill(topic, so);
  ASSERT_EQ(subs.size(), 256u);
  PublisherOptions po;
  po.depth = 2;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  publish_number(**pub, 7);
  // Slots 0..62 let go at once: only the second control line (refs_ext) keeps the chunk.
  std::vector<TakenSample> held;
  for (auto& s : subs) {
    auto m = s->take();
    ASSERT_TRUE(m);
    if (s->slot() >= memory::WORD0_SUBSCRIBER_BITS) held.push_back(std::move(*m));
  }
  // Evict message 7 from the ring many times over: its chunk must not be handed out again.
  for (std::uint64_t n = 100; n < 140; ++n) publish_number(**pub, n);
  std::mt19937 rng(20);
  std::shuffle(held.begin(), held.end(), rng);
  while (!held.empty()) {
    EXPECT_EQ(number_of(held.back()), 7u) << "reused while " << held.size() << " still held";
    held.pop_back();
  }
  (*pub)->collect_returns();
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

TEST(FanOutTest, keep_last_holds_for_a_subscriber_in_the_last_slot) {
  auto topic = make_topic();
  SubscriberOptions so;
  so.depth = 3;
  so.reliability = Reliability::BestEffort;
  auto subs = fill(topic, so);
  ASSERT_EQ(subs.size(), 256u);
  PublisherOptions po;
  po.depth = 8;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  for (std::uint64_t n = 0; n < 10; ++n) publish_number(**pub, n);
  SubscriberPort& last = *subs.back();
  ASSERT_EQ(last.slot(), 255u);
  for (std::uint64_t n = 7; n < 10; ++n) {
    auto m = last.take();
    ASSERT_TRUE(m);
    EXPECT_EQ(number_of(*m), n);
  }
  EXPECT_FALSE(last.take());
  EXPECT_EQ(last.lost(), 7u);
}

}  // namespace
}  // namespace baton::topic
