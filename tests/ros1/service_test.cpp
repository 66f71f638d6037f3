// ROS 1 services on a real graph: a private Debian roscore per test, stock rospy service servers
// and clients (tests/ros1/rospy_peer.py) and rosservice, all on 127.0.0.1. A baton service called
// by `rosservice call` and seen by `rosservice list | info | type`; a rospy client calling baton
// many times over one persistent connection; baton calling a rospy service; baton calling baton;
// wrong md5sums refused both ways with a logged reason; truncated, oversized and stalled requests
// refused without a crash or a hang; a provider killed mid-call, a service that is gone and a
// master that is gone giving the caller a clear error.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <thread>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/node.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using ros2::Value;
using test::GUARD;
using namespace std::chrono_literals;

constexpr const char* SETBOOL = "std_srvs/SetBool";

Value setbool_request(bool data) {
  Value v;
  v.items = {Value::of<bool>(data)};
  return v;
}

bool flag(const Value& v) { return !v.items.at(0).raw.empty() && v.items[0].raw[0] != 0; }

class Ros1Service : public test::Ros1Graph {
 protected:
  void SetUp() override {
    test::Ros1Graph::SetUp();
    service_ = "/baton_test_srv/" + std::to_string(::getpid());
  }
  // A baton SetBool service: data true answers success and "baton <n>" (n counts the true
  // calls), data false is an error answer.
  std::unique_ptr<ServiceServer> setbool_server(Node& node) {
    auto type = node.types().service(SETBOOL);
    EXPECT_TRUE(type) << type.error().detail;
    auto server = node.advertise_service(
        service_, SETBOOL,
        value_handler(**type, [this](const Value& req) -> Result<Value, std::string> {
          if (!flag(req)) return unexpected(std::string("baton refuses false"));
          Value res;
          res.items = {Value::of<bool>(true),
                       Value::of_string("baton " + std::to_string(++true_calls_))};
          return res;
        }));
    EXPECT_TRUE(server) << server.error().detail;
    return server ? std::move(*server) : nullptr;
  }
  // rosservice with its output.
  std::string rosservice(std::vector<std::string> args, int* status = nullptr) {
    args.insert(args.begin(), "/usr/bin/rosservice");
    return core_->run(args, status);
  }
  // The TCPROS port of a rosrpc://host:port URI.
  static int port_of(const std::string& rosrpc) {
    return std::stoi(rosrpc.substr(rosrpc.rfind(':') + 1));
  }
  std::string service_;
  std::atomic<int> true_calls_{0};
};

TEST_F(Ros1Service, rosservice_sees_and_calls_a_baton_service) {
  auto n = node("baton_srv");
  ASSERT_TRUE(n);
  auto server = setbool_server(*n);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->uri().rfind("rosrpc://127.0.0.1:", 0), 0u) << server->uri();

  EXPECT_NE(rosservice({"list"}).find(service_), std::string::npos);
  EXPECT_EQ(rosservice({"type", service_}), std::string(SETBOOL) + "\n");
  const auto info = rosservice({"info", service_});
  EXPECT_NE(info.find("Node: /baton_srv"), std::string::npos) << info;
  EXPECT_NE(info.find("URI: " + server->uri()), std::string::npos) << info;
  EXPECT_NE(info.find("Type: std_srvs/SetBool"), std::string::npos) << info;
  EXPECT_NE(info.find("Args: data"), std::string::npos) << info;

  int status = -1;
  auto out = rosservice({"call", service_, "data: true"}, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("success: True"), std::string::npos) << out;
  EXPECT_NE(out.find("message: \"baton 1\""), std::string::npos) << out;
  // A handler's error reaches rosservice as a failed call.
  out = rosservice({"call", service_, "data: false"}, &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("baton refuses false"), std::string::npos) << out;
  const auto stats = server->stats();
  EXPECT_GE(stats.probes, 1u);  // rosservice learns the type with a probe
  EXPECT_EQ(stats.calls, 2u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_TRUE(log_.has("call failed: baton refuses false"));

  // Destroying the handle unregisters the service.
  server.reset();
  EXPECT_EQ(rosservice({"list"}).find(service_), std::string::npos);
}

TEST_F(Ros1Service, a_rospy_client_calls_baton_many_times_over_one_persistent_connection) {
  auto n = node("baton_srv");
  ASSERT_TRUE(n);
  auto server = setbool_server(*n);
  ASSERT_TRUE(server);
  constexpr int COUNT = 300;
  auto client = core_->peer({"setbool-client", service_, std::to_string(COUNT)});
  EXPECT_EQ(client->wait(), 0) << client->output();
  std::vector<std::string> expected, got;
  for (int i = 0; i < COUNT; ++i)
    expected.push_back("reply " + std::to_string(i) + " True baton " + std::to_string(i + 1));
  std::istringstream in(client->output());
  for (std::string line; std::getline(in, line);)
    if (line.rfind("reply ", 0) == 0) got.push_back(line);
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(client->output_has("error service [" + service_ +
                                 "] responded with an error: b'baton refuses false'") ||
              client->output_has("error service [" + service_ +
                                 "] responded with an error: baton refuses false"))
      << client->output();
  EXPECT_TRUE(client->output_has("done"));
  const auto stats = server->stats();
  EXPECT_EQ(stats.connections, 1u);  // one persistent connection for all COUNT + 1 calls
  EXPECT_EQ(stats.calls, COUNT + 1u);
  EXPECT_EQ(stats.refused, 0u);
}

TEST_F(Ros1Service, baton_calls_a_rospy_service) {
  auto provider = core_->peer({"setbool-server", service_});
  ASSERT_TRUE(provider->wait_for_output("ready", GUARD)) << provider->output();
  auto n = node("baton_caller");
  ASSERT_TRUE(n);
  auto once = n->service_client(service_, SETBOOL);
  ASSERT_TRUE(once) << once.error().detail;
  ASSERT_TRUE((*once)->exists());
  auto r = (*once)->call(setbool_request(true));
  ASSERT_TRUE(r) << r.error().detail;
  EXPECT_TRUE(flag(*r));
  EXPECT_EQ(r->items.at(1).str, "on 1");

  ServiceClientOptions persistent;
  persistent.persistent = true;
  auto many = n->service_client(service_, SETBOOL, persistent);
  ASSERT_TRUE(many);
  for (int i = 2; i <= 101; ++i) {
    auto ri = (*many)->call(setbool_request(true));
    ASSERT_TRUE(ri) << ri.error().detail;
    ASSERT_EQ(ri->items.at(1).str, "on " + std::to_string(i));
  }
  // rospy's handler raising: the call fails with its text, and the connection stays usable.
  auto refused = (*many)->call(setbool_request(false));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ServiceError::Failed);
  EXPECT_NE(refused.error().detail.find("false is refused"), std::string::npos)
      << refused.error().detail;
  auto after = (*many)->call(setbool_request(true));
  ASSERT_TRUE(after) << after.error().detail;
  EXPECT_EQ(after->items.at(1).str, "on 102");
}

TEST_F(Ros1Service, baton_calls_baton_and_a_removed_service_is_a_clear_error) {
  auto n = node("baton_srv");
  auto caller = node("baton_caller");
  ASSERT_TRUE(n && caller);
  auto server = setbool_server(*n);
  ServiceClientOptions persistent;
  persistent.persistent = true;
  auto client = caller->service_client(service_, SETBOOL, persistent);
  ASSERT_TRUE(client);
  for (int i = 1; i <= 100; ++i) {
    auto r = (*client)->call(setbool_request(true));
    ASSERT_TRUE(r) << r.error().detail;
    ASSERT_EQ(r->items.at(1).str, "baton " + std::to_string(i));
  }
  EXPECT_EQ(server->stats().connections, 1u);
  server.reset();  // unregistered, its connections closed
  auto gone = (*client)->call(setbool_request(true));
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ServiceError::ConnectionLost) << gone.error().detail;
  auto none = (*client)->call(setbool_request(true));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ServiceError::NotFound) << none.error().detail;
  EXPECT_FALSE((*client)->exists());
  // A request Value of the wrong shape is not sent.
  auto bad = (*client)->call(Value{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ServiceError::BadRequest);
}

TEST_F(Ros1Service, wrong_md5sums_are_refused_both_ways_with_a_logged_reason) {
  auto n = node("baton_srv");
  ASSERT_TRUE(n);
  auto server = setbool_server(*n);
  // rospy calls the baton SetBool service as a Trigger.
  auto trigger = core_->peer({"trigger-client", service_});
  EXPECT_EQ(trigger->wait(), 0) << trigger->output();
  // The reason reaches rospy in the error header.
  EXPECT_TRUE(
      trigger->output_has("error unable to connect to service: remote error reported: "
                          "md5sum mismatch"))
      << trigger->output();
  // rospy sends no type in a service header: the log names Trigger's md5sum.
  EXPECT_TRUE(log_.wait_for("refused: md5sum mismatch", "937c9679a518e3a18d831e57125ea522"));
  EXPECT_EQ(server->stats().refused, 1u);
  EXPECT_EQ(server->stats().calls, 0u);

  // baton calls a rospy SetBool service as a Trigger.
  const std::string rospy_service = service_ + "_rospy";
  auto provider = core_->peer({"setbool-server", rospy_service});
  ASSERT_TRUE(provider->wait_for_output("ready", GUARD));
  auto client = n->service_client(rospy_service, "std_srvs/Trigger");
  ASSERT_TRUE(client);
  auto r = (*client)->call(std::span<const uint8_t>());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ServiceError::Refused) << r.error().detail;
  EXPECT_TRUE(log_.has("service " + rospy_service, "refused"));

  // The baton service still answers.
  auto good = n->service_client(service_, SETBOOL);
  ASSERT_TRUE(good);
  auto ok = (*good)->call(setbool_request(true));
  ASSERT_TRUE(ok) << ok.error().detail;
}

// A raw TCPROS client: sends `header`, returns the reply header (empty on failure).
ConnectionHeader raw_handshake(int fd, const ConnectionHeader& header) {
  const auto bytes = encode_connection_header(header);
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))
    return {};
  uint8_t prefix[4];
  if (::recv(fd, prefix, 4, MSG_WAITALL) != 4) return {};
  const uint32_t n = prefix[0] | prefix[1] << 8 | prefix[2] << 16 | uint32_t{prefix[3]} << 24;
  std::vector<uint8_t> body(n);
  if (::recv(fd, body.data(), n, MSG_WAITALL) != static_cast<ssize_t>(n)) return {};
  auto h = decode_connection_header(body);
  return h ? *h : ConnectionHeader{};
}

void send_bytes(int fd, std::vector<uint8_t> bytes) {
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
}

// Reads one response frame: {ok, body}; ok = -1 when the connection ended instead.
std::pair<int, std::string> read_response(int fd) {
  uint8_t head[5];
  if (::recv(fd, head, 5, MSG_WAITALL) != 5) return {-1, ""};
  const uint32_t n = head[1] | head[2] << 8 | head[3] << 16 | uint32_t{head[4]} << 24;
  std::string body(n, '\0');
  if (n != 0 && ::recv(fd, body.data(), n, MSG_WAITALL) != static_cast<ssize_t>(n)) return {-1, ""};
  return {head[0], body};
}

TEST_F(Ros1Service, truncated_oversized_and_stalled_requests_are_refused_without_a_hang) {
  auto o = options();
  o.handshake_timeout = 300ms;  // how long a started request may take to arrive
  auto n = node("baton_srv", o);
  ASSERT_TRUE(n);
  auto server = setbool_server(*n);
  const int port = port_of(server->uri());
  const std::string md5 = server->type().md5sum;
  const ConnectionHeader hello = {
      {"callerid", "/raw"}, {"service", service_}, {"md5sum", md5}, {"persistent", "1"}};
  auto connect = [&] {
    const int fd = test::connect_loopback(port);
    EXPECT_GE(fd, 0);
    return fd;
  };

  // No md5sum, or a service the node does not provide: an error header.
  int fd = connect();
  auto reply = raw_handshake(fd, {{"callerid", "/raw"}, {"service", service_}});
  EXPECT_NE(reply["error"].find("no 'md5sum' field"), std::string::npos);
  ::close(fd);
  fd = connect();
  reply = raw_handshake(fd, {{"callerid", "/raw"}, {"service", "/nope"}, {"md5sum", md5}});
  EXPECT_NE(reply["error"].find("does not provide service /nope"), std::string::npos);
  ::close(fd);

  // The header it answers a client with.
  fd = connect();
  reply = raw_handshake(fd, hello);
  EXPECT_EQ(reply["md5sum"], md5);
  EXPECT_EQ(reply["type"], SETBOOL);
  EXPECT_EQ(reply["request_type"], "std_srvs/SetBoolRequest");
  EXPECT_EQ(reply["response_type"], "std_srvs/SetBoolResponse");
  EXPECT_EQ(reply["callerid"], "/baton_srv");
  // A request that does not decode: an error answer, and the connection goes on.
  send_bytes(fd, {3, 0, 0, 0, 1, 2, 3});
  auto [ok, body] = read_response(fd);
  EXPECT_EQ(ok, 0);
  EXPECT_NE(body.find("not a valid std_srvs/SetBoolRequest"), std::string::npos) << body;
  send_bytes(fd, {1, 0, 0, 0, 1});
  std::tie(ok, body) = read_response(fd);
  EXPECT_EQ(ok, 1);
  // An oversized length: an error answer, then the connection closes; nothing is allocated.
  send_bytes(fd, {0xf0, 0xff, 0xff, 0xff});
  std::tie(ok, body) = read_response(fd);
  EXPECT_EQ(ok, 0);
  EXPECT_NE(body.find("4294967280 bytes announced"), std::string::npos) << body;
  EXPECT_EQ(read_response(fd).first, -1);
  ::close(fd);
  EXPECT_TRUE(log_.has("request of 4294967280 bytes announced"));

  // A request cut short by a close.
  fd = connect();
  ASSERT_FALSE(raw_handshake(fd, hello).empty());
  send_bytes(fd, {100, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  ::shutdown(fd, SHUT_WR);
  EXPECT_EQ(read_response(fd).first, -1);
  ::close(fd);
  EXPECT_TRUE(log_.wait_for("request truncated", "closed inside its 100 bytes"));

  // A request that stops arriving: dropped after handshake_timeout, the thread is not held.
  fd = connect();
  ASSERT_FALSE(raw_handshake(fd, hello).empty());
  send_bytes(fd, {100, 0, 0, 0, 1, 2});
  EXPECT_EQ(read_response(fd).first, -1);
  ::close(fd);
  EXPECT_TRUE(log_.wait_for("request truncated", "not all of its 100 bytes arrived"));

  EXPECT_EQ(server->stats().refused, 4u);  // no md5sum, oversized, truncated, stalled
  // The service still answers.
  auto client = n->service_client(service_, SETBOOL);
  ASSERT_TRUE(client);
  auto r = (*client)->call(setbool_request(true));
  ASSERT_TRUE(r) << r.error().detail;
}

TEST_F(Ros1Service, a_provider_killed_mid_call_gives_the_caller_a_clear_error) {
  auto provider = core_->peer({"setbool-server", service_, "stuck"});
  ASSERT_TRUE(provider->wait_for_output("ready", GUARD));
  auto n = node("baton_caller");
  ASSERT_TRUE(n);
  auto client = n->service_client(service_, SETBOOL);
  ASSERT_TRUE(client);
  auto call =
      std::async(std::launch::async, [&] { return (*client)->call(setbool_request(true)); });
  ASSERT_TRUE(provider->wait_for_output("stuck", GUARD));
  provider->kill(SIGKILL);
  auto r = call.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ServiceError::ConnectionLost) << r.error().detail;
  EXPECT_NE(r.error().detail.find("closed the connection before answering"), std::string::npos)
      << r.error().detail;
  // The master still lists the dead provider: once it is gone, the next call cannot connect.
  EXPECT_EQ(provider->wait(), -1);
  auto again = (*client)->call(setbool_request(true));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ServiceError::ConnectFailed) << again.error().detail;
}

TEST_F(Ros1Service, no_such_service_and_no_master_are_clear_errors) {
  auto n = node("baton_caller");
  ASSERT_TRUE(n);
  auto client = n->service_client("/no/such/service", SETBOOL);
  ASSERT_TRUE(client);
  auto r = (*client)->call(setbool_request(true));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ServiceError::NotFound) << r.error().detail;
  EXPECT_NE(r.error().detail.find("no node provides /no/such/service"), std::string::npos);
  EXPECT_EQ(n->service_client("/x", "std_srvs/NoSuchService").error().code,
            EndpointError::UnknownType);
  EXPECT_EQ(n->advertise_service("/x", "no_pkg_x/Nope", {}).error().code,
            EndpointError::UnknownType);
  auto server = setbool_server(*n);
  ASSERT_TRUE(server);
  EXPECT_EQ(n->advertise_service(service_, SETBOOL, {}).error().code, EndpointError::Duplicate);

  core_.reset();  // roscore stopped
  r = (*client)->call(setbool_request(true));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ServiceError::MasterUnreachable) << r.error().detail;
  server.reset();  // its unregisterService fails: logged, no hang
  EXPECT_TRUE(log_.has("unregisterService"));
}

}  // namespace
}  // namespace baton::ros1
