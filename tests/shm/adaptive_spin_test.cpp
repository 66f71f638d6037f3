// shm::AdaptiveSpin (shm/adaptive_spin.hpp): how long a reliable publisher waiting for room and
// a blocking subscriber waiting for a message look again before they sleep. The budget halves
// down to MIN_NS when looking found nothing, doubles up to MAX_NS when it found what it waited
// for, and a look always asks at least once, even with no time left.
#include "baton/shm/adaptive_spin.hpp"

#include <gtest/gtest.h>

namespace baton::shm {
namespace {

constexpr std::int64_t kPast = 0;  // a deadline already over: one look, then give up

TEST(AdaptiveSpin, starts_at_the_longest_look) {
  EXPECT_EQ(AdaptiveSpin{}.budget_ns(), AdaptiveSpin::MAX_NS);
}

TEST(AdaptiveSpin, a_look_that_finds_nothing_halves_the_budget_down_to_the_floor) {
  AdaptiveSpin spin;
  std::int64_t expect = AdaptiveSpin::MAX_NS;
  for (int i = 0; i < 10; ++i) {
    int asked = 0;
    EXPECT_FALSE(spin.look(kPast, 1, [&] { return ++asked, false; }));
    EXPECT_EQ(asked, 1);  // asked once although the deadline was over
    expect = std::max(expect / 2, AdaptiveSpin::MIN_NS);
    EXPECT_EQ(spin.budget_ns(), expect);
  }
  EXPECT_EQ(spin.budget_ns(), AdaptiveSpin::MIN_NS);
}

TEST(AdaptiveSpin, a_look_that_finds_doubles_the_budget_up_to_the_ceiling) {
  AdaptiveSpin spin;
  for (int i = 0; i < 10; ++i) (void)spin.look(kPast, 1, [] { return false; });
  std::int64_t expect = AdaptiveSpin::MIN_NS;
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(spin.look(kPast, 1, [] { return true; }));
    expect = std::min(expect * 2, AdaptiveSpin::MAX_NS);
    EXPECT_EQ(spin.budget_ns(), expect);
  }
  EXPECT_EQ(spin.budget_ns(), AdaptiveSpin::MAX_NS);
}

}  // namespace
}  // namespace baton::shm
