// Shared helpers of the ros2 tests: where the PyPI ROS 2 wheels live (.venv-ros, made by
// scripts/install-ros-wheels.sh), a skip when they are missing, whether a pointer lies in
// baton's shared memory.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "shm_mapping.hpp"  // in_baton_mapping

namespace baton::ros2::test {

// <repo>/.venv-ros, or $BATON_ROS_VENV when set.
inline std::filesystem::path ros_venv() {
  if (const char* v = std::getenv("BATON_ROS_VENV")) return v;
  return std::filesystem::path(BATON_SOURCE_DIR) / ".venv-ros";
}

// The error_code overloads: an unreadable venv (wrong owner, a mount gone) skips the test with the
// message below instead of throwing out of SetUp.
inline bool have_ros_venv() {
  std::error_code ec;
  return std::filesystem::exists(ros_venv() / "bin" / "python", ec) &&
         std::filesystem::is_directory(ros_venv() / "share" / "std_msgs", ec);
}

// This suite's ROS_DOMAIN_ID: `base` + $BATON_TEST_DOMAIN_SHIFT (default 0), so two checkouts can
// run the DDS tests at the same time (or beside a benchmark) without their peers meeting.
inline uint32_t domain_id(uint32_t base) {
  const char* shift = std::getenv("BATON_TEST_DOMAIN_SHIFT");
  return base + (shift != nullptr ? static_cast<uint32_t>(std::strtoul(shift, nullptr, 10)) : 0u);
}
inline std::string domain_id_str(uint32_t base) { return std::to_string(domain_id(base)); }

// $name, or `fallback` when it is unset (the parameters of a test's child processes).
inline std::string getenv_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// Lower-case hex of `bytes` (hashes, GUIDs), as Python's bytes.hex().
inline std::string hex(std::span<const uint8_t> bytes) {
  std::string out;
  char buf[3];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}

// The "<name> <hex>" lines of a peer's output (rmw_serialize dumps), in order; other lines are
// skipped.
inline std::vector<std::pair<std::string, std::vector<uint8_t>>> serialized_lines(
    const std::string& text) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name, digits, more;
    if (!(fields >> name >> digits) || (fields >> more) || digits.size() % 2 != 0 ||
        digits.find_first_not_of("0123456789abcdef") != std::string::npos)
      continue;
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < digits.size(); i += 2)
      bytes.push_back(static_cast<uint8_t>(std::stoi(digits.substr(i, 2), nullptr, 16)));
    out.emplace_back(name, std::move(bytes));
  }
  return out;
}

}  // namespace baton::ros2::test

#define BATON_REQUIRE_ROS_VENV()                                                     \
  do {                                                                               \
    if (!::baton::ros2::test::have_ros_venv())                                       \
      GTEST_SKIP() << "ROS 2 wheels missing at " << ::baton::ros2::test::ros_venv()  \
                   << ": run scripts/install-ros-wheels.sh (or set BATON_ROS_VENV)"; \
  } while (0)

// Skips a test of the DDS wire in a build without CycloneDDS.
#if BATON_HAVE_CYCLONEDDS
#define BATON_REQUIRE_CYCLONEDDS() \
  do {                             \
  } while (0)
#else
#define BATON_REQUIRE_CYCLONEDDS() \
  GTEST_SKIP() << "built without CycloneDDS (apt install cyclonedds-dev)"
#endif
