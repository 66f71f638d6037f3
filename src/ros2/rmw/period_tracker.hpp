// The two QoS clocks rmw_baton_cpp keeps per endpoint, counted lazily (no thread: whoever looks —
// rmw_wait, rmw_take_event, a listener's recheck — brings them up to date from the monotonic
// clock, and rmw_wait sleeps until next_ns()):
//
// DeadlineTracker — a finite deadline. Every full period that passes without a renewal (a publish
// for a publisher, a sample for a subscription) is one miss, and the next period starts where
// the missed one ended, as DDS counts OFFERED / REQUESTED_DEADLINE_MISSED.
//
// LeaseTracker — manual liveliness with a finite lease (a publisher's LIVELINESS_LOST): asserted
// by each publish and rmw_publisher_assert_liveliness; each time the lease runs out without an
// assertion counts once, until the next assertion makes the publisher alive again.
//
// Both are guarded by EndpointEvents::mutex. A period of 0 is infinite: nothing is ever counted.
#pragma once

#include <rmw/types.h>

#include <algorithm>
#include <cstdint>

namespace baton::ros2::rmw {

// `t` in ns; 0 when infinite (or too long to matter: 100 years or more, which also keeps every
// sum of a monotonic time and a period far below INT64_MAX).
inline int64_t finite_period_ns(const rmw_time_t& t) {
  constexpr uint64_t MAX_S = 100ull * 365 * 24 * 3600;
  const rmw_time_t infinite = RMW_DURATION_INFINITE;
  if ((t.sec == infinite.sec && t.nsec == infinite.nsec) || t.sec >= MAX_S) return 0;
  return static_cast<int64_t>(t.sec) * 1'000'000'000 + static_cast<int64_t>(t.nsec);
}

struct DeadlineTracker {
  int64_t period_ns = 0;  // 0: no deadline
  int64_t last_ns = 0;    // the last renewal (the endpoint's creation at first)
  uint64_t closed = 0;    // misses before last_ns
  uint64_t open = 0;      // misses since last_ns counted so far
  uint64_t reported = 0;  // total() as of the last rmw_take_event

  uint64_t total() const { return closed + open; }
  // Counts the periods that ended by `now` (monotonic ns).
  void advance(int64_t now) {
    if (period_ns > 0 && now > last_ns)
      open = std::max<uint64_t>(open, static_cast<uint64_t>((now - last_ns) / period_ns));
  }
  // A renewal at `at` (clamped to [last_ns, now]: a sample's time comes from its publisher).
  void renew(int64_t at, int64_t now) {
    at = std::clamp(at, last_ns, std::max(last_ns, now));
    advance(at);
    closed += open;
    open = 0;
    last_ns = at;
  }
  // When the next miss is due (monotonic ns); -1 without a deadline.
  int64_t next_ns() const {
    return period_ns > 0 ? last_ns + static_cast<int64_t>(open + 1) * period_ns : -1;
  }
};

struct LeaseTracker {
  int64_t lease_ns = 0;  // 0: automatic liveliness or an infinite lease
  int64_t last_ns = 0;   // the last assertion (the endpoint's creation at first)
  bool alive = true;
  uint64_t lost = 0;      // times the lease ran out
  uint64_t reported = 0;  // lost as of the last rmw_take_event

  void advance(int64_t now) {
    if (lease_ns > 0 && alive && now - last_ns >= lease_ns) {
      alive = false;
      ++lost;
    }
  }
  void assert_at(int64_t now) {
    advance(now);
    last_ns = now;
    alive = true;
  }
  // When the lease runs out (monotonic ns); -1 when it cannot (none, or already lost).
  int64_t next_ns() const { return lease_ns > 0 && alive ? last_ns + lease_ns : -1; }
};

}  // namespace baton::ros2::rmw
