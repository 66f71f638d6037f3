// Fixture of the tests that run real rclpy processes on rmw_baton_cpp (LD_PRELOAD +
// RMW_IMPLEMENTATION) and on the wheels' own rmw_fastrtps_cpp: each test gets its own
// BATON_NAMESPACE (its segments are removed afterwards), each suite its own ROS_DOMAIN_ID, and
// discovery stays on this host (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST).
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "baton/shm/naming.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2::test {

inline std::filesystem::path rmw_library() { return BATON_RMW_LIB; }

// What rclpy_native_peer.py's `graph` query prints about rclpy_rmw_peer.py's `graph_target`
// (node /graph_ns/target: publisher /graph_pub String, subscription /graph_sub Image) once it sees
// it whole, whichever RMW each side runs on.
inline const std::vector<std::string>& graph_target_lines() {
  static const std::vector<std::string> lines = {
      "node /graph_ns target\n",
      "topic /graph_pub std_msgs/msg/String\n",
      "topic /graph_sub sensor_msgs/msg/Image\n",
      "count_publishers /graph_pub 1\n",
      "count_subscribers /graph_sub 1\n",
      "by_node_publishers /graph_pub std_msgs/msg/String\n",
      "by_node_subscribers /graph_sub sensor_msgs/msg/Image\n",
  };
  return lines;
}

}  // namespace baton::ros2::test

#define BATON_REQUIRE_RMW_BATON()                                                             \
  do {                                                                                        \
    BATON_REQUIRE_ROS_VENV();                                                                 \
    const auto lib = ::baton::ros2::test::rmw_library();                                      \
    if (lib.empty() || !std::filesystem::exists(lib))                                         \
      GTEST_SKIP() << "librmw_baton_cpp.so was not built (configure with .venv-ros present: " \
                      "scripts/install-ros-wheels.sh, then re-run cmake)";                    \
  } while (0)

namespace baton::ros2::test {

// How often `needle` occurs in `text` (overlaps counted): "served q3" lines in a peer's output.
inline size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

class RmwPeers : public ::testing::Test {
 protected:
  explicit RmwPeers(std::string domain_id) : domain_id_(std::move(domain_id)) {}

  void SetUp() override {
    BATON_REQUIRE_RMW_BATON();
    namespace_ = "rmw_test_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    peers_.clear();  // stops the peers first
    remove_segments();
  }

  // An rclpy peer (tests/ros2/<script>) on rmw_baton_cpp in this test's baton namespace.
  // `extra` may override ROS_DOMAIN_ID / ROS_AUTOMATIC_DISCOVERY_RANGE / BATON_NAMESPACE.
  RclpyProcess& on_baton(const std::vector<std::string>& args,
                         const std::string& script = "rclpy_rmw_peer.py", Env extra = {}) {
    // Under ASan (scripts/sanitize.sh) its runtime must come first; Python's own allocations are
    // not instrumented, so leak checking in the child is off (it would report CPython's).
    const std::string asan = BATON_ASAN_RUNTIME;
    extra["LD_PRELOAD"] =
        asan.empty() ? rmw_library().string() : asan + " " + rmw_library().string();
    if (!asan.empty()) {
      const char* outer = std::getenv("ASAN_OPTIONS");
      extra["ASAN_OPTIONS"] = std::string(outer != nullptr ? outer : "") + ":detect_leaks=0";
    }
    extra["RMW_IMPLEMENTATION"] = "rmw_baton_cpp";
    extra.try_emplace("BATON_NAMESPACE", namespace_);  // another one: "<namespace_>-<x>" is cleaned
    return start(script, args, extra);
  }
  // Runs `peer` to its end (120 s at most); its exit code (-1 and a failure if it did not end).
  static int finished(RclpyProcess& peer) {
    int code = -1;
    EXPECT_TRUE(peer.wait_exit(std::chrono::seconds(120), &code)) << peer.output();
    return code;
  }
  // Lets an rclpy_rmw_peer.py "svc_call" peer send its requests: once it has found the service
  // ("available") and the server has seen a client arrive after the first `server_mark` bytes of
  // its output (`server`, a "svc_server" peer: a "clients N" line with N > 0; null when the
  // server is shared-memory only). DDS matches each side on its own, and a request reaching a
  // reader that has not matched its writer yet is lost.
  static void start_calls(RclpyProcess& caller, RclpyProcess* server, size_t server_mark = 0) {
    ASSERT_TRUE(caller.wait_for_output("available", std::chrono::seconds(60))) << caller.output();
    auto client_arrived = [server_mark](const std::string& out) {
      std::istringstream lines(out.size() > server_mark ? out.substr(server_mark) : "");
      for (std::string line; std::getline(lines, line);)
        if (line.rfind("clients ", 0) == 0 && line != "clients 0") return true;
      return false;
    };
    if (server != nullptr) {
      ASSERT_TRUE(server->wait_for_output_where(client_arrived, std::chrono::seconds(60)))
          << server->output();
    }
    ASSERT_TRUE(caller.send_line("go"));
  }
  // An rclpy peer on the wheels' own rmw_fastrtps_cpp.
  RclpyProcess& on_fast_dds(const std::vector<std::string>& args,
                            const std::string& script = "rclpy_rmw_peer.py") {
    return start(script, args, {{"LD_PRELOAD", ""}, {"RMW_IMPLEMENTATION", ""}});
  }
  RclpyProcess& start(const std::string& script, const std::vector<std::string>& args, Env env) {
    env.try_emplace("ROS_DOMAIN_ID", domain_id_);
    env.try_emplace("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    peers_.push_back(std::make_unique<RclpyProcess>(script, args, env));
    return *peers_.back();
  }
  // This test's segments in /dev/shm: its namespace and the per-domain ones derived from it
  // ("<ns>-d<N>...", see src/ros2/rmw/domain.hpp).
  std::vector<std::string> segments() const {
    const std::string prefix =
        "baton." + std::to_string(::getuid()) + "." + shm::escape_name(namespace_);
    std::vector<std::string> out;
    if (DIR* d = ::opendir("/dev/shm")) {
      while (dirent* e = ::readdir(d)) {
        const std::string_view name(e->d_name);
        if (name.starts_with(prefix + ".") || name.starts_with(prefix + "-"))
          out.emplace_back(name);
      }
      ::closedir(d);
    }
    return out;
  }
  void remove_segments() {
    for (const auto& name : segments())
      std::filesystem::remove(std::filesystem::path("/dev/shm") / name);
  }

  std::string domain_id_;
  std::string namespace_;
  std::vector<std::unique_ptr<RclpyProcess>> peers_;
};

}  // namespace baton::ros2::test
