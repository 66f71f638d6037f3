// The "waiters" word of a wake pair (a futex word a notifier bumps + this word): how a sleeper
// announces itself and how a notifier decides whether to make the wake system call.
//
// Layout of the word: bits 0..30 count the threads between "announce" and "retract" (about to
// sleep or sleeping); bit 31, ARMED, says a sleeper announced itself since the last wake.
//
// Why the ARMED bit: a woken sleeper stays counted until the scheduler runs it again. With many
// subscribers on two cores that can take several publishes, and a plain count made the publisher
// repeat FUTEX_WAKE on every one of them (a system call each, finding nobody left to wake). Now
// the first notifier after an announce consumes ARMED and wakes; the others skip.
//
// Why no wake is lost (sync point "sleeper-dekker"): the sleeper loads the futex word, sets
// ARMED (seq_cst RMW), then re-checks its condition; the notifier stores its data, then (seq_cst
// fence or RMW) loads this word. Either the notifier sees ARMED, or the sleeper's re-check sees
// the data. A notifier that finds ARMED already consumed leaves the wake to the one that consumed
// it, which bumps the futex word after consuming. The sleeper must load the futex word *before*
// arming: then any consumption of its arm comes after that load, the bump changes the word, and
// the sleep returns at once (re-check, re-arm). Loaded after arming, it could already hold a bump
// made for an earlier message, and a later notifier that found ARMED consumed woke nobody — a
// lost wake-up the racing test found and python/tests/test_sleeper_word_model.py reproduces (the
// load is now inside announce_sleeper, so no caller can get the order wrong).
#pragma once

#include <atomic>
#include <cstdint>

#include "baton/shm/futex.hpp"

namespace baton::shm {

inline constexpr std::uint32_t SLEEPER_ARMED = 1u << 31;
inline constexpr std::uint32_t SLEEPER_COUNT_MASK = SLEEPER_ARMED - 1;

// Sleeper: call before re-checking the condition. Returns the futex word's value to sleep on
// (futex_wait(wake, returned value)), loaded before arming (see above).
[[nodiscard]] inline std::uint32_t announce_sleeper(
    std::atomic<std::uint32_t>* waiters, const std::atomic<std::uint32_t>* wake) noexcept {
  const std::uint32_t observed = wake->load(std::memory_order_seq_cst);
  waiters->fetch_add(1, std::memory_order_seq_cst);
  waiters->fetch_or(SLEEPER_ARMED, std::memory_order_seq_cst);
  return observed;
}

// Sleeper: call once after announce_sleeper, whether it slept or not.
inline void retract_sleeper(std::atomic<std::uint32_t>* waiters) noexcept {
  waiters->fetch_sub(1, std::memory_order_relaxed);
}

// Number of announced sleepers (for diagnostics and tests).
inline std::uint32_t sleeper_count(std::uint32_t waiters_value) noexcept {
  return waiters_value & SLEEPER_COUNT_MASK;
}

// Notifier: call after the data store is ordered before this call (a seq_cst store, RMW or
// fence). Wakes the sleepers on `wake` if one armed since the last wake; returns true if it did.
inline bool wake_armed_sleepers(std::atomic<std::uint32_t>* waiters,
                                std::atomic<std::uint32_t>* wake) noexcept {
  const std::uint32_t w = waiters->load(std::memory_order_seq_cst);
  if ((w & SLEEPER_COUNT_MASK) == 0 || (w & SLEEPER_ARMED) == 0) return false;
  if ((waiters->fetch_and(~SLEEPER_ARMED, std::memory_order_acq_rel) & SLEEPER_ARMED) == 0) {
    return false;  // another notifier consumed it and wakes
  }
  wake->fetch_add(1, std::memory_order_release);
  futex_wake_all(wake);
  return true;
}

}  // namespace baton::shm
