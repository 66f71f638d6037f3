// Predicts when the next message of a periodic stream arrives, so an adaptive wait can sleep
// through most of the gap and spin only around the expected arrival: busy-poll latency for a
// 1 kHz sensor stream at a few percent of a core, and no spinning at all when the stream is
// idle (no estimate yet, or the stream stopped).
//
// Model: exponentially weighted mean period and mean absolute deviation (jitter) of the gaps
// between arrivals, and the mean overshoot of our own timed sleeps (a sleeping vCPU is slow to
// wake); the spin window opens `guard` before the expected arrival, where guard is
// 4 x jitter + overshoot + 5 us, capped by the configured spin time.
#pragma once

#include <algorithm>
#include <cstdint>

namespace baton::topic {

class ArrivalPredictor {
 public:
  struct Plan {
    std::int64_t sleep_until_ns;  // block (a publish still wakes us) until then; -1: no estimate
    std::int64_t spin_until_ns;   // then spin until then; afterwards block again
  };

  // Records that a message was found at `now_ns`.
  void observe(std::int64_t now_ns) noexcept {
    if (last_ns_ != 0) {
      const std::int64_t gap = now_ns - last_ns_;
      if (gap > 0 && gap < MAX_PERIOD_NS) {
        if (period_ns_ == 0) {
          period_ns_ = gap;
        } else {
          const std::int64_t dev = gap > period_ns_ ? gap - period_ns_ : period_ns_ - gap;
          jitter_ns_ += (dev - jitter_ns_) / 8;
          period_ns_ += (gap - period_ns_) / 8;
        }
      } else {
        period_ns_ = 0;  // stream paused: forget the estimate rather than spin on stale data
        jitter_ns_ = 0;
      }
    }
    last_ns_ = now_ns;
  }

  // Records how late a timed sleep that was meant to end at `planned_ns` actually ended.
  void observe_sleep(std::int64_t planned_ns, std::int64_t woke_ns) noexcept {
    const std::int64_t late = std::max<std::int64_t>(woke_ns - planned_ns, 0);
    overshoot_ns_ += (late - overshoot_ns_) / 8;
  }

  Plan plan(std::int64_t now_ns, std::int64_t max_spin_ns) const noexcept {
    if (period_ns_ == 0 || last_ns_ == 0) return {-1, now_ns + max_spin_ns};
    const std::int64_t expected = last_ns_ + period_ns_;
    const std::int64_t guard =
        std::min<std::int64_t>(4 * jitter_ns_ + overshoot_ns_ + 5'000, max_spin_ns);
    if (now_ns > expected + guard) return {-1, now_ns};  // late: do not spin, just block
    return {expected - guard, expected + guard};
  }

  std::int64_t period_ns() const noexcept { return period_ns_; }

 private:
  static constexpr std::int64_t MAX_PERIOD_NS = 1'000'000'000;  // slower streams: just block
  std::int64_t last_ns_ = 0;
  std::int64_t period_ns_ = 0;
  std::int64_t jitter_ns_ = 0;
  std::int64_t overshoot_ns_ = 0;
};

}  // namespace baton::topic
