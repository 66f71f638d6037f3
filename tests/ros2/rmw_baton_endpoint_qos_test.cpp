// The QoS rmw_baton_cpp lists for endpoints (rmw_get_{publishers,subscriptions}_info_by_topic, what
// `ros2 topic info -v` prints) is the QoS in effect (issue 22 item 4): durations left to the
// default are "Infinite" as on Fast DDS, not "0 nanoseconds"; SYSTEM_DEFAULT policies resolved.
// Seen from real rclpy (rclpy_qos_info_peer.py). DDS domain 87 (+ shift).
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <chrono>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string PEER = "rclpy_qos_info_peer.py";

class RmwBatonEndpointQos : public test::RmwPeers {
 protected:
  RmwBatonEndpointQos() : RmwPeers(test::domain_id_str(87)) {}
};

// The lines of `text` that contain `part`.
std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(part) != std::string::npos) out.push_back(line);
  return out;
}

TEST_F(RmwBatonEndpointQos, endpoint_info_shows_the_qos_in_effect) {
  auto& peer = on_baton({"/qos_info"}, PEER);
  EXPECT_EQ(finished(peer), 0) << peer.output();
  const std::string expected =
      "default Reliability: RELIABLE\n"
      "default History (Depth): KEEP_LAST (10)\n"
      "default Durability: VOLATILE\n"
      "default Lifespan: Infinite\n"
      "default Deadline: Infinite\n"
      "default Liveliness: AUTOMATIC\n"
      "default Liveliness lease duration: Infinite\n"
      // Every policy left to the middleware: DDS's defaults (depth 1), as map_qos applies them.
      "system Reliability: RELIABLE\n"
      "system History (Depth): KEEP_LAST (1)\n"
      "system Durability: VOLATILE\n"
      "system Lifespan: Infinite\n"
      "system Deadline: Infinite\n"
      "system Liveliness: AUTOMATIC\n"
      "system Liveliness lease duration: Infinite\n"
      "custom Reliability: BEST_EFFORT\n"
      "custom History (Depth): KEEP_LAST (3)\n"
      "custom Durability: TRANSIENT_LOCAL\n"
      "custom Lifespan: Infinite\n"
      "custom Deadline: Infinite\n"
      "custom Liveliness: AUTOMATIC\n"
      "custom Liveliness lease duration: Infinite\n";
  EXPECT_EQ(peer.output(), expected);
}

// Fast DDS lists the same durations and liveliness for the same endpoints. (Not its history,
// which its graph does not carry: "UNKNOWN"; nor its SYSTEM_DEFAULT durability: Fast DDS writers
// default to TRANSIENT_LOCAL, DDS and rmw_baton_cpp to VOLATILE.)
TEST_F(RmwBatonEndpointQos, durations_and_liveliness_match_fast_dds) {
  // Topics of their own: each would list the other's endpoints too (the wire is on).
  auto& baton = on_baton({"/qos_info_baton"}, PEER);
  auto& fast = on_fast_dds({"/qos_info_fast_dds"}, PEER);
  ASSERT_EQ(finished(baton), 0) << baton.output();
  ASSERT_EQ(finished(fast), 0) << fast.output();
  // Three endpoints: a line each, two for "Liveliness" (the kind and the lease duration).
  for (const auto& [policy, lines] :
       {std::pair<const char*, size_t>{"Lifespan", 3}, {"Deadline", 3}, {"Liveliness", 6}}) {
    const auto ours = lines_with(baton.output(), policy);
    EXPECT_EQ(ours.size(), lines) << baton.output();
    EXPECT_EQ(ours, lines_with(fast.output(), policy)) << baton.output() << fast.output();
  }
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
