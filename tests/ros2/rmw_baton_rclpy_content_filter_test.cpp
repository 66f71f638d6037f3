// Content filters on rmw_baton_cpp seen from the real rclpy of the PyPI wheels
// (rclpy_content_filter_peer.py): a subscription created with ContentFilterOptions receives only
// the samples its expression and parameters select, from an rclpy publisher on rmw_baton_cpp
// (shared memory) and on Fast DDS (the wire), and set_content_filter changes the selection while
// it runs.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string PEER = "rclpy_content_filter_peer.py";

class RmwBatonRclpyContentFilter : public test::RmwPeers {
 protected:
  RmwBatonRclpyContentFilter() : RmwPeers(test::domain_id_str(97)) {}

  // Every "got <n>" of the listener, in order.
  static std::vector<int> received(const std::string& out) {
    std::vector<int> got;
    const std::regex re(R"(got (-?\d+))");
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
      got.push_back(std::stoi((*it)[1]));
    return got;
  }

  // The listener (on rmw_baton_cpp) and `talker`: 10 until the listener has it (the first
  // samples of a Fast DDS writer may be lost to a reader that has not seen its heartbeat yet),
  // then 11..29, of which the creation filter (10..19) passes 11..19; then 95..105, of which the
  // filter the listener sets once it got 19 (> 100, not 102) passes 101, 103, 104, 105.
  void run(test::RclpyProcess& listener, test::RclpyProcess& talker) {
    ASSERT_TRUE(talker.wait_for_output("matched", 60s)) << talker.output();
    ASSERT_TRUE(talker.send_line("ping 10"));
    ASSERT_TRUE(listener.wait_for_output("got 10", 60s)) << listener.output();
    ASSERT_TRUE(talker.send_line("11 29"));
    ASSERT_TRUE(listener.wait_for_output("refiltered", 60s)) << listener.output();
    ASSERT_TRUE(talker.send_line("95 105"));
    // The talker stays until the listener has all: a publisher that leaves takes its unread
    // samples with it (its ring on shared memory, its history on DDS).
    EXPECT_EQ(finished(listener), 0) << listener.output() << talker.output();
    ASSERT_TRUE(talker.send_line("end"));
    EXPECT_EQ(finished(talker), 0) << talker.output();
    const std::string out = listener.output();
    EXPECT_NE(out.find("cft True"), std::string::npos) << out;
    EXPECT_NE(out.find("refiltered data > %0 AND data <> %1 100,102"), std::string::npos) << out;
    std::vector<int> got = received(out);
    while (got.size() > 1 && got[0] == 10 && got[1] == 10) got.erase(got.begin());  // the pings
    EXPECT_EQ(got, (std::vector<int>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 101, 103, 104, 105}))
        << out;
  }
};

TEST_F(RmwBatonRclpyContentFilter, only_matching_samples_of_a_shared_memory_publisher_arrive) {
  auto& listener = on_baton({"filtered_listen", "/cft_shm", "120"}, PEER);
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"burst_talk", "/cft_shm", "120"}, PEER);
  run(listener, talker);
}

TEST_F(RmwBatonRclpyContentFilter, only_matching_samples_of_a_fast_dds_publisher_arrive) {
  auto& listener = on_baton({"filtered_listen", "/cft_wire", "120"}, PEER);
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_fast_dds({"burst_talk", "/cft_wire", "120"}, PEER);
  run(listener, talker);
}

}  // namespace
}  // namespace baton::ros2
#endif  // BATON_HAVE_RMW_HEADERS
