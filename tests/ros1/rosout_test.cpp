// A node's /rosout (src/ros1/rosout.hpp): its lines reach roscore's rosout node with its name,
// level and topics, none when NodeOptions::rosout is off, and a burst larger than the queue
// loses its oldest lines with a warning that counts them.
#include "../../src/ros1/rosout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "baton/ros1/node.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using baton::testing::eventually;
using test::GUARD;
using test::Strings;

using Ros1Rosout = test::Ros1Graph;

// /rosout: a baton node's lines reach roscore's rosout node, which republishes them on /rosout_agg
// (what rqt_console reads), with the node's name, the level's constant (Log.INFO 2, WARN 4,
// ERROR 8) and the node's topics; lines below rosout_level stay off; the node's own lines (a
// refused subscriber) go there too.
TEST_F(Ros1Rosout, log_lines_reach_rosout_agg_through_roscore_s_rosout) {
  auto listener = core_->peer({"rosout-listener", "/rosout_agg"});
  ASSERT_TRUE(listener->listening()) << listener->output();
  auto n = node("baton_logger");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub) << pub.error().detail;
  // rosout connects to the node's /rosout after the node registered it; until then a line goes to
  // nobody, as a roscpp node's does. Log one every 100 ms until one arrives.
  const auto deadline = std::chrono::steady_clock::now() + GUARD;
  do {
    n->log(LogLevel::Info, "hello rosout");
  } while (!listener->wait_for_output("hello rosout", std::chrono::milliseconds(100)) &&
           std::chrono::steady_clock::now() < deadline);
  const std::string topics = " | " + topic_ + " /rosout";
  ASSERT_TRUE(listener->output_has("log 2 /baton_logger hello rosout" + topics))
      << listener->output();
  n->log(LogLevel::Debug, "below the level");
  n->log(LogLevel::Warn, "a warning");
  n->log(LogLevel::Error, "an error");
  ASSERT_TRUE(listener->wait_for_output("an error", GUARD)) << listener->output();
  EXPECT_TRUE(listener->output_has("log 4 /baton_logger a warning" + topics)) << listener->output();
  EXPECT_TRUE(listener->output_has("log 8 /baton_logger an error" + topics)) << listener->output();
  EXPECT_FALSE(listener->output_has("below the level")) << listener->output();  // sent in order
  // The node's own: a subscriber with the wrong type is refused with a logged error.
  auto other = node("baton_ints_for_rosout");
  Strings ignored;
  auto sub = other->subscribe(topic_, "std_msgs/Int32", ignored.sink());
  ASSERT_TRUE(sub);
  EXPECT_TRUE(listener->wait_for_output(
      "log 8 /baton_logger TCPROS " + topic_ + ": refused subscriber /baton_ints_for_rosout",
      GUARD))
      << listener->output();
}

TEST_F(Ros1Rosout, a_node_with_rosout_off_does_not_publish_it) {
  NodeOptions o = options();
  o.rosout = false;
  auto n = node("baton_silent", o);
  auto on = node("baton_talkative");
  auto state = n->master().get_system_state();
  ASSERT_TRUE(state) << state.error().detail;
  std::vector<std::string> rosout_publishers;
  for (const auto& [topic, nodes] : state->publishers)
    if (topic == "/rosout") rosout_publishers = nodes;
  EXPECT_EQ(std::count(rosout_publishers.begin(), rosout_publishers.end(), "/baton_silent"), 0);
  EXPECT_EQ(std::count(rosout_publishers.begin(), rosout_publishers.end(), "/baton_talkative"), 1);
}

// More lines than Rosout queues, pushed before its thread starts (as a node's lines wait for its
// creation): the three oldest go, and the first line sent says so. The
// publisher's own TCPROS queue has room for all, so only Rosout's can drop.
TEST_F(Ros1Rosout, a_burst_larger_than_the_queue_drops_the_oldest_lines_and_says_how_many) {
  auto listener = core_->peer({"rosout-listener", topic_});
  ASSERT_TRUE(listener->listening()) << listener->output();
  NodeOptions o = options();
  o.rosout = false;
  auto n = node("baton_burst", o);
  PublisherOptions roomy;
  roomy.queue_size = 2 * detail::Rosout::MAX_QUEUED;
  auto pub = n->advertise(topic_, "rosgraph_msgs/Log", roomy);
  ASSERT_TRUE(pub) << pub.error().detail;
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD));
  detail::Rosout rosout("/baton_burst", LogLevel::Info);
  const size_t lines = detail::Rosout::MAX_QUEUED + 3;
  for (size_t i = 0; i < lines; ++i) rosout.push(LogLevel::Info, "line " + std::to_string(i));
  rosout.start(**pub, [] { return std::vector<std::string>{}; });
  const std::string last = "log 2 /baton_burst line " + std::to_string(lines - 1) + " |";
  ASSERT_TRUE(listener->wait_for_output(last, GUARD)) << listener->output();
  rosout.stop();
  const std::string out = listener->output();
  const auto warning = out.find("log 4 /baton_burst 3 earlier lines were not sent to /rosout: " +
                                std::string("more than 1000 were waiting |"));
  ASSERT_NE(warning, std::string::npos) << out;
  EXPECT_EQ(out.find("line 2 |"), std::string::npos) << out;  // the three oldest
  const auto first_kept = out.find("log 2 /baton_burst line 3 |");
  ASSERT_NE(first_kept, std::string::npos) << out;
  EXPECT_LT(warning, first_kept);
  size_t kept = 0;  // every line of the queue arrived, once
  for (auto at = out.find("/baton_burst line "); at != std::string::npos;
       at = out.find("/baton_burst line ", at + 1))
    ++kept;
  EXPECT_EQ(kept, detail::Rosout::MAX_QUEUED);
}

}  // namespace
}  // namespace baton::ros1
