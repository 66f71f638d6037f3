// ros1::Node with stock roscpp peers (tests/ros1/roscpp_peer.cpp, built against Debian's
// libroscpp): std_msgs/String both ways, exactly once and in order, over TCPROS; a 4K
// sensor_msgs/Image both ways byte for byte; latched topics both ways; std_srvs/SetBool services
// both ways over persistent connections.
#include "image_exchange.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using ros2::Value;
using test::GUARD;
using test::numbered;
using test::string_value;
using test::Strings;

Value setbool_request(bool data) {
  Value v;
  v.items = {Value::of<bool>(data)};
  return v;
}

class Ros1Roscpp : public test::Ros1Graph {
 protected:
  void SetUp() override {
    if (std::string(BATON_ROSCPP_PEER).empty())
      GTEST_FAIL() << "the roscpp peer was not built: libroscpp-dev / libstd-msgs-dev / "
                      "libstd-srvs-dev / libsensor-msgs-dev are missing (scripts/install-ros1.sh), "
                      "then reconfigure";
    test::Ros1Graph::SetUp();
  }
  std::unique_ptr<test::Child> peer(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BATON_ROSCPP_PEER};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<test::Child>(argv, core_->env());
  }
  test::PeerStarter roscpp_peer() {
    return [this](const std::vector<std::string>& args) { return peer(args); };
  }
};

TEST_F(Ros1Roscpp, roscpp_listener_gets_a_4k_image_bytes_equal) {
  auto n = node("baton_camera_for_roscpp");
  test::expect_a_stock_listener_gets_a_4k_image(*n, topic_, core_->dir(), roscpp_peer());
}

TEST_F(Ros1Roscpp, baton_subscription_gets_a_roscpp_4k_image_bytes_equal) {
  auto n = node("baton_viewer_for_roscpp");
  test::expect_a_baton_subscription_gets_a_stock_4k_image(*n, topic_, core_->dir(), roscpp_peer());
}

TEST_F(Ros1Roscpp, latched_publisher_gives_a_late_roscpp_listener_the_last_message_first) {
  auto n = node("baton_latched_for_roscpp");
  PublisherOptions po;
  po.latch = true;
  auto pub = n->advertise(topic_, "std_msgs/String", po);
  ASSERT_TRUE(pub) << pub.error().detail;
  ASSERT_TRUE((*pub)->publish(string_value("old")));
  ASSERT_TRUE((*pub)->publish(string_value("latched")));  // before anyone subscribed
  expect_a_new_listener_gets(**pub, roscpp_peer(), {"live"}, {"latched"});
}

// roscpp's side of latching: a baton subscription made after a latched roscpp publisher published
// gets its last message, once, on connecting (TCPROS header latching=1).
TEST_F(Ros1Roscpp, late_baton_subscription_gets_a_latched_roscpp_message_first) {
  auto talker = peer({"latched-talker", topic_});
  ASSERT_TRUE(talker->wait_for_output("published", GUARD)) << talker->output();
  auto n = node("baton_late_for_roscpp");
  Strings strings;
  strings.type = *n->types().message("std_msgs/String");
  auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(sub) << sub.error().detail;
  ASSERT_TRUE(strings.wait_for("latched")) << talker->output();
  sub->reset();  // the talker exits once its subscriber has gone
  EXPECT_EQ(talker->wait(), 0) << talker->output();
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, std::vector<std::string>{"latched"});
  EXPECT_EQ(strings.transports, std::vector<std::string>{"TCPROS"});
}

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

TEST_F(Ros1Roscpp, a_roscpp_client_calls_a_baton_service_over_one_persistent_connection) {
  auto n = node("baton_srv_for_roscpp");
  const std::string service = topic_ + "/set";
  const auto* type = *n->types().service("std_srvs/SetBool");
  int calls = 0;
  auto server = n->advertise_service(
      service, "std_srvs/SetBool",
      value_handler(*type, [&](const Value& req) -> Result<Value, std::string> {
        if (req.items.at(0).raw.at(0) == 0) return unexpected(std::string("no false here"));
        Value res;
        res.items = {Value::of<bool>(true), Value::of_string("baton " + std::to_string(++calls))};
        return res;
      }));
  ASSERT_TRUE(server) << server.error().detail;
  auto client = peer({"setbool-client", service, "100"});
  EXPECT_EQ(client->wait(), 0) << client->output();
  std::vector<std::string> expected, got;
  for (int i = 0; i < 100; ++i)
    expected.push_back("reply " + std::to_string(i) + " True baton " + std::to_string(i + 1));
  std::istringstream in(client->output());
  for (std::string line; std::getline(in, line);)
    if (line.rfind("reply ", 0) == 0) got.push_back(line);
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(client->output_has("failed\ndone")) << client->output();  // the false call
  EXPECT_EQ((*server)->stats().connections, 1u);
  EXPECT_EQ((*server)->stats().calls, 101u);
  EXPECT_EQ((*server)->stats().failed, 1u);
}

TEST_F(Ros1Roscpp, baton_calls_a_roscpp_service) {
  const std::string service = topic_ + "/set";
  auto provider = peer({"setbool-server", service});
  ASSERT_TRUE(provider->wait_for_output("ready", GUARD)) << provider->output();
  auto n = node("baton_caller_of_roscpp");
  ServiceClientOptions persistent;
  persistent.persistent = true;
  auto client = n->service_client(service, "std_srvs/SetBool", persistent);
  ASSERT_TRUE(client) << client.error().detail;
  for (int i = 1; i <= 100; ++i) {
    auto r = (*client)->call(setbool_request(true));
    ASSERT_TRUE(r) << r.error().detail;
    ASSERT_EQ(r->items.at(1).str, "roscpp " + std::to_string(i));
  }
  auto refused = (*client)->call(setbool_request(false));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ServiceError::Failed) << refused.error().detail;
  auto after = (*client)->call(setbool_request(true));
  ASSERT_TRUE(after) << after.error().detail;
  EXPECT_EQ(after->items.at(1).str, "roscpp 101");
}

}  // namespace
}  // namespace baton::ros1
