// ros1::Node on a real ROS 1 graph: a private Debian roscore per test, stock rospy peers
// (tests/ros1/rospy_peer.py) and the ROS 1 command-line tools, all on 127.0.0.1. Strings both
// ways exactly once and in order, a 4K Image both ways byte for byte, rostopic / rosnode seeing
// the node, peers SIGKILLed mid-stream, an unreachable master, and bad input (wrong md5sum,
// malformed TCPROS headers, malformed XML-RPC) refused with a logged reason.
#include "baton/ros1/node.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpcpp/XmlRpc.h>

#include <fstream>
#include <mutex>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/serialization.hpp"
#include "image_exchange.hpp"
#include "publisher_update.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using baton::testing::eventually;
using ros2::Value;
using test::connect_loopback;
using test::GUARD;
using test::LogCapture;
using test::numbered;
using test::string_value;
using test::Strings;
using namespace std::chrono_literals;

class Ros1Node : public test::Ros1Graph {
 protected:
  // A node subscribed to the test's topic (into `strings`) and an endless rospy talker on it,
  // returned once `at_least` of the talker's messages arrived.
  struct Listening {
    std::shared_ptr<Node> node;
    std::unique_ptr<Subscription> sub;
    std::unique_ptr<test::Child> talker;
  };
  Listening listen_to_an_endless_talker(const std::string& name, Strings& strings,
                                        size_t at_least) {
    Listening l{node(name), nullptr, nullptr};
    strings.type = *l.node->types().message("std_msgs/String");
    auto sub = l.node->subscribe(topic_, "std_msgs/String", strings.sink());
    EXPECT_TRUE(sub);
    if (!sub) return l;
    l.sub = std::move(*sub);
    l.talker = core_->peer({"string-talker", topic_, "0"});
    EXPECT_TRUE(eventually([&] { return strings.size() >= at_least; }, GUARD))
        << l.talker->output();
    return l;
  }
};

TEST(Ros1NodeCreate, create_without_a_master_uri_returns_no_master_uri) {
  NodeOptions o;
  o.master_uri = "not-a-uri";
  auto n = Node::create("x", o);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, NodeError::NoMasterUri);
  EXPECT_NE(n.error().detail.find("not-a-uri"), std::string::npos);
  o.master_uri = "http://127.0.0.1:1/";
  EXPECT_EQ(Node::create("bad name!", o).error().code, NodeError::BadName);
}

TEST(Ros1NodeCreate, create_with_no_master_listening_returns_master_unreachable) {
  NodeOptions o;
  o.master_uri = "http://127.0.0.1:" + std::to_string(test::free_port()) + "/";
  auto n = Node::create("lonely", o);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, NodeError::MasterUnreachable);
  EXPECT_NE(n.error().detail.find(o.master_uri), std::string::npos) << n.error().detail;
  EXPECT_NE(n.error().detail.find("roscore"), std::string::npos) << n.error().detail;
}

TEST(Ros1NodeCreate, create_with_a_master_that_never_answers_returns_master_unreachable) {
  // A socket that listens but never accepts: the connection completes, no answer ever comes.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  NodeOptions o;
  o.master_uri = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";
  o.rpc_timeout = 300ms;
  auto n = Node::create("patient", o);
  ::close(fd);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, NodeError::MasterUnreachable);
  EXPECT_NE(n.error().detail.find("Timeout"), std::string::npos) << n.error().detail;
}

TEST_F(Ros1Node, create_honours_ros_master_uri_ros_ip_and_name_remapping) {
  ::setenv("ROS_MASTER_URI", core_->uri().c_str(), 1);
  ::setenv("ROS_IP", "127.0.0.1", 1);
  NodeOptions o;
  o.log = log_.handler();
  o.arguments = {"__name:=renamed", "__ns:=/space", "chatter:=other"};
  auto n = Node::create("original", o);
  ::unsetenv("ROS_MASTER_URI");
  ::unsetenv("ROS_IP");
  ASSERT_TRUE(n) << n.error().detail;
  EXPECT_EQ((*n)->name(), "/space/renamed");
  EXPECT_EQ((*n)->uri().rfind("http://127.0.0.1:", 0), 0u) << (*n)->uri();
  EXPECT_EQ(*(*n)->resolve("chatter"), "/space/chatter");
  EXPECT_EQ(*(*n)->resolve("~private"), "/space/renamed/private");
  auto pub = (*n)->advertise("chatter", "std_msgs/String");
  ASSERT_TRUE(pub) << pub.error().detail;
  auto uri = (*n)->master().lookup_node("/space/renamed");
  ASSERT_TRUE(uri) << uri.error().detail;
  EXPECT_EQ(*uri, (*n)->uri());
}

TEST_F(Ros1Node, advertise_unknown_type_or_twice_returns_errors) {
  auto n = node("talker");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->advertise(topic_, "std_msgs/NoSuchType").error().code, EndpointError::UnknownType);
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  EXPECT_EQ(n->advertise(topic_, "std_msgs/String").error().code, EndpointError::Duplicate);
  EXPECT_EQ(n->advertise("bad topic", "std_msgs/String").error().code, EndpointError::BadName);
}

TEST_F(Ros1Node, rospy_listener_gets_baton_strings_exactly_once_in_order) {
  auto n = node("baton_talker");
  PublisherOptions po;
  po.queue_size = 1000;  // the loop below outruns the socket; the default 100 would drop
  auto pub = n->advertise(topic_, "std_msgs/String", po);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto listener = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(listener->listening()) << listener->output();
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD))
      << listener->output();
  const auto expected = numbered(200);
  for (const auto& s : expected) ASSERT_TRUE((*pub)->publish(string_value(s)));
  ASSERT_TRUE((*pub)->publish(string_value("end")));
  EXPECT_EQ(listener->wait(), 0) << listener->output();
  auto got = listener_lines(*listener);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back(), "end");
  got.pop_back();
  EXPECT_EQ(got, expected);
  EXPECT_EQ((*pub)->wire().stats().dropped, 0u);
}

TEST_F(Ros1Node, baton_subscription_gets_rospy_strings_exactly_once_in_order) {
  auto n = node("baton_listener");
  Strings strings;
  strings.type = *n->types().message("std_msgs/String");
  auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(sub) << sub.error().detail;
  // The talker starts after the subscription: the master tells the node (publisherUpdate).
  auto talker = core_->peer({"string-talker", topic_, "200"});
  EXPECT_EQ(talker->wait(), 0) << talker->output();
  ASSERT_TRUE(eventually([&] { return strings.contains("end"); }, GUARD));
  // The talker is gone: its connection ends, nothing more can arrive.
  ASSERT_TRUE(eventually([&] { return (*sub)->publisher_count() == 0; }, GUARD));
  auto expected = numbered(200);
  expected.push_back("end");
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
  EXPECT_EQ(strings.sources.front().rfind("/rospy_string_talker_", 0), 0u) << strings.sources[0];
}

TEST_F(Ros1Node, rospy_listener_gets_a_4k_image_bytes_equal) {
  auto n = node("baton_camera");
  test::expect_a_stock_listener_gets_a_4k_image(*n, topic_, core_->dir(), rospy_peer());
}

TEST_F(Ros1Node, baton_subscription_gets_a_rospy_4k_image_bytes_equal) {
  auto n = node("baton_viewer");
  test::expect_a_baton_subscription_gets_a_stock_4k_image(*n, topic_, core_->dir(), rospy_peer());
}

TEST_F(Ros1Node, rostopic_and_rosnode_see_the_baton_node) {
  auto n = node("baton_seen");
  auto pub = n->advertise(topic_, "std_msgs/String");
  Strings strings;
  strings.type = &(*pub)->type();
  auto sub = n->subscribe(topic_ + "_in", "std_msgs/String", strings.sink());
  ASSERT_TRUE(pub && sub);
  const auto list = core_->run({"/usr/bin/rostopic", "list"});
  EXPECT_NE(list.find(topic_ + "\n"), std::string::npos) << list;
  EXPECT_NE(list.find(topic_ + "_in\n"), std::string::npos) << list;
  const auto info = core_->run({"/usr/bin/rostopic", "info", topic_});
  EXPECT_NE(info.find("Type: std_msgs/String"), std::string::npos) << info;
  EXPECT_NE(info.find(" * /baton_seen (" + n->uri() + ")"), std::string::npos) << info;
  // rosnode info calls the node itself: getPid, getBusInfo.
  const auto node_info = core_->run({"/usr/bin/rosnode", "info", "/baton_seen"});
  EXPECT_NE(node_info.find("Pid: " + std::to_string(::getpid())), std::string::npos) << node_info;
  EXPECT_NE(node_info.find(topic_ + " [std_msgs/String]"), std::string::npos) << node_info;
  // rostopic echo subscribes with md5sum "*" and decodes what the node sends.
  auto echo = std::make_unique<test::Child>(
      std::vector<std::string>{"/usr/bin/rostopic", "echo", "-n", "1", topic_}, core_->env());
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD));
  ASSERT_TRUE((*pub)->publish(string_value("seen by rostopic")));
  EXPECT_EQ(echo->wait(), 0);
  EXPECT_TRUE(echo->output_has("data: \"seen by rostopic\"")) << echo->output();
  const auto master = n->master().get_system_state();
  ASSERT_TRUE(master);
  bool listed = false;
  for (const auto& [topic, nodes] : master->subscribers)
    listed |= topic == topic_ + "_in" &&
              std::find(nodes.begin(), nodes.end(), "/baton_seen") != nodes.end();
  EXPECT_TRUE(listed);
}

TEST_F(Ros1Node, rostopic_hz_measures_a_baton_publisher) {
  auto n = node("baton_hz");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  auto hz = std::make_unique<test::Child>(
      std::vector<std::string>{"/usr/bin/rostopic", "hz", topic_}, core_->env());
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD));
  // rostopic hz prints "average rate: ..." once it has seen a window of messages. The workload:
  // a publisher at ~100 Hz (paced by the wait for that line) until it has; the rate's value
  // depends on this machine's load and is not asserted.
  const auto give_up = std::chrono::steady_clock::now() + GUARD;
  int sent = 0;
  while (!hz->wait_for_output("average rate:", 10ms)) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << hz->output();
    ASSERT_TRUE((*pub)->publish(string_value("tick " + std::to_string(sent++))));
  }
  EXPECT_TRUE(hz->output_has("min:")) << hz->output();
  hz->kill(SIGINT);
  hz->wait();
}

TEST_F(Ros1Node, master_going_away_keeps_streams_and_a_restarted_master_serves_new_nodes) {
  const NodeOptions opts = options();
  auto n = node("baton_survivor", opts);
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  auto listener = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(listener->listening()) << listener->output();
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD));
  const int port = core_->port();
  core_.reset();  // the master stops mid-stream
  // Publisher and subscriber talk directly over TCPROS: the stream goes on without the master.
  const auto messages = numbered(20);
  for (const auto& m : messages) ASSERT_TRUE((*pub)->publish(string_value(m)));
  ASSERT_TRUE((*pub)->publish(string_value("end")));
  EXPECT_EQ(listener->wait(), 0);
  auto expected = messages;
  expected.push_back("end");
  EXPECT_EQ(listener_lines(*listener), expected);
  // A node created while no master answers: a clear error, no hang.
  auto orphan = Node::create("baton_orphan", opts);
  ASSERT_FALSE(orphan);
  EXPECT_EQ(orphan.error().code, NodeError::MasterUnreachable) << orphan.error().detail;
  // A master started again on the same port serves new nodes.
  core_ = std::make_unique<test::Roscore>(port);
  ASSERT_TRUE(core_->ready()) << core_->log();
  auto later = node("baton_later", opts);
  ASSERT_TRUE(later);
  auto again = later->advertise(topic_ + "_later", "std_msgs/String");
  ASSERT_TRUE(again) << again.error().detail;
  const auto list = core_->run({"/usr/bin/rostopic", "list"});
  EXPECT_NE(list.find(topic_ + "_later\n"), std::string::npos) << list;
}

TEST_F(Ros1Node, rosnode_ping_reaches_the_baton_node) {
  auto n = node("baton_pinged");
  auto pub = n->advertise(topic_, "std_msgs/String");  // the master knows nodes by registrations
  ASSERT_TRUE(pub);
  int status = -1;
  const auto out = core_->run({"/usr/bin/rosnode", "ping", "-c", "2", "/baton_pinged"}, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("xmlrpc reply from " + n->uri()), std::string::npos) << out;
}

TEST_F(Ros1Node, rospy_talker_killed_mid_stream_leaves_the_subscription_working) {
  Strings strings;
  auto l = listen_to_an_endless_talker("baton_survivor", strings, 20);
  ASSERT_TRUE(l.sub && strings.size() >= 20);
  l.talker->kill(SIGKILL);
  ASSERT_TRUE(eventually([&] { return l.sub->publisher_count() == 0; }, GUARD));
  {
    std::lock_guard lock(strings.mutex);
    EXPECT_EQ(strings.got, numbered(static_cast<int>(strings.got.size())));  // in order, no gap
    strings.got.clear();
  }
  auto talker = core_->peer({"string-talker", topic_, "5"});
  EXPECT_EQ(talker->wait(), 0) << talker->output();
  ASSERT_TRUE(eventually([&] { return strings.contains("end"); }, GUARD));
  auto expected = numbered(5);
  expected.push_back("end");
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
}

TEST_F(Ros1Node, publisher_update_without_a_publisher_drops_its_connection) {
  Strings strings;
  auto l = listen_to_an_endless_talker("baton_updated", strings, 5);
  ASSERT_TRUE(l.sub && strings.size() >= 5);
  // The talker is still running and keeps its connection open: it is read on for the drain
  // grace, then closed.
  test::send_publisher_update(*l.node, topic_, {});
  ASSERT_TRUE(eventually([&] { return l.sub->publisher_count() == 0; }, GUARD));
  const auto received = l.sub->wire().stats().received;
  EXPECT_FALSE(l.talker->exited());  // the talker goes on; this node no longer listens to it
  EXPECT_TRUE(log_.has(topic_, "kept the connection open"));
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got.size(), received);
  EXPECT_EQ(strings.got, numbered(static_cast<int>(received)));
}

// A talker publishes, exits and is unregistered before this subscriber has read what it sent
// (the sink is held on the first message): the master's publisherUpdate removes it, and every
// message it sent still arrives, in order, up to its close. A recorder of a short-lived talker
// lost the messages still in its socket when the update cut the connection.
TEST_F(Ros1Node, messages_a_talker_sent_before_it_was_unregistered_all_arrive) {
  auto n = node("baton_drained");
  Strings strings;
  strings.type = *n->types().message("std_msgs/String");
  strings.hold();
  auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(sub) << sub.error().detail;
  auto talker = core_->peer({"string-talker", topic_, "300"});
  EXPECT_EQ(talker->wait(), 0) << talker->output();  // all of it written, then unregistered
  test::send_publisher_update(*n, topic_, {});       // the master's own may come before
  strings.release();
  ASSERT_TRUE(strings.wait_for("end"));
  auto expected = numbered(300);
  expected.push_back("end");
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
}

// A TCPROS connection lost while its publisher stays registered (no publisherUpdate follows) is
// made again, as roscpp and rospy make theirs: the rospy talker closes its connection after ten
// messages and goes on publishing, and what it publishes after reaches the subscriber again.
TEST_F(Ros1Node, a_lost_connection_to_a_publisher_still_registered_is_made_again) {
  auto n = node("baton_reconnecting");
  Strings strings;
  strings.type = *n->types().message("std_msgs/String");
  auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(sub) << sub.error().detail;
  auto talker = core_->peer({"string-dropper", topic_});
  ASSERT_TRUE(strings.wait_for("msg 9")) << talker->output();
  auto got_after = [&] {
    std::lock_guard lock(strings.mutex);
    return std::any_of(strings.got.begin(), strings.got.end(),
                       [](const std::string& m) { return m.starts_with("after "); });
  };
  ASSERT_TRUE(eventually(got_after, GUARD)) << talker->output();
  EXPECT_TRUE(log_.has(topic_, "connecting again"));
  EXPECT_EQ((*sub)->publisher_count(), 1u);
  std::lock_guard lock(strings.mutex);
  const std::vector<std::string> first(strings.got.begin(), strings.got.begin() + 10);
  EXPECT_EQ(first, numbered(10));  // each once, in order, before the drop
}

TEST_F(Ros1Node, rospy_listener_killed_mid_stream_leaves_the_publisher_working) {
  auto n = node("baton_steady");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  auto doomed = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 1; }, GUARD));
  int i = 0;
  auto publish_until = [&](auto done) {
    return eventually(
        [&] {
          EXPECT_TRUE((*pub)->publish(string_value("msg " + std::to_string(i++))));
          return done();
        },
        GUARD);
  };
  ASSERT_TRUE(publish_until([&] { return listener_lines(*doomed).size() >= 20; }));
  doomed->kill(SIGKILL);
  // Publishing goes on without error while the dead connection is noticed and dropped.
  ASSERT_TRUE(publish_until([&] { return (*pub)->subscriber_count() == 0; }));
  expect_a_new_listener_gets(**pub, rospy_peer(), {"after"});
}

TEST_F(Ros1Node, publish_serializes_once_for_every_subscriber) {
  auto n = node("baton_fanout");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  ASSERT_TRUE((*pub)->publish(string_value("nobody listens")));
  EXPECT_EQ((*pub)->wire().stats().serialized, 0u);  // no subscriber: not even serialized
  auto a = core_->peer({"string-listener", topic_});
  auto b = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(a->listening()) << a->output();
  ASSERT_TRUE(b->listening()) << b->output();
  ASSERT_TRUE(eventually([&] { return (*pub)->subscriber_count() == 2; }, GUARD));
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(*(*pub)->publish(string_value("msg " + std::to_string(i))), 2u);
  ASSERT_EQ(*(*pub)->publish(string_value("end")), 2u);
  EXPECT_EQ(a->wait(), 0);
  EXPECT_EQ(b->wait(), 0);
  EXPECT_EQ((*pub)->wire().stats().serialized, 11u);
  EXPECT_EQ((*pub)->wire().stats().sent, 22u);
  auto expected = numbered(10);
  expected.push_back("end");
  EXPECT_EQ(listener_lines(*a), expected);
  EXPECT_EQ(listener_lines(*b), expected);
}

TEST_F(Ros1Node, latched_publisher_gives_a_late_rospy_listener_the_last_message_first) {
  auto n = node("baton_latched");
  PublisherOptions po;
  po.latch = true;
  auto pub = n->advertise(topic_, "std_msgs/String", po);
  ASSERT_TRUE(pub);
  ASSERT_TRUE((*pub)->publish(string_value("old")));
  ASSERT_TRUE((*pub)->publish(string_value("latched")));  // before anyone subscribed
  EXPECT_EQ((*pub)->wire().stats().serialized, 2u);
  expect_a_new_listener_gets(**pub, rospy_peer(), {}, {"latched"});
}

TEST_F(Ros1Node, subscriber_with_a_wrong_md5sum_is_refused_with_a_logged_error) {
  auto talker = node("baton_strings");
  auto pub = talker->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  LogCapture listener_log;
  NodeOptions o = options();
  o.log = listener_log.handler();
  auto listener = Node::create("baton_ints", o);
  ASSERT_TRUE(listener);
  Strings ignored;
  auto sub = (*listener)->subscribe(topic_, "std_msgs/Int32", ignored.sink());
  ASSERT_TRUE(sub);
  ASSERT_TRUE(eventually([&] { return log_.has("md5sum mismatch", "std_msgs/Int32"); }, GUARD));
  ASSERT_TRUE(eventually([&] { return listener_log.has("refused", "md5sum mismatch"); }, GUARD));
  EXPECT_EQ((*pub)->subscriber_count(), 0u);
  EXPECT_EQ((*pub)->wire().stats().refused, 1u);
}

// Raw bytes to the node's TCPROS port, found as a subscriber would (requestTopic).
class RawTcpros {
 public:
  explicit RawTcpros(const std::string& node_uri, const std::string& topic) {
    const auto colon = node_uri.rfind(':');
    XmlRpc::XmlRpcClient c("127.0.0.1", std::stoi(node_uri.substr(colon + 1)), "/");
    XmlRpc::XmlRpcValue params, answer;
    params[0] = std::string("/raw");
    params[1] = topic;
    params[2][0][0] = std::string("TCPROS");
    if (c.execute("requestTopic", params, answer) && int(answer[0]) == 1) port_ = answer[2][2];
  }
  int port() const { return port_; }
  // Connects, sends `bytes`, half-closes, and returns what the node answered before closing.
  std::string exchange(const std::vector<uint8_t>& bytes) const {
    const int fd = connect_loopback(port_);
    std::string answer;
    if (fd >= 0) {
      (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      ::shutdown(fd, SHUT_WR);
      char buf[4096];
      for (ssize_t r; (r = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, r);
      ::close(fd);
    }
    return answer;
  }

 private:
  int port_ = 0;
};

TEST_F(Ros1Node, malformed_tcpros_headers_drop_the_connection_and_the_publisher_keeps_serving) {
  auto n = node("baton_robust");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  RawTcpros raw(n->uri(), topic_);
  ASSERT_NE(raw.port(), 0);
  // Each ends with the node closing the connection (exchange() returns) and a logged reason.
  raw.exchange({0xff, 0xff, 0xff, 0xff});  // a 4 GiB header
  EXPECT_TRUE(log_.has("TooLarge")) << "no log line";
  raw.exchange({20, 0, 0, 0, 9, 0});  // header shorter than announced
  EXPECT_TRUE(log_.has("truncated"));
  raw.exchange({4, 0, 0, 0, 0, 1, 0, 0});  // a field longer than the header
  EXPECT_TRUE(log_.has("Truncated"));
  raw.exchange({5, 0, 0, 0, 1, 0, 0, 0, 'x'});  // a field without '='
  EXPECT_TRUE(log_.has("no '='"));
  raw.exchange({});  // connect and close
  auto refused = encode_connection_header({{"callerid", "/raw"}, {"topic", topic_}});
  EXPECT_NE(raw.exchange(refused).find("error="), std::string::npos);  // no md5sum: refused
  EXPECT_TRUE(log_.has("no 'md5sum' field"));
  auto wrong_topic =
      encode_connection_header({{"callerid", "/raw"}, {"topic", "/nope"}, {"md5sum", "*"}});
  EXPECT_NE(raw.exchange(wrong_topic).find("does not publish /nope"), std::string::npos);
  EXPECT_EQ((*pub)->subscriber_count(), 0u);
  expect_a_new_listener_gets(**pub, rospy_peer(), {"still here"});
}

TEST_F(Ros1Node, malformed_xmlrpc_calls_get_error_answers_and_the_node_keeps_answering) {
  auto n = node("baton_rpc");
  auto pub = n->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub);
  const int port = std::stoi(n->uri().substr(n->uri().rfind(':') + 1));
  XmlRpc::XmlRpcClient c("127.0.0.1", port, "/");
  XmlRpc::XmlRpcValue params, answer;
  params[0] = 42;  // caller_id must be a string
  params[1] = 43;
  ASSERT_TRUE(c.execute("requestTopic", params, answer));
  EXPECT_EQ(int(answer[0]), -1) << answer.toXml();
  EXPECT_TRUE(log_.has("requestTopic", "bad arguments"));
  XmlRpc::XmlRpcValue update;
  update[0] = std::string("/master");
  update[1] = topic_;
  update[2] = 7;  // not a list of URIs
  ASSERT_TRUE(c.execute("publisherUpdate", update, answer));
  EXPECT_EQ(int(answer[0]), -1) << answer.toXml();
  // Garbage instead of HTTP on the XML-RPC port.
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  const std::string junk = "POST / HTTP/1.0\r\nContent-length: 99999999999\r\n\r\n<<<";
  (void)!::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
  ::close(fd);
  XmlRpc::XmlRpcValue pid_params;
  pid_params[0] = std::string("/probe");
  XmlRpc::XmlRpcClient again("127.0.0.1", port, "/");
  ASSERT_TRUE(again.execute("getPid", pid_params, answer));
  EXPECT_EQ(int(answer[2]), ::getpid());
}

}  // namespace
}  // namespace baton::ros1
