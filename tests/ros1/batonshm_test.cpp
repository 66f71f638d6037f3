// BATONSHM on a real ROS 1 graph (private roscore): two baton ros1::Nodes negotiate shared memory
// in requestTopic and read each other's messages in place, with no TCP payload between them
// (counted at the TCPROS sockets); a stock rospy listener on the same topic gets TCPROS; each
// subscriber gets every message exactly once, and the message is serialized once.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpcpp/XmlRpc.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "baton/shm/domain_tag.hpp"
#include "publisher_update.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using test::GUARD;
using test::numbered;
using test::string_value;
using test::Strings;

// The file mapped at `address` in this process ("" when none is), from /proc/self/maps.
std::string mapping_of(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    unsigned long long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &from, &to) != 2 || at < from || at >= to) continue;
    const auto slash = line.find('/');
    return slash == std::string::npos ? std::string("(anonymous)") : line.substr(slash);
  }
  return "";
}

// requestTopic on `node_uri` with `protocols`; returns the answer's protocol parameters.
XmlRpc::XmlRpcValue request_topic(const std::string& node_uri, const std::string& topic,
                                  XmlRpc::XmlRpcValue protocols) {
  XmlRpc::XmlRpcClient c("127.0.0.1", std::stoi(node_uri.substr(node_uri.rfind(':') + 1)), "/");
  XmlRpc::XmlRpcValue params, answer;
  params[0] = std::string("/probe");
  params[1] = topic;
  params[2] = protocols;
  if (!c.execute("requestTopic", params, answer) || int(answer[0]) != 1) return {};
  return answer[2];
}

// A node's XML-RPC API that answers every call with `body` (an XML-RPC value), `calls` times,
// then stops: a publisher whose requestTopic answers are whatever a test needs.
class FakeSlave {
 public:
  FakeSlave(std::string value_xml, int calls) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 4) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      return;
    uri_ = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";
    const std::string body =
        "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>"
        "<value><i4>1</i4></value><value><string>ok</string></value>" +
        value_xml + "</data></array></value></param></params></methodResponse>";
    const std::string response = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-length: " +
                                 std::to_string(body.size()) + "\r\n\r\n" + body;
    thread_ = std::thread([this, response, calls] {
      for (int i = 0; i < calls; ++i) {
        const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        std::string request;
        char buf[4096];
        for (ssize_t r; request.find("</methodCall>") == std::string::npos &&
                        (r = ::recv(c, buf, sizeof buf, 0)) > 0;)
          request.append(buf, static_cast<size_t>(r));
        (void)!::send(c, response.data(), response.size(), MSG_NOSIGNAL);
        ::close(c);
      }
    });
  }
  ~FakeSlave() {
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& uri() const { return uri_; }
  // Returns once every call was answered.
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  int fd_ = -1;
  std::string uri_;
  std::thread thread_;
};

class Ros1Shm : public test::Ros1Graph {
 protected:
  // A subscription of `node` on the test's topic into `strings`, up to 1000 messages queued.
  std::unique_ptr<Subscription> subscribe(Node& node, Strings& strings) {
    strings.type = *node.types().message("std_msgs/String");
    SubscriptionOptions so;
    so.queue_size = 1000;  // the publishing loops below outrun the reader
    auto sub = node.subscribe(topic_, "std_msgs/String", strings.sink(), so);
    EXPECT_TRUE(sub) << sub.error().detail;
    return sub ? std::move(*sub) : nullptr;
  }
  std::unique_ptr<Publisher> advertise(Node& node) {
    PublisherOptions po;
    po.queue_size = 1000;
    auto pub = node.advertise(topic_, "std_msgs/String", po);
    EXPECT_TRUE(pub) << pub.error().detail;
    return pub ? std::move(*pub) : nullptr;
  }
  // A message that does not fit the type is refused (TypeMismatch) and nothing of it is sent,
  // whichever path the bridged-endpoint core takes: the loan + TCPROS's copy of it (`talker_shm`:
  // one listener over BATONSHM, one over TCPROS), or TCPROS alone (a talker without shm). The next
  // good message reaches both listeners once.
  void refuses_a_bad_message_and_sends_nothing(bool talker_shm) {
    NodeOptions talker_options = options(), plain = options();
    talker_options.shared_memory = talker_shm;
    plain.shared_memory = false;
    auto talker = node("baton_refusing_talker", talker_options);
    auto shm_listener = node("baton_refused_shm"), tcpros_listener = node("baton_refused", plain);
    auto pub = advertise(*talker);
    Strings a, b;
    auto sub_a = subscribe(*shm_listener, a), sub_b = subscribe(*tcpros_listener, b);
    ASSERT_TRUE(pub && sub_a && sub_b);
    ASSERT_TRUE(sub_a->wait_for_publishers(1, GUARD) && sub_b->wait_for_publishers(1, GUARD));
    ASSERT_TRUE(pub->wait_for_tcpros_subscribers(talker_shm ? 1 : 2, GUARD));
    ros2::Value bad = string_value("two fields");
    bad.items.push_back(ros2::Value::of_string("std_msgs/String has one"));
    auto r = pub->publish(bad);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, WireError::TypeMismatch) << r.error().detail;
    auto f = pub->publish_filled(4, [](std::span<uint8_t>) -> Result<Ok, std::string> {
      return unexpected(std::string("refused by the test"));
    });
    ASSERT_FALSE(f);
    EXPECT_EQ(f.error().code, WireError::TypeMismatch);
    EXPECT_NE(f.error().detail.find("refused by the test"), std::string::npos) << f.error().detail;
    EXPECT_EQ(pub->wire().stats().sent, 0u);
    EXPECT_EQ(pub->shm_stats().sent, 0u);
    ASSERT_EQ(*pub->publish(string_value("end")), 2u);
    ASSERT_TRUE(a.wait_for("end") && b.wait_for("end"));
    const std::string a_transport = talker_shm ? "BATONSHM" : "TCPROS";
    std::scoped_lock lock(a.mutex, b.mutex);
    EXPECT_EQ(a.got, std::vector<std::string>{"end"});
    EXPECT_EQ(a.transports, std::vector<std::string>{a_transport});
    EXPECT_EQ(b.got, std::vector<std::string>{"end"});
    EXPECT_EQ(b.transports, std::vector<std::string>{"TCPROS"});
  }
};

TEST_F(Ros1Shm, a_bad_message_is_refused_and_nothing_sent_through_the_loan_or_its_tcpros_copy) {
  refuses_a_bad_message_and_sends_nothing(/*talker_shm=*/true);
}

TEST_F(Ros1Shm, a_bad_message_is_refused_and_nothing_sent_on_tcpros_alone) {
  refuses_a_bad_message_and_sends_nothing(/*talker_shm=*/false);
}

TEST_F(Ros1Shm, baton_nodes_read_each_others_messages_in_place_with_no_tcp_payload) {
  auto talker = node("baton_shm_talker");
  auto listener = node("baton_shm_listener");
  auto pub = advertise(*talker);
  Strings strings;
  std::vector<std::string> mappings;  // where each message's bytes were when the sink read them
  strings.inspect = [&](const WireSample& s) { mappings.push_back(mapping_of(s.bytes.data())); };
  auto sub = subscribe(*listener, strings);
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE(sub->wait_for_publishers(1, GUARD));
  auto expected = numbered(200);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_TRUE(pub->publish(string_value(m)));
  ASSERT_TRUE(strings.wait_for("end"));
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);  // exactly once, in order
  EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "BATONSHM"));
  EXPECT_EQ(strings.sources.front(), "/baton_shm_talker");
  for (const auto& m : mappings) ASSERT_EQ(m.rfind("/dev/shm/", 0), 0u) << m;  // in place
  // No TCP payload either way: nothing written to or read from a TCPROS connection.
  EXPECT_EQ(pub->wire().reader_count(), 0u);
  EXPECT_EQ(pub->wire().stats().sent, 0u);
  EXPECT_EQ(pub->wire().stats().bytes, 0u);
  EXPECT_EQ(sub->wire().stats().received, 0u);
  EXPECT_EQ(sub->wire().stats().bytes, 0u);
  EXPECT_EQ(pub->shm_stats().serialized, expected.size());
  EXPECT_EQ(sub->shm_stats().received, expected.size());
  EXPECT_EQ(sub->shm_stats().dropped, 0u);
}

TEST_F(Ros1Shm, baton_publisher_reaches_a_baton_subscriber_over_shm_and_rospy_over_tcpros_once) {
  auto talker = node("baton_mixed_talker");
  auto listener = node("baton_mixed_listener");
  auto pub = advertise(*talker);
  Strings strings;
  auto sub = subscribe(*listener, strings);
  ASSERT_TRUE(pub && sub);
  auto rospy = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(rospy->listening()) << rospy->output();
  ASSERT_TRUE(sub->wait_for_publishers(1, GUARD));
  ASSERT_TRUE(pub->wait_for_tcpros_subscribers(1, GUARD)) << rospy->output();
  auto expected = numbered(100);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_EQ(*pub->publish(string_value(m)), 2u);
  EXPECT_EQ(rospy->wait(), 0) << rospy->output();
  ASSERT_TRUE(strings.wait_for("end"));
  EXPECT_EQ(listener_lines(*rospy), expected);  // rospy: TCPROS, once each, in order
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);  // baton: shared memory, once each, in order
  EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "BATONSHM"));
  // Serialized once, into the loan; TCPROS sent copies of those bytes.
  EXPECT_EQ(pub->shm_stats().serialized, expected.size());
  EXPECT_EQ(pub->wire().stats().serialized, 0u);
  EXPECT_EQ(pub->wire().stats().sent, expected.size());
  EXPECT_EQ(sub->wire().stats().received, 0u);
}

TEST_F(Ros1Shm, a_node_without_shared_memory_gets_tcpros_from_a_baton_publisher) {
  auto talker = node("baton_shm_capable");
  NodeOptions plain = options();
  plain.shared_memory = false;  // offers TCPROS only, as a stock node does
  auto listener = node("baton_tcpros_only", plain);
  auto pub = advertise(*talker);
  Strings strings;
  auto sub = subscribe(*listener, strings);
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE(sub->wait_for_publishers(1, GUARD));
  auto expected = numbered(10);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_TRUE(pub->publish(string_value(m)));
  ASSERT_TRUE(strings.wait_for("end"));
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
  EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "TCPROS"));
  EXPECT_EQ(sub->wire().stats().received, expected.size());
  EXPECT_EQ(pub->shm_stats().sent, 0u);
}

TEST_F(Ros1Shm, request_topic_grants_batonshm_only_to_an_offer_from_this_shm_domain) {
  auto talker = node("baton_granting");
  auto pub = advertise(*talker);
  ASSERT_TRUE(pub);
  XmlRpc::XmlRpcValue local, foreign;
  local[0][0] = std::string("BATONSHM");
  local[0][1] = shm::domain_tag();
  local[1][0] = std::string("TCPROS");
  auto grant = request_topic(talker->uri(), topic_, local);
  ASSERT_EQ(grant.getType(), XmlRpc::XmlRpcValue::TypeArray) << grant.toXml();
  ASSERT_EQ(grant.size(), 7) << grant.toXml();
  EXPECT_EQ(std::string(grant[0]), "BATONSHM");
  EXPECT_EQ(std::string(grant[1]), "/_ros1" + topic_);
  EXPECT_EQ(std::string(grant[2]), "std_msgs/String");
  EXPECT_EQ(std::string(grant[3]), pub->type().md5sum);
  EXPECT_EQ(std::string(grant[6]), "/baton_granting");
  // Another host's (or container's, or user's) tag cannot open these segments: TCPROS.
  foreign[0][0] = std::string("BATONSHM");
  foreign[0][1] = std::string("another-boot-id.0.0.x");
  foreign[1][0] = std::string("TCPROS");
  auto tcpros = request_topic(talker->uri(), topic_, foreign);
  ASSERT_EQ(tcpros.getType(), XmlRpc::XmlRpcValue::TypeArray) << tcpros.toXml();
  EXPECT_EQ(std::string(tcpros[0]), "TCPROS");
  // A malformed offer (no tag, a number for a name) is skipped like an unknown protocol.
  XmlRpc::XmlRpcValue junk;
  junk[0][0] = std::string("BATONSHM");
  junk[1][0] = 7;
  junk[2][0] = std::string("TCPROS");
  auto fallback = request_topic(talker->uri(), topic_, junk);
  ASSERT_EQ(fallback.getType(), XmlRpc::XmlRpcValue::TypeArray) << fallback.toXml();
  EXPECT_EQ(std::string(fallback[0]), "TCPROS");
}

TEST_F(Ros1Shm, a_publisher_reached_over_both_batonshm_and_tcpros_is_delivered_once) {
  auto talker = node("baton_twice_talker");
  auto barrier_talker = node("baton_twice_barrier");
  auto listener = node("baton_twice_listener");
  auto pub = advertise(*talker);
  // Publishes over shared memory alone, after the talker: a barrier (see below).
  auto barrier = advertise(*barrier_talker);
  Strings strings;
  auto sub = subscribe(*listener, strings);
  ASSERT_TRUE(pub && barrier && sub);
  ASSERT_TRUE(sub->wait_for_publishers(2, GUARD));  // both talkers, over BATONSHM
  // A second listing of the same talker whose requestTopic answers with the talker's own TCPROS
  // server: the listener now reaches it both ways, and every message is sent both ways.
  XmlRpc::XmlRpcValue tcpros_only;
  tcpros_only[0][0] = std::string("TCPROS");
  auto server = request_topic(talker->uri(), topic_, tcpros_only);
  ASSERT_EQ(server.getType(), XmlRpc::XmlRpcValue::TypeArray) << server.toXml();
  ASSERT_EQ(server.size(), 3) << server.toXml();
  FakeSlave second_listing(
      "<value><array><data><value><string>TCPROS</string></value><value>"
      "<string>" +
          std::string(server[1]) + "</string></value><value><i4>" + std::to_string(int(server[2])) +
          "</i4></value></data></array></value>",
      1);
  ASSERT_FALSE(second_listing.uri().empty());
  test::send_publisher_update(*listener, topic_,
                              {talker->uri(), barrier_talker->uri(), second_listing.uri()});
  ASSERT_TRUE(sub->wait_for_publishers(3, GUARD));
  ASSERT_TRUE(pub->wait_for_tcpros_subscribers(1, GUARD));
  auto expected = numbered(100);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_EQ(*pub->publish(string_value(m)), 2u);  // both ways
  ASSERT_TRUE(strings.wait_for("end"));
  // The listener's port is read in order: once the barrier is delivered, every shared-memory
  // copy of the talker's messages was read (and dropped).
  ASSERT_EQ(*barrier->publish(string_value("barrier")), 1u);
  ASSERT_TRUE(strings.wait_for("barrier"));
  std::lock_guard lock(strings.mutex);
  auto got = strings.got;
  ASSERT_EQ(got.back(), "barrier");
  got.pop_back();
  EXPECT_EQ(got, expected);  // once each, in order: read on the path admitted last (TCPROS)
  EXPECT_EQ(std::vector<std::string>(strings.transports.begin(), strings.transports.end() - 1),
            std::vector<std::string>(expected.size(), "TCPROS"));
  EXPECT_EQ(strings.transports.back(), "BATONSHM");
  EXPECT_EQ(sub->wire().stats().received, expected.size());
  EXPECT_EQ(sub->shm_stats().received, 1u);  // the barrier
}

// The master removes a baton talker (publisherUpdate without it) before its BATONSHM subscriber
// has read what it published (the sink is held on the first message): every message it had
// published still arrives, in order, in place; then it is revoked, and what it publishes after is
// not delivered (a barrier talker, still listed, is read after it on the same port).
TEST_F(Ros1Shm, a_removed_publisher_delivers_what_it_had_queued_and_nothing_after) {
  auto talker = node("baton_removed_talker");
  auto barrier_talker = node("baton_removed_barrier");
  auto listener = node("baton_removed_listener");
  auto pub = advertise(*talker);
  auto barrier = advertise(*barrier_talker);
  Strings strings;
  strings.hold();
  auto sub = subscribe(*listener, strings);
  ASSERT_TRUE(pub && barrier && sub);
  ASSERT_TRUE(sub->wait_for_publishers(2, GUARD));  // both talkers, over BATONSHM
  auto expected = numbered(100);
  expected.push_back("end");
  for (const auto& m : expected) ASSERT_EQ(*pub->publish(string_value(m)), 1u);
  // What the master sends when the talker unregisters: the barrier talker alone is left.
  test::send_publisher_update(*listener, topic_, {barrier_talker->uri()});
  strings.release();
  ASSERT_TRUE(strings.wait_for("end"));
  // Revoked once its queued messages were read: its link ends, the barrier talker's stays.
  ASSERT_TRUE(baton::testing::eventually([&] { return sub->publisher_count() == 1; }, GUARD));
  ASSERT_TRUE(pub->publish(string_value("after")));  // still written to the listener's port
  ASSERT_EQ(*barrier->publish(string_value("barrier")), 1u);
  ASSERT_TRUE(strings.wait_for("barrier"));
  expected.push_back("barrier");
  std::lock_guard lock(strings.mutex);
  EXPECT_EQ(strings.got, expected);
  EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "BATONSHM"));
}

TEST_F(Ros1Shm, a_malformed_batonshm_grant_is_refused_with_a_logged_reason) {
  // Answers both of the subscriber's requestTopic calls (BATONSHM offered, then TCPROS only) with
  // a BATONSHM answer of three elements.
  FakeSlave liar(
      "<value><array><data><value><string>BATONSHM</string></value>"
      "<value><string>/_ros1/x</string></value><value><i4>7</i4></value></data></array></value>",
      2);
  ASSERT_FALSE(liar.uri().empty());
  auto n = node("baton_misled");
  Strings strings;
  auto sub = subscribe(*n, strings);
  ASSERT_TRUE(sub);
  test::send_publisher_update(*n, topic_, {liar.uri()});  // as when the liar registers
  liar.join();
  ASSERT_TRUE(log_.wait_for("expected 7 elements, got 3", "asking for TCPROS instead"));
  ASSERT_TRUE(log_.wait_for("requestTopic answered", "not [TCPROS, host, port]"));
  EXPECT_EQ(sub->publisher_count(), 0u);
  EXPECT_EQ(sub->wire().stats().refused, 1u);
  EXPECT_EQ(sub->shm_stats().received, 0u);
}

}  // namespace
}  // namespace baton::ros1
