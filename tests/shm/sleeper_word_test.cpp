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
  (void)announce_sleeper(&p.waiters, &p.wake);
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
  (void)announce_sleeper(&p.waiters, &p.wake);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));
  retract_sleeper(&p.waiters);
  (void)announce_sleeper(&p.waiters, &p.wake);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 2u);
}

TEST(SleeperWord, a_stale_arm_without_sleepers_wakes_nobody) {
  WakePair p;
  (void)announce_sleeper(&p.waiters, &p.wake);  // found its data, retracted: ARMED stays set
  retract_sleeper(&p.waiters);
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));
  EXPECT_EQ(p.wake.load(), 0u);
}

// The interleaving that lost a wake-up when the sleeper loaded the futex word after arming (found
// by the racing test below, reproduced by a model of the protocol): notifier A's wake call, made
// for a message the sleeper has already seen, consumes the sleeper's next arm; notifier B's
// message then comes after the sleeper's re-check, finds the arm consumed and makes no call. The
// sleep must still return: the word the sleeper sleeps on has to have moved.
TEST(SleeperWord, an_arm_consumed_for_an_earlier_message_still_ends_the_sleep) {
  WakePair p;
  std::uint32_t data = 0;
  std::uint32_t seen = 0;
  (void)announce_sleeper(&p.waiters, &p.wake);
  data = 1;               // A stores message 1 (its wake call comes later)
  ASSERT_NE(data, seen);  // the sleeper's re-check finds it: no sleep
  retract_sleeper(&p.waiters);
  seen = data;
  const std::uint32_t observed = announce_sleeper(&p.waiters, &p.wake);
  EXPECT_TRUE(wake_armed_sleepers(&p.waiters, &p.wake));   // A's wake call consumes this arm
  ASSERT_EQ(data, seen);                                   // the re-check finds nothing new
  data = 2;                                                // B stores message 2 ...
  EXPECT_FALSE(wake_armed_sleepers(&p.waiters, &p.wake));  // ... and leaves the wake to A
  EXPECT_NE(p.wake.load(), observed) << "futex_wait(wake, observed) would sleep through message 2";
  retract_sleeper(&p.waiters);
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
      const std::uint32_t observed = announce_sleeper(&p.waiters, &p.wake);
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
