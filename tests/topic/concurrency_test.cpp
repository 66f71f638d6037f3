// Multi-threaded publish / take / release / reclaim in one process: run under TSan by
// scripts/sanitize.sh (gtest filter "Concurrency*").
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<Topic> make_topic() {
  auto t = Topic::open_or_create(testing::unique_name("conc"), TypeInfo::from_name("test/msg/U64"));
  EXPECT_TRUE(t);
  return *t;
}

TEST(ConcurrencyTest, subscriber_with_zero_depth_returns_invalid_qos) {
  SubscriberOptions o;
  o.depth = 0;
  auto sut = SubscriberPort::create(make_topic(), o);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SubscriberCreateError::InvalidQos);
}

TEST(ConcurrencyTest, reliable_publish_and_take_across_threads_delivers_every_message_in_order) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 4;
  po.reliable_timeout = 10s;
  auto pub = PublisherPort::create(topic, po);
  constexpr int SUBS = 2;
  constexpr std::uint64_t N = 5000;
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  for (int i = 0; i < SUBS; ++i) {
    SubscriberOptions so;
    so.depth = 4;
    so.wait_mode = i == 0 ? WaitMode::Blocking : WaitMode::Adaptive;
    auto s = SubscriberPort::create(topic, so);
    ASSERT_TRUE(s);
    subs.push_back(std::move(*s));
  }
  ASSERT_TRUE(pub);
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (auto& s : subs) {
    readers.emplace_back([&, sub = s.get()] {
      std::uint64_t next = 0;
      std::vector<TakenSample> held;
      while (next < N) {
        if (!sub->wait(5s)) break;
        while (auto m = sub->take()) {
          std::uint64_t v[2];
          std::memcpy(v, m->data(), sizeof(v));
          if (m->size() != sizeof(v) || v[0] != next || v[1] != ~next) ++errors;
          ++next;
          held.push_back(std::move(*m));
          if (held.size() > 2) held.erase(held.begin());
        }
      }
      if (next != N) ++errors;
    });
  }
  for (std::uint64_t i = 0; i < N; ++i) {
    auto loan = (*pub)->loan(16);
    ASSERT_TRUE(loan);
    const std::uint64_t v[2] = {i, ~i};
    std::memcpy(loan->data, v, sizeof(v));
    ASSERT_TRUE((*pub)->publish(*loan, sizeof(v)));
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(errors.load(), 0);
  (*pub)->collect_returns();
  subs.clear();
  (*pub)->collect_returns();
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

// take() marks a held entry in use with a plain store and a sample's release clears it from any
// thread (no shared mask, no reference count on the connection): samples handed to two other
// threads and released there while take() goes on must each hold their own message until
// released, every loan entry must come back, and every chunk must return to the publisher.
TEST(ConcurrencyTest, samples_released_on_other_threads_while_take_goes_on_keep_their_messages) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 4;
  po.reliable_timeout = 10s;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 4;
  auto sub = SubscriberPort::create(topic, so);
  ASSERT_TRUE(pub && sub);
  constexpr std::uint64_t N = 20000;
  constexpr int RELEASERS = 2;
  // One single-producer single-consumer hand-off slot per releaser thread.
  struct alignas(64) HandOff {
    std::atomic<TakenSample*> sample{nullptr};
  };
  HandOff hand[RELEASERS];
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> releasers;
  for (int r = 0; r < RELEASERS; ++r) {
    releasers.emplace_back([&, r] {
      std::vector<std::unique_ptr<TakenSample>> kept;  // a few held at once, released in turn
      while (true) {
        TakenSample* s = hand[r].sample.exchange(nullptr, std::memory_order_acq_rel);
        if (s == nullptr) {
          if (done.load(std::memory_order_acquire)) break;
          std::this_thread::yield();
          continue;
        }
        kept.emplace_back(s);
        if (kept.size() < 5) continue;
        for (auto& k : kept) {
          std::uint64_t v[2];
          std::memcpy(v, k->data(), sizeof(v));
          if (v[1] != ~v[0] || v[0] != k->sequence()) ++errors;  // overwritten while held
          k->release();
        }
        kept.clear();
      }
    });
  }
  std::uint64_t next = 0;
  int turn = 0;
  for (std::uint64_t i = 0; i < N; ++i) {
    auto loan = (*pub)->loan(16);
    ASSERT_TRUE(loan);
    const std::uint64_t v[2] = {i, ~i};
    std::memcpy(loan->data, v, sizeof(v));
    ASSERT_TRUE((*pub)->publish(*loan, sizeof(v)));
    while (true) {
      auto m = (*sub)->take();
      if (!m) {
        if (m.error() == TakeError::NoData) break;
        std::this_thread::yield();  // TooManyLoans: the releasers hold all 16 entries
        continue;
      }
      std::uint64_t got[2];
      std::memcpy(got, m->data(), sizeof(got));
      if (got[0] != next || got[1] != ~next) ++errors;
      ++next;
      auto* s = new TakenSample(std::move(*m));
      while (hand[turn].sample.load(std::memory_order_acquire) != nullptr)
        std::this_thread::yield();
      hand[turn].sample.store(s, std::memory_order_release);
      turn = (turn + 1) % RELEASERS;
    }
  }
  done.store(true, std::memory_order_release);
  for (auto& t : releasers) t.join();
  EXPECT_EQ(next, N);
  EXPECT_EQ(errors.load(), 0);
  (*pub)->collect_returns();
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
  for (std::uint32_t j = 0; j < MAX_LOANS_PER_SUBSCRIBER; ++j) {
    EXPECT_EQ(topic->subscriber_slot((*sub)->slot())->held[j].load(), 0u) << j;
  }
}

TEST(ConcurrencyTest, reclaim_dead_while_threads_attach_and_detach_keeps_every_live_slot) {
  auto topic = make_topic();
  std::atomic<bool> stop{false};
  std::atomic<int> lost_slots{0};
  std::thread reclaimer([&] {
    while (!stop.load()) topic->reclaim_dead();
  });
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto sub = SubscriberPort::create(topic, {});
        auto pub = PublisherPort::create(topic, {});
        if (!sub || !pub) continue;
        const auto mine = slot_word(SlotState::Active, static_cast<std::uint32_t>(::getpid()));
        if (topic->subscriber_slot((*sub)->slot())->state.load() != mine) ++lost_slots;
        if (topic->publisher_slot((*pub)->slot())->state.load() != mine) ++lost_slots;
      }
    });
  }
  for (auto& w : workers) w.join();
  stop = true;
  reclaimer.join();
  EXPECT_EQ(lost_slots.load(), 0);
  EXPECT_EQ(topic->subscriber_count() + topic->publisher_count(), 0u);
}

}  // namespace
}  // namespace baton::topic
