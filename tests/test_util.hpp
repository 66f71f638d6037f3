// Shared helpers for tests: unique names so parallel and repeated runs never collide.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace baton::testing {

// The running test's suite and name; "child_role" for both in a child role (child_roles.hpp),
// where no test runs. Fixtures that name topics after their test use these, so a child role may
// share the fixture.
inline std::string current_test_suite() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? info->test_suite_name() : "child_role";
}
inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? info->name() : "child_role";
}

inline std::string unique_name(const std::string& stem) {
  static std::atomic<int> counter{0};
  return "/test/" + stem + "/" + current_test_name() + "/" + std::to_string(::getpid()) + "/" +
         std::to_string(counter.fetch_add(1));
}

// Polls `cond` every millisecond until it holds or `guard` has passed; returns true as soon as
// one evaluation held (not a fresh one after it: a count that was reached and then moved on must
// not read as never reached), false if none did. The guard only keeps a broken build from
// hanging: it is never a timing assertion, so make it generous.
template <typename F>
bool eventually(F cond, std::chrono::milliseconds guard) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  for (;;) {
    const bool last_chance = std::chrono::steady_clock::now() >= deadline;
    if (cond()) return true;
    if (last_chance) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace baton::testing
