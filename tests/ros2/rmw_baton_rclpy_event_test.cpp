// rmw_baton_cpp's QoS events and loans seen from the real rclpy of the PyPI wheels
// (rclpy_event_peer.py): rclpy's matched / message-lost callbacks on rmw_baton_cpp as a fast
// best-effort publisher process comes, laps the subscriber and leaves; and loaned geometry_msgs
// Points published through rmw_baton_cpp (called here through dlopen, as rcl would) reaching rclpy
// on rmw_baton_cpp (shared memory) and on Fast DDS (the wire). DDS domain 170.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <chrono>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "rmw_peers.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

// 170 as is, not shifted by BATON_TEST_DOMAIN_SHIFT: DDS domain ids end at 232, and 170-179 is
// this suite's own range (the other suites sit below 100 + the shift).
const std::string DOMAIN_ID = "170";
const std::string PEER = "rclpy_event_peer.py";

class RmwBatonRclpyEvents : public test::RmwPeers {
 protected:
  RmwBatonRclpyEvents() : RmwPeers(DOMAIN_ID) {}
  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped()) return;
    namespace_ = "ln_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
};

// Every "matched ..." line of the listener, as numbers: total, total_change, current, change.
std::vector<std::vector<long>> matched_lines(const std::string& out) {
  std::vector<std::vector<long>> lines;
  const std::regex re(
      R"(matched total=(\d+) total_change=(\d+) current=(\d+) current_change=(-?\d+))");
  for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
    lines.push_back(
        {std::stol((*it)[1]), std::stol((*it)[2]), std::stol((*it)[3]), std::stol((*it)[4])});
  return lines;
}

TEST_F(RmwBatonRclpyEvents, matched_and_message_lost_callbacks_count_a_lapping_publisher) {
  constexpr int N = 2000;
  auto& listener = on_baton({"event_listen", "/ev_fast", std::to_string(N), "120"}, PEER);
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"fast_talk", "/ev_fast", std::to_string(N), "120"}, PEER);
  int code = -1;
  ASSERT_TRUE(talker.wait_exit(150s, &code)) << talker.output();
  EXPECT_EQ(code, 0) << talker.output();
  ASSERT_TRUE(listener.wait_exit(150s, &code)) << listener.output();
  const std::string out = listener.output();
  EXPECT_EQ(code, 0) << out;

  // The publisher process appeared (one match, current 1) and left (current 0, still one in all).
  const auto matched = matched_lines(out);
  ASSERT_GE(matched.size(), 2u) << out;
  EXPECT_EQ(matched.front(), (std::vector<long>{1, 1, 1, 1})) << out;
  EXPECT_EQ(matched.back(), (std::vector<long>{1, 0, 0, -1})) << out;

  // Every message was either delivered or counted lost, and it did lap us.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(out, m, std::regex(R"(summary received=(\d+) lost=(\d+) last=(-?\d+))")))
      << out;
  const long received = std::stol(m[1]), lost = std::stol(m[2]), last = std::stol(m[3]);
  EXPECT_EQ(last, N - 1) << out;
  EXPECT_GT(lost, 0) << "the slow subscriber was never lapped: " << out;
  EXPECT_GT(received, 0) << out;
  EXPECT_EQ(received + lost, N) << out;
  // The lost events add up: each reports the running total and the change since the last one.
  long sum = 0, previous = 0;
  const std::regex lost_re(R"(lost total=(\d+) total_change=(\d+))");
  for (std::sregex_iterator it(out.begin(), out.end(), lost_re), end; it != end; ++it) {
    const long total = std::stol((*it)[1]), change = std::stol((*it)[2]);
    EXPECT_EQ(total, previous + change) << out;
    sum += change;
    previous = total;
  }
  EXPECT_EQ(sum, lost) << out;
}

TEST_F(RmwBatonRclpyEvents, loaned_points_reach_rclpy_on_rmw_baton_and_on_fast_dds) {
  BATON_REQUIRE_CYCLONEDDS();
  auto& on_shm = on_baton({"point_listen", "/loan_points", "3", "90"}, PEER);
  auto& on_dds = on_fast_dds({"point_listen", "/loan_points", "3", "90"}, PEER);
  ASSERT_TRUE(on_shm.wait_for_output("ready", 60s)) << on_shm.output();
  ASSERT_TRUE(on_dds.wait_for_output("ready", 60s)) << on_dds.output();

  // This process joins the peers' domain as rcl would: their BATON_NAMESPACE, ROS_DOMAIN_ID,
  // localhost discovery, the wire on.
  test::Rmw rmw;
  ASSERT_TRUE(rmw.loaded()) << ::dlerror();
  test::ScopedEnv ns("BATON_NAMESPACE", namespace_.c_str());
  test::WheelLibraryPath lib_path;
  test::WheelMessageType point("geometry_msgs", "Point");
  ASSERT_TRUE(point.loaded());
  RMW_FN(rmw, rmw_borrow_loaned_message);
  RMW_FN(rmw, rmw_publish_loaned_message);
  RMW_FN(rmw, rmw_destroy_publisher);
  {
    test::RmwContext c(rmw, "loan_talker", std::stoul(DOMAIN_ID),
                       RMW_AUTOMATIC_DISCOVERY_RANGE_LOCALHOST);
    auto* pub = test::create_publisher(rmw, c, point.type_support(), "/loan_points",
                                       test::test_qos(true, 10));
    ASSERT_NE(pub, nullptr) << test::take_error(rmw);
    ASSERT_TRUE(pub->can_loan_messages);
    // Until both have three (DDS discovery takes a while; each listener exits at three).
    for (int i = 0; i < 900 && !(on_shm.exited() && on_dds.exited()); ++i) {
      void* msg = nullptr;
      ASSERT_EQ(rmw_borrow_loaned_message(pub, point.type_support(), &msg), RMW_RET_OK)
          << test::take_error(rmw);
      const double xyz[3] = {1.5, -2.25, 1e300};
      std::memcpy(msg, xyz, sizeof xyz);
      ASSERT_EQ(rmw_publish_loaned_message(pub, msg, nullptr), RMW_RET_OK) << test::take_error(rmw);
      std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
  }
  for (auto* peer : {&on_shm, &on_dds}) {
    int code = -1;
    ASSERT_TRUE(peer->wait_exit(60s, &code)) << peer->output();
    EXPECT_EQ(code, 0) << peer->output();
    EXPECT_NE(peer->output().find("point 1.5 -2.25 1e+300\n"), std::string::npos) << peer->output();
  }
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
