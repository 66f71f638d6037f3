// Deadline and liveliness events on rmw_baton_cpp seen from the real rclpy of the PyPI wheels
// (rclpy_qos_clock_peer.py): rclpy's deadline callbacks fire for a publisher and a subscription
// that stay idle (the executor's rmw_wait wakes when the deadline is due), and a subscription in
// one process sees a publisher in another lose and regain its manual liveliness (the lease and
// the last assertion shared through the publisher's slot in the topic directory), while the
// publisher's own liveliness-lost callback counts each lapse. These tests let time pass: they wait
// for the printed events and check their counts, never how long they took.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <chrono>
#include <regex>
#include <string>

#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string PEER = "rclpy_qos_clock_peer.py";

class RmwBatonRclpyQosClock : public test::RmwPeers {
 protected:
  RmwBatonRclpyQosClock() : RmwPeers(test::domain_id_str(98)) {}
};

TEST_F(RmwBatonRclpyQosClock, deadline_callbacks_fire_for_an_idle_publisher_and_subscription) {
  auto& peer = on_baton({"deadline_idle", "/clock_idle", "120"}, PEER);
  EXPECT_EQ(finished(peer), 0) << peer.output();
  const std::string out = peer.output();
  // Each callback reports the misses since the last one (more than one if the executor was late)
  // on top of the total before.
  for (const std::string kind : {"offered", "requested"}) {
    const std::regex re(kind + R"( total=(\d+) change=(\d+))");
    long total = 0;
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it) {
      const long now = std::stol((*it)[1]), change = std::stol((*it)[2]);
      EXPECT_GE(change, 1) << out;
      EXPECT_EQ(now, total + change) << out;
      total = now;
    }
    EXPECT_GE(total, 3) << kind << "\n" << out;
  }
}

TEST_F(RmwBatonRclpyQosClock, a_subscription_sees_another_process_lose_and_regain_liveliness) {
  auto& listener = on_baton({"lease_listen", "/clock_lease", "120"}, PEER);
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"lease_talk", "/clock_lease", "120"}, PEER);
  ASSERT_TRUE(talker.wait_for_output("matched", 60s)) << talker.output();
  // Asserting every 100 ms under a 2 s lease: alive.
  ASSERT_TRUE(listener.wait_for_output("changed alive=1 not_alive=0 alive_change=1", 60s))
      << listener.output();
  ASSERT_TRUE(talker.send_line("stop"));
  ASSERT_TRUE(talker.wait_for_output("lost total=1 change=1", 60s)) << talker.output();
  ASSERT_TRUE(listener.wait_for_output(
      "changed alive=0 not_alive=1 alive_change=-1 not_alive_change=1", 60s))
      << listener.output();
  ASSERT_TRUE(talker.send_line("run"));
  ASSERT_TRUE(listener.wait_for_output(
      "changed alive=1 not_alive=0 alive_change=1 not_alive_change=-1", 60s))
      << listener.output();
  ASSERT_TRUE(talker.send_line("stop"));
  ASSERT_TRUE(talker.wait_for_output("lost total=2 change=1", 60s)) << talker.output();
  const std::string lapse = "changed alive=0 not_alive=1 alive_change=-1 not_alive_change=1";
  ASSERT_TRUE(listener.wait_for_output_where(
      [&](const std::string& out) { return test::count_of(out, lapse) == 2; }, 60s))
      << listener.output();
  ASSERT_TRUE(talker.send_line("end"));
  EXPECT_EQ(finished(talker), 0) << talker.output();
  // The publisher left while not alive: the listener counts it out, and exits.
  EXPECT_EQ(finished(listener), 0) << listener.output();
  EXPECT_NE(listener.output().find("changed alive=0 not_alive=0 alive_change=0 "
                                   "not_alive_change=-1"),
            std::string::npos)
      << listener.output();
}

}  // namespace
}  // namespace baton::ros2
#endif  // BATON_HAVE_RMW_HEADERS
