// Monotonic nanosecond clock and CPU pinning used by all ping-pong benchmarks.
#pragma once

#include <sched.h>
#include <time.h>

#include <cstdint>

namespace baton::bench {

inline std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

// Pins the calling thread to one CPU; returns false (and leaves placement alone) if refused.
inline bool pin_to_cpu(int cpu) {
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

}  // namespace baton::bench
