#include "baton/shm/futex.hpp"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

#ifndef __NR_futex_waitv
#define __NR_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif

namespace baton::shm {
namespace {

timespec relative(std::int64_t ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  return ts;
}

}  // namespace

bool futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::int64_t timeout_ns) {
  timespec ts = relative(timeout_ns < 0 ? 0 : timeout_ns);
  long rc = ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected,
                      timeout_ns < 0 ? nullptr : &ts, nullptr, 0);
  return !(rc != 0 && errno == ETIMEDOUT);
}

void futex_wake_all(std::atomic<std::uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr,
            nullptr, 0);
}

int futex_wait_any(std::atomic<std::uint32_t>* const* words, const std::uint32_t* expected,
                   int count, std::int64_t timeout_ns) {
  struct Waiter {
    std::uint64_t val;
    std::uint64_t uaddr;
    std::uint32_t flags;
    std::uint32_t reserved;
  };
  constexpr int MAX = 128;
  if (count <= 0 || count > MAX) return -2;
  Waiter w[MAX];
  for (int i = 0; i < count; ++i) {
    w[i] = {expected[i], reinterpret_cast<std::uint64_t>(words[i]), FUTEX_32, 0};
  }
  // futex_waitv takes an absolute CLOCK_MONOTONIC deadline.
  timespec deadline;
  if (timeout_ns >= 0) {
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    std::int64_t ns = deadline.tv_nsec + timeout_ns % 1000000000;
    deadline.tv_sec += static_cast<time_t>(timeout_ns / 1000000000 + ns / 1000000000);
    deadline.tv_nsec = static_cast<long>(ns % 1000000000);
  }
  long rc = ::syscall(__NR_futex_waitv, w, count, 0, timeout_ns < 0 ? nullptr : &deadline,
                      CLOCK_MONOTONIC);
  if (rc >= 0) return static_cast<int>(rc);
  if (errno == ENOSYS) return -2;
  if (errno == EAGAIN) return 0;  // a word already differed: someone published
  if (errno == ETIMEDOUT) return -1;
  return 0;  // EINTR and friends: let the caller re-check
}

}  // namespace baton::shm
