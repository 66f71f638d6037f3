// Thin wrappers over the Linux futex calls on words that live in shared memory (so never
// FUTEX_PRIVATE_FLAG). Waking is the caller's decision: baton only wakes when a waiter count says
// someone sleeps, so an uncontended publish makes no system call.
#pragma once

#include <atomic>
#include <cstdint>

namespace baton::shm {

// Sleeps while *word == expected, at most timeout_ns (< 0: forever). Returns false on timeout.
bool futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::int64_t timeout_ns);

// Wakes every sleeper on `word`.
void futex_wake_all(std::atomic<std::uint32_t>* word);

// Sleeps until any of `count` words differs from its expected value (futex_waitv, Linux 5.16+).
// Returns the index of a word that woke us, -1 on timeout, -2 if the kernel lacks futex_waitv.
int futex_wait_any(std::atomic<std::uint32_t>* const* words, const std::uint32_t* expected,
                   int count, std::int64_t timeout_ns);

}  // namespace baton::shm
