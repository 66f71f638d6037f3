// How long a waiter on shared memory looks again before it sleeps on a futex.
//
// A futex sleep costs the waiter a wake-up of ~30 us on a VM and the other side a system call
// to wake it, while a peer that is running answers within a cache-line transfer (~0.2 us). So a
// waiter looks first, for a budget that adapts to whether looking pays: doubled (up to `max`)
// each time it found what it waited for, halved (down to `min`) each time it had to sleep
// anyway (a peer that is not running, or a message that is not coming soon, cannot be caught
// by spinning). Used by a reliable publisher waiting for room (docs/design/core.md, "Waiting").
// Not by a blocking subscriber: there a look that pays once keeps paying in a ping-pong (both
// sides spinning answer within it), which turned "blocking" into busy-polling.
#pragma once

#include <algorithm>
#include <cstdint>

#include "baton/shm/clock.hpp"

namespace baton::shm {

class AdaptiveSpin {
 public:
  static constexpr std::int64_t MIN_NS = 500;
  static constexpr std::int64_t MAX_NS = 10'000;  // the default ceiling

  // Starts at the ceiling `max_ns` (>= MIN_NS).
  explicit constexpr AdaptiveSpin(std::int64_t max_ns = MAX_NS) noexcept
      : max_ns_(std::max(max_ns, MIN_NS)), budget_ns_(max_ns_) {}

  // For a caller that just found nothing: calls `found()` after every `pauses` pauses until it
  // is true (true) or the budget, cut at `deadline_ns` (-1: none), is spent (false), and adapts
  // the budget to the outcome. `pauses` spaces the looks for a `found` that reads lines the
  // other side writes (each look may pull one over while that side is writing it).
  template <typename Found>
  bool look(std::int64_t deadline_ns, std::uint32_t pauses, Found&& found) noexcept {
    std::int64_t until = monotonic_ns() + budget_ns_;
    if (deadline_ns >= 0) until = std::min(until, deadline_ns);
    while (true) {
      for (std::uint32_t k = 0; k < pauses; ++k) cpu_relax();
      if (found()) {
        budget_ns_ = std::min(budget_ns_ * 2, max_ns_);
        return true;
      }
      if (monotonic_ns() >= until) break;
    }
    budget_ns_ = std::max(budget_ns_ / 2, MIN_NS);
    return false;
  }

  std::int64_t budget_ns() const noexcept { return budget_ns_; }
  std::int64_t max_ns() const noexcept { return max_ns_; }

 private:
  std::int64_t max_ns_;
  std::int64_t budget_ns_;
};

}  // namespace baton::shm
