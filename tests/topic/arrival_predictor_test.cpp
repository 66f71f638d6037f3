#include "baton/topic/arrival_predictor.hpp"

#include <gtest/gtest.h>

namespace baton::topic {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t US = 1'000;

TEST(ArrivalPredictorTest, plan_without_history_spins_then_blocks) {
  ArrivalPredictor sut;
  auto p = sut.plan(10 * MS, 50 * US);
  EXPECT_EQ(p.sleep_until_ns, -1);
  EXPECT_EQ(p.spin_until_ns, 10 * MS + 50 * US);
}

TEST(ArrivalPredictorTest, periodic_stream_sleeps_until_just_before_next_arrival) {
  ArrivalPredictor sut;
  for (int i = 1; i <= 20; ++i) sut.observe(i * MS);  // 1 kHz, no jitter
  EXPECT_EQ(sut.period_ns(), MS);
  auto p = sut.plan(20 * MS + 10 * US, 50 * US);
  EXPECT_EQ(p.sleep_until_ns, 21 * MS - 5 * US);  // guard = 5 us without jitter
  EXPECT_EQ(p.spin_until_ns, 21 * MS + 5 * US);
}

TEST(ArrivalPredictorTest, jitter_widens_the_spin_window_up_to_the_cap) {
  ArrivalPredictor sut;
  std::int64_t t = 0;
  for (int i = 0; i < 50; ++i) {
    t += (i % 2 == 0) ? MS - 40 * US : MS + 40 * US;
    sut.observe(t);
  }
  auto p = sut.plan(t, 50 * US);
  EXPECT_EQ(p.spin_until_ns - p.sleep_until_ns, 2 * 50 * US);  // capped at max spin
}

TEST(ArrivalPredictorTest, long_pause_forgets_the_estimate) {
  ArrivalPredictor sut;
  for (int i = 1; i <= 10; ++i) sut.observe(i * MS);
  sut.observe(10 * MS + 5'000 * MS);  // 5 s later
  EXPECT_EQ(sut.period_ns(), 0);
  EXPECT_EQ(sut.plan(5'011 * MS, 50 * US).sleep_until_ns, -1);
}

TEST(ArrivalPredictorTest, late_stream_blocks_instead_of_spinning) {
  ArrivalPredictor sut;
  for (int i = 1; i <= 10; ++i) sut.observe(i * MS);
  auto p = sut.plan(13 * MS, 50 * US);  // two periods late
  EXPECT_EQ(p.sleep_until_ns, -1);
  EXPECT_EQ(p.spin_until_ns, 13 * MS);
}

}  // namespace
}  // namespace baton::topic
