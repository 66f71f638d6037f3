// shm::take_periodic_turn: of the processes sharing a segment's last-run time, one takes each
// half period; a time from the future never stops them (shm/periodic_turn.hpp).
#include "baton/shm/periodic_turn.hpp"

#include <gtest/gtest.h>

namespace baton::shm {
namespace {

using namespace std::chrono_literals;

TEST(PeriodicTurnTest, a_never_run_task_is_due_and_the_next_caller_within_half_a_period_skips) {
  std::atomic<std::uint64_t> last{0};
  EXPECT_TRUE(take_periodic_turn(last, 1h));
  EXPECT_NE(last.load(), 0u);
  EXPECT_FALSE(take_periodic_turn(last, 1h));
}

// Whatever the uptime: a period longer than any machine has been up. Before the fix a
// never-run task waited for the monotonic clock (time since boot) to pass half the period, so
// a fresh machine's first make test, within 30 minutes of boot, failed the janitor tests.
TEST(PeriodicTurnTest, a_never_run_task_is_due_however_recently_the_machine_booted) {
  std::atomic<std::uint64_t> last{0};
  EXPECT_TRUE(take_periodic_turn(last, std::chrono::hours(24 * 365 * 100)));
  EXPECT_NE(last.load(), 0u);
}

TEST(PeriodicTurnTest, a_run_older_than_half_a_period_is_due_again) {
  std::atomic<std::uint64_t> last{static_cast<std::uint64_t>(monotonic_ns()) - 2'000'000};
  EXPECT_FALSE(take_periodic_turn(last, 1h));  // 2 ms ago is within half an hour
  EXPECT_TRUE(take_periodic_turn(last, 2ms));  // but not within half of 2 ms
}

TEST(PeriodicTurnTest, a_time_from_the_future_counts_as_due) {
  std::atomic<std::uint64_t> last{~0ull};
  EXPECT_TRUE(take_periodic_turn(last, 1h));
  EXPECT_LE(last.load(), static_cast<std::uint64_t>(monotonic_ns()));
}

}  // namespace
}  // namespace baton::shm
