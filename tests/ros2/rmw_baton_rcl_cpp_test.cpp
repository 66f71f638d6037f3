// C++ programs on rcl with C++ messages (what rclcpp does underneath: rosidl_typesupport_cpp type
// supports) on rmw_baton_cpp: baton-rcl-cpp-peer (rcl_cpp_peer.cpp), built against the ROS 2
// wheels, run as separate processes with the wheels' libraries on LD_LIBRARY_PATH, libpython and
// rmw_baton_cpp preloaded. Pub/sub of std_msgs/String, a 4K sensor_msgs/Image and messages with
// nested, bounded and fixed arrays and a bool sequence, exactly once and equal; a service; C++ and
// rclpy on one topic; C++ on baton and C++ on the wheels' rmw_fastrtps_cpp over DDS; rmw_serialize
// against Fast DDS's; rcl loans of a fixed-size type, in place. Each test has its own
// BATON_NAMESPACE, the suite its own ROS_DOMAIN_ID, discovery on this host only (test::RmwPeers).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "image_4k.hpp"
#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string DOMAIN_ID = test::domain_id_str(95);  // this suite's ROS_DOMAIN_ID

class RmwBatonRclCpp : public test::RmwPeers {
 protected:
  RmwBatonRclCpp() : RmwPeers(DOMAIN_ID) {}

  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (std::string_view(BATON_RCL_CPP_PEER).empty() ||
        !std::filesystem::exists(BATON_RCL_CPP_PEER))
      GTEST_FAIL() << "baton-rcl-cpp-peer was not built (needs the ROS 2 wheels' rcl)";
    registry_.add_share_root(test::ros_venv() / "share");
  }

  // baton-rcl-cpp-peer `args` on rmw_baton_cpp (in this test's baton namespace) or on the
  // wheels' own rmw_fastrtps_cpp. The environment a C++ rcl program needs with the wheels: their
  // library folders (.venv-ros/lib and the *.libs folders of the Python packages, which carry
  // no RPATH) and libpython (the wheels leave its symbols to the process).
  test::RclpyProcess& cpp_peer(const std::vector<std::string>& args, bool on_baton) {
    const auto venv = test::ros_venv();
    // The fixed-size bench messages first (rosidl_typesupport_cpp's dispatcher finds their type
    // supports on LD_LIBRARY_PATH), then the wheels'.
    std::string libs = std::string(BATON_ROS2_MSGS_LIB) + ":" + (venv / "lib").string();
    for (const auto& e :
         std::filesystem::directory_iterator(venv / "lib" / "python3.11" / "site-packages"))
      if (e.is_directory() && e.path().extension() == ".libs") libs += ":" + e.path().string();
    test::Env env{{"LD_LIBRARY_PATH", libs}};
    const std::string asan = BATON_ASAN_RUNTIME;  // first, under ASan (scripts/sanitize.sh)
    std::string preload = (asan.empty() ? "" : asan + " ") + BATON_LIBPYTHON;
    if (on_baton) {
      preload += " " + test::rmw_library().string();
      env["RMW_IMPLEMENTATION"] = "rmw_baton_cpp";
      env["BATON_NAMESPACE"] = namespace_;
    } else {
      env["RMW_IMPLEMENTATION"] = "";
    }
    env["LD_PRELOAD"] = preload;
    env["ROS_DOMAIN_ID"] = domain_id_;
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST";
    std::vector<std::string> argv = {BATON_RCL_CPP_PEER};
    argv.insert(argv.end(), args.begin(), args.end());
    peers_.push_back(std::make_unique<test::RclpyProcess>(test::RclpyProcess::Command{argv}, env));
    return *peers_.back();
  }

  // A listener (started first, "ready") and a talker of `count` samples of `kind` on `topic`,
  // which starts once both ends have matched each other (DDS discovers each direction on its
  // own: the talker waits for its subscription, then for a line on its stdin, which the test
  // sends when the listener says "matched"); the listener's output once both have ended.
  std::string talk_and_listen(const std::string& kind, const std::string& topic, int count,
                              bool talker_on_baton, bool listener_on_baton, int hz = 0) {
    auto& listener =
        cpp_peer({"listen", kind, topic, std::to_string(count), "90"}, listener_on_baton);
    EXPECT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
    auto& talker =
        cpp_peer({"talk", kind, topic, std::to_string(count), std::to_string(hz), "90", "gated"},
                 talker_on_baton);
    EXPECT_TRUE(listener.wait_for_output("matched", 60s)) << listener.output();
    EXPECT_TRUE(talker.send_line("go"));
    // Its verdict is its output; 1 is a listener that missed a sample (a stream may), anything
    // else a crash or a sanitizer report (exit code 66 under scripts/sanitize.sh).
    const int code = finished(listener);
    EXPECT_TRUE(code == 0 || code == 1) << code << listener.output();
    EXPECT_EQ(finished(talker), 0) << talker.output();
    return listener.output();
  }

  // The indices a listener printed as "got <i> equal", each once (a duplicate fails).
  static std::set<int> intact(const std::string& out) {
    std::set<int> seen;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("got ", 0) != 0 || line.find(" equal") == std::string::npos) continue;
      EXPECT_TRUE(seen.insert(std::stoi(line.substr(4))).second) << "duplicate: " << line;
    }
    return seen;
  }
  static std::string all_of(int count) {
    return "summary distinct=" + std::to_string(count) + " duplicates=0 different=0\n";
  }

  TypeRegistry registry_;  // the wheels' .msg files
};

// The peer refuses a kind it does not know (and so would report a mistyped test at once).
TEST_F(RmwBatonRclCpp, unknown_kind_is_refused_with_usage) {
  auto& peer = cpp_peer({"listen", "no_such_kind", "/x", "1", "1"}, true);
  EXPECT_EQ(finished(peer), 64) << peer.output();
  EXPECT_NE(peer.output().find("usage:"), std::string::npos);
}

TEST_F(RmwBatonRclCpp, string_messages_arrive_exactly_once_and_equal) {
  const std::string out = talk_and_listen("string", "/cpp_string", 20, true, true);
  EXPECT_NE(out.find(all_of(20)), std::string::npos) << out;
  EXPECT_EQ(intact(out).size(), 20u) << out;
}

// Every layout rule of the C++ introspection type support in one run: std::vector<bool> and every
// other sequence kind inside nested sequences (ParameterEvent), std::array (CameraInfo),
// BoundedVector (ParameterDescriptor), std::array<uint8_t, 16> in nested sequences and bounded
// strings (ParticipantEntitiesInfo).
TEST_F(RmwBatonRclCpp, nested_bounded_fixed_and_bool_arrays_arrive_exactly_once_and_equal) {
  const std::vector<std::string> kinds = {"event", "camera_info", "descriptor", "participant"};
  std::vector<test::RclpyProcess*> listeners;
  for (const auto& kind : kinds) {
    listeners.push_back(&cpp_peer({"listen", kind, "/cpp_" + kind, "10", "90"}, true));
    ASSERT_TRUE(listeners.back()->wait_for_output("ready", 60s)) << listeners.back()->output();
  }
  std::vector<test::RclpyProcess*> talkers;
  for (const auto& kind : kinds)
    talkers.push_back(&cpp_peer({"talk", kind, "/cpp_" + kind, "10", "0", "90"}, true));
  for (size_t k = 0; k < kinds.size(); ++k) {
    SCOPED_TRACE(kinds[k]);
    EXPECT_EQ(finished(*listeners[k]), 0) << listeners[k]->output();
    EXPECT_NE(listeners[k]->output().find(all_of(10)), std::string::npos);
    EXPECT_EQ(finished(*talkers[k]), 0) << talkers[k]->output();
  }
}

TEST_F(RmwBatonRclCpp, image_4k_arrives_exactly_once_with_every_byte_equal) {
  const std::string out = talk_and_listen("image4k", "/cpp_image", 3, true, true);
  EXPECT_NE(out.find(all_of(3)), std::string::npos) << out;
}

// rcl's loans of a fixed-size C++ type (baton_bench_msgs/Fixed4k, a 4K rgb8 frame's bytes), as
// rclcpp's borrow_loaned_message() and loaned takes use them, between two processes: every loan
// arrives once with every byte equal, and the taken loan lies in baton's shared memory (the
// listener checks its own mappings), not in a copy.
TEST_F(RmwBatonRclCpp, fixed_size_loans_cross_processes_in_place_with_every_byte_equal) {
  constexpr int kCount = 3;
  const std::string topic = "/rcl_cpp_loans";
  auto& listener = cpp_peer({"loan_listen", topic, std::to_string(kCount), "90"}, true);
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = cpp_peer({"loan_talk", topic, std::to_string(kCount), "90"}, true);
  ASSERT_TRUE(talker.wait_for_output("ready", 60s)) << talker.output();
  ASSERT_TRUE(listener.wait_for_output("matched", 60s)) << listener.output();
  ASSERT_TRUE(talker.send_line("go"));
  EXPECT_EQ(finished(listener), 0) << listener.output();
  EXPECT_EQ(finished(talker), 0) << talker.output();
  for (int i = 0; i < kCount; ++i)
    EXPECT_NE(listener.output().find("got " + std::to_string(i) + " equal shm\n"),
              std::string::npos)
        << listener.output();
  EXPECT_NE(listener.output().find("summary distinct=3 duplicates=0 bad=0"), std::string::npos)
      << listener.output();
}

TEST_F(RmwBatonRclCpp, service_answers_each_request_of_a_cpp_client) {
  auto& server = cpp_peer({"serve", "/cpp_svc/set", "90"}, true);
  ASSERT_TRUE(server.wait_for_output("ready", 60s)) << server.output();
  auto& client = cpp_peer({"call", "/cpp_svc/set", "8", "60"}, true);
  EXPECT_EQ(finished(client), 0) << client.output() << server.output();
  EXPECT_NE(client.output().find("summary replies=8 ok=8"), std::string::npos) << client.output();
  EXPECT_EQ(test::count_of(server.output(), "served "), 8u) << server.output();
}

// rclpy (C type supports) and C++ (C++ type supports) on one topic, both directions, for a String
// and a ParameterEvent (bool[] and the other sequences inside nested sequences).
TEST_F(RmwBatonRclCpp, cpp_and_rclpy_on_baton_share_a_topic_both_ways) {
  for (const std::string kind : {"string", "event"}) {
    SCOPED_TRACE(kind);
    const std::string to_rclpy = "/cpp_to_rclpy_" + kind, to_cpp = "/rclpy_to_cpp_" + kind;
    auto& py_listener =
        on_baton({"listen", kind, to_rclpy, "10", "90"}, "rclpy_cpp_interop_peer.py");
    auto& cpp_listener = cpp_peer({"listen", kind, to_cpp, "10", "90"}, true);
    ASSERT_TRUE(py_listener.wait_for_output("ready", 60s)) << py_listener.output();
    ASSERT_TRUE(cpp_listener.wait_for_output("ready", 60s)) << cpp_listener.output();
    auto& cpp_talker = cpp_peer({"talk", kind, to_rclpy, "10", "0", "90"}, true);
    auto& py_talker = on_baton({"talk", kind, to_cpp, "10", "90"}, "rclpy_cpp_interop_peer.py");
    EXPECT_EQ(finished(py_listener), 0) << py_listener.output() << cpp_talker.output();
    EXPECT_NE(py_listener.output().find(all_of(10)), std::string::npos);
    EXPECT_EQ(finished(cpp_listener), 0) << cpp_listener.output() << py_talker.output();
    EXPECT_NE(cpp_listener.output().find(all_of(10)), std::string::npos);
    EXPECT_EQ(finished(cpp_talker), 0) << cpp_talker.output();
    EXPECT_EQ(finished(py_talker), 0) << py_talker.output();
  }
}

// C++ on rmw_baton_cpp and C++ on rmw_fastrtps_cpp meet on DDS (different RMWs share no shared
// memory): each message once, equal, in both directions.
TEST_F(RmwBatonRclCpp, cpp_on_baton_and_cpp_on_fast_dds_meet_over_dds_both_ways) {
  BATON_REQUIRE_CYCLONEDDS();
  for (const bool baton_talks : {true, false}) {
    SCOPED_TRACE(baton_talks ? "baton -> Fast DDS" : "Fast DDS -> baton");
    const std::string topic = baton_talks ? "/cpp_wire_to_fast" : "/cpp_wire_to_baton";
    const std::string out = talk_and_listen("string", topic, 20, baton_talks, !baton_talks);
    EXPECT_NE(out.find(all_of(20)), std::string::npos) << out;
  }
}

// A 4K camera stream (issue 17's targets: 30 images at 10 Hz, reliable keep last 10, at least 29
// intact) from C++ on baton to C++ on Fast DDS and back.
TEST_F(RmwBatonRclCpp, image_4k_stream_at_10_hz_between_cpp_on_baton_and_cpp_on_fast_dds) {
  BATON_REQUIRE_CYCLONEDDS();
  for (const bool baton_talks : {true, false}) {
    SCOPED_TRACE(baton_talks ? "baton -> Fast DDS" : "Fast DDS -> baton");
    const std::string topic = baton_talks ? "/cpp_camera_to_fast" : "/cpp_camera_to_baton";
    const std::string out = talk_and_listen("image4k", topic, test::kCameraImages, baton_talks,
                                            !baton_talks, test::kCameraHz);
    EXPECT_GE(intact(out).size(), static_cast<size_t>(test::kCameraMinDelivered)) << out;
    EXPECT_EQ(out.find("DIFFERENT"), std::string::npos) << out;
  }
}

// rmw_serialize of the same C++ messages on rmw_baton_cpp and on rmw_fastrtps_cpp (Fast CDR):
// every byte of the value equal (Fast CDR leaves alignment bytes uninitialised and may return a
// longer, estimated size: those are not compared, see docs/design/ros2.md, "CDR"), baton's
// bytes canonical (zero padding: baton's Value codec encodes the same bytes), each side decodes
// its own bytes back to an equal message, and baton decodes Fast DDS's bytes to equal messages.
TEST_F(RmwBatonRclCpp, serialize_matches_rmw_fastrtps_cpp_and_decodes_its_bytes) {
  auto& fast = cpp_peer({"serialize"}, false);
  auto& ours = cpp_peer({"serialize"}, true);
  ASSERT_EQ(finished(fast), 0) << fast.output();
  ASSERT_EQ(finished(ours), 0) << ours.output();
  const auto theirs = test::serialized_lines(fast.output());
  const auto mine = test::serialized_lines(ours.output());
  ASSERT_EQ(mine.size(), 9u) << ours.output();
  ASSERT_EQ(theirs.size(), mine.size()) << fast.output();
  EXPECT_EQ(test::count_of(ours.output(), " equal\n"), mine.size()) << ours.output();
  EXPECT_EQ(test::count_of(fast.output(), " equal\n"), theirs.size()) << fast.output();
  for (size_t i = 0; i < mine.size(); ++i) {
    const auto& [name, bytes] = mine[i];
    const auto& fast_bytes = theirs[i].second;
    SCOPED_TRACE(name);
    ASSERT_EQ(theirs[i].first, name);
    // baton's bytes are canonical (the Value codec re-encodes them to the same bytes), and it
    // says which bytes are alignment padding.
    std::vector<uint8_t> padding;
    auto type = registry_.message(name);
    ASSERT_TRUE(type.has_value()) << type.error().detail;
    auto value = decode(**type, bytes);
    ASSERT_TRUE(value.has_value()) << value.error().detail;
    auto canonical = encode(**type, *value, &padding);
    ASSERT_TRUE(canonical.has_value()) << canonical.error().detail;
    EXPECT_EQ(*canonical, bytes);
    ASSERT_GE(fast_bytes.size(), bytes.size());
    size_t compared = 0;
    for (size_t k = 0; k < bytes.size(); ++k) {
      if (padding[k] != 0) continue;
      EXPECT_EQ(fast_bytes[k], bytes[k]) << "byte " << k;
      ++compared;
    }
    EXPECT_GT(compared, bytes.size() / 2);
  }
  const auto file = std::filesystem::temp_directory_path() /
                    ("baton-fast-cdr-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(file) << fast.output();
  auto& decoder = cpp_peer({"deserialize", file.string()}, true);
  const int code = finished(decoder);
  std::filesystem::remove(file);
  EXPECT_EQ(code, 0) << decoder.output();
  EXPECT_EQ(test::count_of(decoder.output(), " equal\n"), mine.size()) << decoder.output();
}

}  // namespace
}  // namespace baton::ros2
