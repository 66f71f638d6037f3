// rclpy nodes on rmw_baton_cpp stop when asked (issue 22 item 4): a node with one service and a
// node with only a subscription (rclpy_stop_peer.py), each signalled once while it waits in
// rclpy.spin, must stop every time, with exit code 0 and none of its segments left in /dev/shm.
// SIGTERM, and SIGINT as a shell's background job gets it (SIGINT ignored at start: no
// KeyboardInterrupt, so only rclpy's signal thread ends the spin); both used to leave the node
// waiting in rmw_wait for good (src/ros2/rmw/shutdown_wake.hpp). How fast they stop (the issue's
// "within 1 s") is measured beside rmw_fastrtps_cpp in bench/suite/exp_rclpy_stop.py, not bounded
// here: a node still running HANG after its signal has hung. DDS domain 86 (+ shift).
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string PEER = "rclpy_stop_peer.py";
constexpr int TRIES = 50;
// Peers started at once: they start in parallel (most of the test's time), then are signalled
// one at a time, so each stops alone.
constexpr int BATCH = 10;
// A node that has not exited this long after its signal never will (the lost wake-up left it in
// rmw_wait for good); stopping takes ~0.1 s (BENCHMARKS.md, "rclpy nodes stopped by a signal").
constexpr auto HANG = 30s;

class RmwBatonRclpyStop : public test::RmwPeers {
 protected:
  RmwBatonRclpyStop() : RmwPeers(test::domain_id_str(86)) {}

  // This test's segments of peer namespace `ns` ("<namespace_>-<i>": each peer has its own, so
  // whatever is left is that peer's).
  std::vector<std::string> segments_of(const std::string& ns) const {
    std::vector<std::string> out;
    const std::string own = shm::escape_name(ns);
    for (const auto& name : segments()) {
      const std::string rest = name.substr(name.find('.', name.find('.') + 1) + 1);
      if (rest.starts_with(own + ".") || rest.starts_with(own + "-")) out.push_back(name);
    }
    return out;
  }

  // TRIES peers in `mode`, each sent `signal` once it is ready.
  void stops_every_time(const std::string& mode, int signal, bool sigint_ignored) {
    std::vector<std::string> args = {mode};
    if (sigint_ignored) args.push_back("--sigint-ignored");
    int stopped = 0;
    for (int first = 0; first < TRIES; first += BATCH) {
      std::vector<test::RclpyProcess*> batch;
      std::vector<std::string> names;
      for (int i = first; i < first + BATCH && i < TRIES; ++i) {
        names.push_back(namespace_ + "-" + std::to_string(i));
        batch.push_back(&on_baton(args, PEER, {{"BATON_NAMESPACE", names.back()}}));
      }
      for (auto* peer : batch) ASSERT_TRUE(peer->wait_for_output("ready", 60s)) << peer->output();
      for (size_t i = 0; i < batch.size(); ++i) {
        auto& peer = *batch[i];
        ASSERT_EQ(::kill(peer.pid(), signal), 0);
        int code = -1;
        if (!peer.wait_exit(HANG, &code)) {
          ADD_FAILURE() << names[i] << " hung: still running " << HANG.count() << " s after signal "
                        << signal << ":\n"
                        << peer.output();
          ::kill(peer.pid(), SIGKILL);  // reaped by its destructor; no 10 s SIGTERM grace
          continue;
        }
        EXPECT_EQ(code, 0) << names[i] << ":\n" << peer.output();
        EXPECT_NE(peer.output().find("stopped "), std::string::npos) << peer.output();
        EXPECT_EQ(segments_of(names[i]), std::vector<std::string>{}) << names[i];
        stopped += code == 0 ? 1 : 0;
      }
      peers_.clear();
    }
    EXPECT_EQ(stopped, TRIES);
  }
};

TEST_F(RmwBatonRclpyStop, service_node_stops_on_sigterm) {
  stops_every_time("service", SIGTERM, false);
}

TEST_F(RmwBatonRclpyStop, service_node_stops_on_sigint_as_a_background_job) {
  stops_every_time("service", SIGINT, true);
}

TEST_F(RmwBatonRclpyStop, subscription_node_stops_on_sigterm) {
  stops_every_time("subscription", SIGTERM, false);
}

TEST_F(RmwBatonRclpyStop, subscription_node_stops_on_sigint_as_a_background_job) {
  stops_every_time("subscription", SIGINT, true);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
