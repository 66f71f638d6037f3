// The monotonic clock and the spin-wait hint every waiting loop in baton uses.
#pragma once

#include <chrono>
#include <cstdint>

namespace baton::shm {

// Nanoseconds on the steady clock (CLOCK_MONOTONIC: comparable across processes).
inline std::int64_t monotonic_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Nanoseconds since the Unix epoch on the system clock (CLOCK_REALTIME), as ROS time stamps.
inline std::int64_t realtime_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Tells the CPU we are spinning (frees pipeline resources for the sibling hyper-thread).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace baton::shm
