// Turns at a periodic task that many processes run on one shared segment (the janitors' reclaim
// passes over a topic or the graph registry): whoever finds the segment's last-run time older
// than half a period and CASes it to now takes the turn; the others skip. The time is a hint
// from shared memory, not trusted: a value from the future (a corrupt word, or a process in
// another time namespace) counts as due, so a bad word can only bring back a run per process,
// never stop them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "baton/shm/clock.hpp"

namespace baton::shm {

// True if the caller takes this turn (and has recorded it in `last_run`). A last-run time of 0
// is "never run", and due: the monotonic clock counts from boot, so 0 read as a time would keep
// a new segment's first turn waiting until the machine had been up half a period (a janitor
// pass over a new topic, with a 1 h period, within the first 30 minutes of a fresh CI machine).
inline bool take_periodic_turn(std::atomic<std::uint64_t>& last_run,
                               std::chrono::nanoseconds period) noexcept {
  const auto now = static_cast<std::uint64_t>(monotonic_ns());
  const auto half = static_cast<std::uint64_t>(period.count() / 2);
  std::uint64_t last = last_run.load(std::memory_order_relaxed);
  if (last != 0 && last <= now && now - last < half) return false;
  return last_run.compare_exchange_strong(last, now, std::memory_order_relaxed);
}

}  // namespace baton::shm
