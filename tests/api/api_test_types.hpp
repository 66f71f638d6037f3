// Message and service types shared by the API tests (one definition, so no ODR clash).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
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

// Runs `body` in a forked child and returns its pid; the child exits with body's return value
// (never returning into the test framework). The caller must have no other thread (the fork
// guard, fork_guard.hpp, fails the test otherwise): the fixtures that fork run their contexts
// without a janitor thread.
inline pid_t run_in_child(const std::function<int()>& body) {
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
