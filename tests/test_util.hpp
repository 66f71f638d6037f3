// Shared helpers for tests: unique names so parallel and repeated runs never collide.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <string>

namespace baton::testing {

inline std::string unique_name(const std::string& stem) {
  static std::atomic<int> counter{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->name()) : "none";
  return "/test/" + stem + "/" + test + "/" + std::to_string(::getpid()) + "/" +
         std::to_string(counter.fetch_add(1));
}

}  // namespace baton::testing
