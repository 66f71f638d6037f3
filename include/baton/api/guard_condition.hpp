// A condition a thread raises by hand to wake a WaitSet (or an executor): shutdown, cancel, "the
// node got a new subscription". Shaped like rclcpp::GuardCondition.
//
// The trigger is sticky: it stays raised until a WaitSet reports it ready, which lowers it (so
// one trigger wakes one wait). Share a GuardCondition between wait sets only if any one of them
// consuming it is fine.
//
// Wake protocol (the same Dekker pairing as SubscriberPort::wait_blocking):
//   trigger():  triggered_ = true (seq_cst)   ->  wake_armed_sleepers(waiters_, wake_seq_)
//   WaitSet:    load wake_seq_, announce_sleeper(waiters_)  ->  check triggered_ -> sleep
// (shm/sleeper_word.hpp).
// One of the two always sees the other, so a trigger never costs a system call unless someone
// sleeps. The futex word is process-local memory: futex_waitv and FUTEX_WAKE without
// FUTEX_PRIVATE_FLAG still pair on it (the kernel keys a private mapping by address space).
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace baton {

class GuardCondition {
 public:
  GuardCondition() = default;
  GuardCondition(const GuardCondition&) = delete;
  GuardCondition& operator=(const GuardCondition&) = delete;

  // Raises the condition and wakes whoever waits on it.
  void trigger() noexcept;
  // True while raised (a snapshot).
  bool is_triggered() const noexcept { return triggered_.load(std::memory_order_acquire); }
  // Lowers the condition; true if it was raised. WaitSet calls this when it reports it ready.
  bool take_trigger() noexcept { return triggered_.exchange(false, std::memory_order_acq_rel); }

  // For WaitSet's multi-wait: the futex word trigger() bumps, and the sleeper word it checks.
  std::atomic<std::uint32_t>* wake_word() noexcept { return &wake_seq_; }
  std::atomic<std::uint32_t>* waiters_word() noexcept { return &waiters_; }

 private:
  std::atomic<bool> triggered_{false};
  alignas(64) std::atomic<std::uint32_t> wake_seq_{0};
  std::atomic<std::uint32_t> waiters_{0};
};

}  // namespace baton
