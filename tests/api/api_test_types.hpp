// Message and service types shared by the API tests (one definition, so no ODR clash).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <thread>

#include "baton/baton.hpp"

struct Tick {
  std::uint64_t value;
};
BATON_MESSAGE(Tick, "test/msg/Tick");

struct AddTwoInts {
  struct Request {
    std::int64_t a, b;
  };
  struct Response {
    std::int64_t sum;
  };
};
BATON_SERVICE(AddTwoInts, "example_interfaces/srv/AddTwoInts");

namespace baton::testing {

// Threads of this process (entries of /proc/self/task).
inline std::size_t thread_count() {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)e;
    ++n;
  }
  return n;
}

// Runs `body` in a forked child and returns its pid; the child exits with body's return value
// (never returning into the test framework). The caller must have no other thread: fork()
// copies only the calling thread, so a lock another one holds at that moment stays held in the
// child for good. Under ASan (GCC 12) the allocator's lock did: a context's janitor thread
// allocating as the test forked left a child blocked in its first malloc, about one run in 30
// (ServiceTest.max_clients_in_four_processes...). A test that forks with threads fails here,
// every time, instead of hanging now and then; its fixture's context runs no janitor.
inline pid_t run_in_child(const std::function<int()>& body) {
  EXPECT_EQ(thread_count(), 1u) << "run_in_child: fork from a process with other threads";
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  return pid;
}

// Waits for `pid` up to `timeout` (a "must not hang" guard); returns its exit code, or -1 if it
// did not exit normally in time (then it is killed).
inline int wait_child(pid_t pid, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

}  // namespace baton::testing
