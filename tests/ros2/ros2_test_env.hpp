// Shared helpers of the ros2 tests: where the PyPI ROS 2 wheels live (.venv-ros, made by
// scripts/install-ros-wheels.sh) and a skip when they are missing.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>

namespace baton::ros2::test {

// <repo>/.venv-ros, or $BATON_ROS_VENV when set.
inline std::filesystem::path ros_venv() {
  if (const char* v = std::getenv("BATON_ROS_VENV")) return v;
  return std::filesystem::path(BATON_SOURCE_DIR) / ".venv-ros";
}

inline bool have_ros_venv() {
  return std::filesystem::exists(ros_venv() / "bin" / "python") &&
         std::filesystem::is_directory(ros_venv() / "share" / "std_msgs");
}

// This suite's ROS_DOMAIN_ID: `base` + $BATON_TEST_DOMAIN_SHIFT (default 0), so two checkouts can
// run the DDS tests at the same time (or beside a benchmark) without their peers meeting.
inline uint32_t domain_id(uint32_t base) {
  const char* shift = std::getenv("BATON_TEST_DOMAIN_SHIFT");
  return base + (shift != nullptr ? static_cast<uint32_t>(std::strtoul(shift, nullptr, 10)) : 0u);
}
inline std::string domain_id_str(uint32_t base) { return std::to_string(domain_id(base)); }

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
