// The sleeper word of shm/sleeper_word.hpp: one wake system call per armed sleep, and no lost
// wake-up when notifiers race a sleeper (the publisher/subscriber wait paths are built on it).
#include "baton/shm/sleeper_word.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace baton::shm {
namespace {

struct WakePair {
  std::atomic<std::uint32_t> wake{0};
  std::atomic<std::uint32_t> waiters{0};
};

TEST(SleeperWord, nobody_announced_means_no_wake) {
  WakePair p;
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 0u);
}

TEST(SleeperWord, first_notifier_after_an_announce_wakes_and_the_next_ones_skip) {
  WakePair p;
  announce_sleeper(&p.waiters);
  EXPECT_EQ(sleeper_count(p.waiters.load()), 1u);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 1u);
  // The sleeper is still counted (not yet scheduled) but its arm is consumed.
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 1u);
  retract_sleeper(&p.waiters);
  EXPECT_EQ(sleeper_count(p.waiters.load()), 0u);
}

TEST(SleeperWord, a_new_announce_rearms) {
  WakePair p;
  announce_sleeper(&p.waiters);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));
  retract_sleeper(&p.waiters);
  announce_sleeper(&p.waiters);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 2u);
}

TEST(SleeperWord, a_stale_arm_without_sleepers_wakes_nobody) {
  WakePair p;
  announce_sleeper(&p.waiters);  // announced, found its data, retracted: ARMED stays set
  retract_sleeper(&p.waiters);
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 0u);
}

// Two notifiers publish a counter each; a sleeper waits until it has seen every increment. A lost
// wake-up shows as a sleep slice (2 s, far beyond any scheduling delay) that expires while data
// it should have been woken for is there; the test stops at the first one.
TEST(SleeperWord, racing_notifiers_never_lose_a_wake) {
  constexpr std::uint32_t PER_NOTIFIER = 20000;
  WakePair p;
  std::atomic<std::uint32_t> data{0};
  std::atomic<bool> lost_wake{false};
  std::atomic<std::uint32_t> sleeps{0};
  std::thread sleeper([&] {
    std::uint32_t seen = 0;
    while (seen < 2 * PER_NOTIFIER && !lost_wake.load()) {
      announce_sleeper(&p.waiters);
      const std::uint32_t observed = p.wake.load(std::memory_order_seq_cst);
      if (data.load(std::memory_order_seq_cst) == seen) {
        sleeps.fetch_add(1);
        if (!futex_wait(&p.wake, observed, 2'000'000'000) &&
            data.load(std::memory_order_seq_cst) != seen) {
          lost_wake.store(true);
        }
      }
      retract_sleeper(&p.waiters);
      seen = data.load(std::memory_order_seq_cst);
    }
  });
  std::vector<std::thread> notifiers;
  for (int n = 0; n < 2; ++n) {
    notifiers.emplace_back([&, n] {
      for (std::uint32_t i = 0; i < PER_NOTIFIER; ++i) {
        data.fetch_add(1, std::memory_order_seq_cst);
        wake_armed_sleepers(&p.waiters, &p.wake);
        // Now and then let the sleeper catch up and announce itself, so it really sleeps.
        if (n == 0 && (i & 255) == 0) {
          for (int k = 0; k < 100000 && sleeper_count(p.waiters.load()) == 0; ++k) {
            std::this_thread::yield();
          }
        }
      }
    });
  }
  for (auto& t : notifiers) t.join();
  sleeper.join();
  EXPECT_FALSE(lost_wake.load()) << "the sleeper slept through data it should have been woken for";
  EXPECT_GT(sleeps.load(), 0u) << "the sleeper never slept: the test exercised nothing";
  EXPECT_EQ(sleeper_count(p.waiters.load()), 0u);
}

}  // namespace
}  // namespace baton::shm
