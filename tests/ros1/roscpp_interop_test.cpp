// ros1::Node with stock roscpp peers (tests/ros1/roscpp_peer.cpp, built against Debian's
// libroscpp): std_msgs/String both ways, exactly once and in order, over TCPROS.
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using test::GUARD;
using test::numbered;
using test::string_value;
using test::Strings;

class Ros1Roscpp : public test::Ros1Graph {
 protected:
  void SetUp() override {
    if (std::string(BATON_ROSCPP_PEER).empty())
      GTEST_FAIL() << "the roscpp peer was not built: libroscpp-dev / libstd-msgs-dev are missing "
                      "(scripts/install-ros1.sh), then reconfigure";
    test::Ros1Graph::SetUp();
  }
  std::unique_ptr<test::Child> peer(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BATON_ROSCPP_PEER};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<test::Child>(argv, core_->env());
  }
};

TEST_F(Ros1Roscpp, roscpp_listener_gets_baton_strings_exactly_once_in_order) {
  auto n = node("baton_talker_for_roscpp");
  PublisherOptions po;
  po.queue_size = 1000;  // the loop below outruns the socket
  auto pub = n->advertise(topic_, "std_msgs/String", po);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto listener = peer({"string-listener", topic_});
  ASSERT_TRUE((*pub)->wait_for_tcpros_subscribers(1, GUARD)) << listener->output();
  auto expected = numbered(200);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_EQ(*(*pub)->publish(string_value(m)), 1u);
  EXPECT_EQ(listener->wait(), 0) << listener->output();
  EXPECT_EQ(listener_lines(*listener), expected);
  EXPECT_EQ((*pub)->wire().stats().dropped, 0u);
}

TEST_F(Ros1Roscpp, baton_subscription_gets_roscpp_strings_exactly_once_in_order) {
  auto n = node("baton_listener_for_roscpp");
  Strings strings;
  strings.type = *n->types().message("std_msgs/String");
  auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(sub) << sub.error().detail;
  auto talker = peer({"string-talker", topic_, "200"});
  ASSERT_TRUE(strings.wait_for("end")) << talker->output();
  sub->reset();  // the talker exits once its subscriber has gone
  EXPECT_EQ(talker->wait(), 0) << talker->output();
  auto expected = numbered(200);
  expected.push_back("end");
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
  EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "TCPROS"));
  EXPECT_EQ(strings.sources.front().rfind("/roscpp_talker_", 0), 0u) << strings.sources.front();
}

}  // namespace
}  // namespace baton::ros1
