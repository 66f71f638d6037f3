// Native baton ROS 2 services and clients (Service, Client) on shared memory and on the
// standard DDS wire, with real peers: rclpy on rmw_baton_cpp in another baton namespace (so only
// DDS can carry the call; rclpy_rmw_peer.py's svc_server / svc_call), a native client and service
// of one namespace (shared memory only, watched by a plain DDS reader on rq/ and rr/), and a rogue
// CycloneDDS writer for malformed requests. Service type rcl_interfaces/srv/GetParameters; every
// server answers name n with the string value "served:n", as the peer does.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rmw_peers.hpp"

#if BATON_HAVE_CYCLONEDDS
#include "../../src/ros2/dds_wire.hpp"
#include "baton/api/context.hpp"
#include "baton/api/detail/service_wire.hpp"
#include "baton/api/publisher.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_client.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_service.hpp"
#include "baton/ros2/type_registry.hpp"
#include "rogue_service_client.hpp"
#include "test_util.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t DOMAIN_BASE = 78;  // this suite's own ROS_DOMAIN_ID (+ BATON_TEST_DOMAIN_SHIFT)
constexpr uint8_t PARAMETER_STRING = 4;  // rcl_interfaces/msg/ParameterType

class NativeServiceWire : public test::RmwPeers {
 protected:
  NativeServiceWire() : RmwPeers(test::domain_id_str(DOMAIN_BASE)) {}
  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped()) return;
    registry_.add_share_root(test::ros_venv() / "share");
    auto srv = registry_.service("rcl_interfaces/srv/GetParameters");
    ASSERT_TRUE(srv.has_value()) << srv.error().detail;
    type_ = *srv;
    auto pv = registry_.message("rcl_interfaces/msg/ParameterValue");
    ASSERT_TRUE(pv.has_value()) << pv.error().detail;
    parameter_value_ = *pv;
    auto wire = Participant::create(registry_, test::domain_id(DOMAIN_BASE), true);
    ASSERT_TRUE(wire.has_value()) << wire.error().detail;
    wire_ = std::move(*wire);
    ctx_ = Context::create();
    auto node = Node::create(ctx_, *wire_, "native_svc", "/native_ns");
    ASSERT_TRUE(node.has_value()) << node.error().detail;
    node_ = std::move(*node);
    service_ =
        std::string("/nsvc_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    stop_serving();
    service_impl_.reset();
    node_.reset();
    wire_.reset();
    RmwPeers::TearDown();
  }

  Value request(const std::string& name) const {
    Value v = default_value(*type_->request);
    v.at(*type_->request, "names").items.push_back(Value::of_string(name));
    return v;
  }
  // The first value's string of a response ("" if none).
  std::string answer(const Value& response) const {
    const auto& values = response.at(*type_->response, "values").items;
    return values.empty() ? std::string() : values[0].at(*parameter_value_, "string_value").str;
  }
  // A native service answering like the peer, served on its own thread until stop_serving().
  Service& serve() {
    auto s = Service::create(*node_, *type_, service_, [this](const Value& q, Value& r) {
      for (const auto& name : q.at(*type_->request, "names").items) {
        Value pv = default_value(*parameter_value_);
        pv.at(*parameter_value_, "type") = Value::of<uint8_t>(PARAMETER_STRING);
        pv.at(*parameter_value_, "string_value").str = "served:" + name.str;
        r.at(*type_->response, "values").items.push_back(std::move(pv));
        std::lock_guard<std::mutex> lock(served_mutex_);
        served_.push_back(name.str);
      }
    });
    EXPECT_TRUE(s.has_value()) << s.error().detail;
    service_impl_ = std::move(*s);
    server_ = std::thread([this] {
      while (!stop_) service_impl_->spin_some(50ms);
    });
    return *service_impl_;
  }
  void stop_serving() {
    stop_ = true;
    if (server_.joinable()) server_.join();
  }
  std::vector<std::string> served() {
    std::lock_guard<std::mutex> lock(served_mutex_);
    return served_;
  }
  std::unique_ptr<Client> client() {
    auto c = Client::create(*node_, *type_, service_);
    EXPECT_TRUE(c.has_value()) << c.error().detail;
    return c ? std::move(*c) : nullptr;
  }
  // `threads` threads make `calls` calls each through `cli` at once, request name(t, i); the
  // number answered with their own reply ("served:<name>").
  int call_concurrently(Client& cli, int threads, int calls,
                        const std::function<std::string(int, int)>& name) {
    std::atomic<int> ok{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < threads; ++t)
      callers.emplace_back([&, t] {
        for (int i = 0; i < calls; ++i) {
          auto r = cli.call(request(name(t, i)), 30s);
          if (r && answer(*r) == "served:" + name(t, i)) ++ok;
        }
      });
    for (auto& c : callers) c.join();
    return ok.load();
  }
  // `caller` (the peer's "svc_call <service> 8") got 8 right replies, and the native service
  // served each of the 8 requests once, all through DDS (`over_dds`) or all through shared memory.
  void expect_8_rclpy_calls_served_once(test::RclpyProcess& caller, const Service& srv,
                                        bool over_dds) {
    EXPECT_EQ(finished(caller), 0) << caller.output();
    EXPECT_NE(caller.output().find("summary replies=8 ok=8"), std::string::npos) << caller.output();
    stop_serving();
    const auto names = served();
    std::string listed;  // the served names in order, so a failure shows duplicates or strangers
    for (const auto& n : names) listed += n + " ";
    EXPECT_EQ(names.size(), 8u) << listed << "\n" << caller.output();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 8u) << listed;
    EXPECT_EQ(srv.served_from_wire(), over_dds ? 8u : 0u);
    EXPECT_EQ(srv.served_from_shm(), over_dds ? 0u : 8u);
    EXPECT_EQ(srv.dropped(), 0u);
  }
  // `threads` threads of the native client `cli` call the peer `server` ("svc_server") `calls`
  // times each at once (names q0, q1, …): each answered with its own reply, each request sent on
  // one path (DDS when `over_dds`, else shared memory) and served once.
  void expect_native_calls_served_once(Client& cli, test::RclpyProcess& server, int threads,
                                       int calls, bool over_dds) {
    const int n = threads * calls;
    const int ok = call_concurrently(
        cli, threads, calls, [calls](int t, int i) { return "q" + std::to_string(t * calls + i); });
    EXPECT_EQ(ok, n) << server.output();
    EXPECT_EQ(cli.sent_on_wire(), over_dds ? static_cast<uint64_t>(n) : 0u);
    EXPECT_EQ(cli.sent_on_shm(), over_dds ? 0u : static_cast<uint64_t>(n));
    const std::string log = server.output();
    EXPECT_EQ(test::count_of(log, "served q"), static_cast<size_t>(n)) << log;
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(test::count_of(log, "served q" + std::to_string(i) + "\n"), 1u) << i << "\n" << log;
  }
  // A second baton namespace for rclpy peers: shares no memory with this test process.
  test::RclpyProcess& peer(const std::vector<std::string>& args) {
    return on_baton(args, "rclpy_rmw_peer.py", {{"BATON_NAMESPACE", namespace_ + "-peer"}});
  }
  // An rclpy peer on rmw_baton_cpp in *this* process's shm domain with no DDS at all (wire off;
  // ROS domain 0 maps to BATON_NAMESPACE itself): only shared memory can connect it to us.
  test::RclpyProcess& shm_only_peer(const std::vector<std::string>& args) {
    const char* ns = std::getenv("BATON_NAMESPACE");  // this test process's own (test_main)
    return on_baton(args, "rclpy_rmw_peer.py",
                    {{"BATON_NAMESPACE", ns != nullptr ? ns : "default"},
                     {"ROS_DOMAIN_ID", "0"},
                     {"BATON_RMW_WIRE", "0"}});
  }

  TypeRegistry registry_;
  const ServiceDescription* type_ = nullptr;
  const MessageDescription* parameter_value_ = nullptr;
  std::unique_ptr<Participant> wire_;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<Node> node_;
  std::string service_;
  std::unique_ptr<Service> service_impl_;
  std::thread server_;
  std::atomic<bool> stop_{false};
  std::mutex served_mutex_;
  std::vector<std::string> served_;
};

TEST_F(NativeServiceWire, create_with_invalid_name_or_no_callback_returns_endpoint_error) {
  auto bad_name = Service::create(*node_, *type_, "no spaces", [](const Value&, Value&) {});
  ASSERT_FALSE(bad_name.has_value());
  EXPECT_EQ(bad_name.error().code, WireError::Endpoint);
  auto no_callback = Service::create(*node_, *type_, service_, nullptr);
  ASSERT_FALSE(no_callback.has_value());
  EXPECT_EQ(no_callback.error().code, WireError::Endpoint);
  auto bad_client = Client::create(*node_, *type_, "");
  ASSERT_FALSE(bad_client.has_value());
  EXPECT_EQ(bad_client.error().code, WireError::Endpoint);
}

// rclpy on rmw_baton_cpp in another baton namespace calls the native service: only DDS connects
// them. 8 requests sent at once, each served once and answered with its own reply.
TEST_F(NativeServiceWire, rclpy_on_baton_in_another_namespace_calls_native_service_over_dds) {
  Service& srv = serve();
  auto& caller = peer({"svc_call", service_, "8", "90"});
  ASSERT_TRUE(baton::testing::eventually([&] { return srv.wire_clients() > 0; }, 60s))
      << caller.output();
  start_calls(caller, nullptr);
  expect_8_rclpy_calls_served_once(caller, srv, /*over_dds=*/true);
}

// The native client calls rclpy on rmw_baton_cpp in another namespace over DDS, from 4 threads
// at once: each call gets its own reply and the server serves each request once.
TEST_F(NativeServiceWire, native_client_calls_rclpy_on_baton_server_over_dds_concurrently) {
  auto& server = peer({"svc_server", service_, "150"});
  ASSERT_TRUE(server.wait_for_output("ready", 60s)) << server.output();
  auto cli = client();
  ASSERT_TRUE(cli);
  ASSERT_TRUE(cli->wait_for_service(60s));
  // DDS discovery is not symmetric (see svc_call in the peer): the server must match us too.
  ASSERT_TRUE(server.wait_for_output("clients 1", 60s)) << server.output();
  expect_native_calls_served_once(*cli, server, 4, 3, /*over_dds=*/true);
}

// A native client and service of one shared-memory domain talk through shared memory only: 4
// threads × 10 concurrent calls, each answered once with its own reply, and a plain DDS reader on
// each of rq/ and rr/ (matched, so it would see any sample) receives nothing.
TEST_F(NativeServiceWire, native_client_and_service_in_one_namespace_use_shared_memory_only) {
  auto spy = DdsParticipant::create(test::domain_id(DOMAIN_BASE), /*localhost_only=*/true);
  ASSERT_TRUE(spy.has_value()) << spy.error().detail;
  auto rq = spy->create_reader(dds_topic_name(service_, "rq") + "Request",
                               "rcl_interfaces::srv::dds_::GetParameters_Request_");
  ASSERT_TRUE(rq.has_value()) << rq.error().detail;
  auto rr = spy->create_reader(dds_topic_name(service_, "rr") + "Reply",
                               "rcl_interfaces::srv::dds_::GetParameters_Response_");
  ASSERT_TRUE(rr.has_value()) << rr.error().detail;
  Service& srv = serve();
  auto cli = client();
  ASSERT_TRUE(cli);
  ASSERT_TRUE(cli->wait_for_service(10s));
  for (int i = 0; i < 600 && (rq->matched_writers() == 0 || rr->matched_writers() == 0); ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_GT(rq->matched_writers(), 0u) << "the spy must see the client's rq writer";
  ASSERT_GT(rr->matched_writers(), 0u) << "the spy must see the service's rr writer";

  constexpr int THREADS = 4, CALLS = 10;
  const int ok = call_concurrently(*cli, THREADS, CALLS, [](int t, int i) {
    return "t" + std::to_string(t) + "c" + std::to_string(i);
  });
  EXPECT_EQ(ok, THREADS * CALLS);
  stop_serving();
  const auto names = served();
  EXPECT_EQ(names.size(), static_cast<size_t>(THREADS * CALLS));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(srv.served_from_shm(), static_cast<uint64_t>(THREADS * CALLS));
  EXPECT_EQ(srv.served_from_wire(), 0u);
  EXPECT_EQ(cli->sent_on_shm(), static_cast<uint64_t>(THREADS * CALLS));
  EXPECT_EQ(cli->sent_on_wire(), 0u);
  EXPECT_FALSE(rq->take(200ms).has_value()) << "a request went on DDS";
  EXPECT_FALSE(rr->take(200ms).has_value()) << "a reply went on DDS";
}

// rclpy on rmw_baton_cpp in this process's shm domain, with its DDS wire off, calls the native
// service: the rmw and the native endpoints share the request / response topics and framing
// (rpc_shm.hpp), so the 8 concurrent requests are served from shared memory, each once.
TEST_F(NativeServiceWire, rclpy_on_baton_in_the_same_namespace_calls_native_service_through_shm) {
  Service& srv = serve();
  auto& caller = shm_only_peer({"svc_call", service_, "8", "60"});
  start_calls(caller, nullptr);  // shared memory only: nothing to match
  expect_8_rclpy_calls_served_once(caller, srv, /*over_dds=*/false);
}

// The reverse: the native client calls rclpy on rmw_baton_cpp (same shm domain, no DDS) through
// shared memory.
TEST_F(NativeServiceWire, native_client_calls_rclpy_on_baton_in_the_same_namespace_through_shm) {
  auto& server = shm_only_peer({"svc_server", service_, "120"});
  ASSERT_TRUE(server.wait_for_output("ready", 60s)) << server.output();
  auto cli = client();
  ASSERT_TRUE(cli);
  ASSERT_TRUE(cli->wait_for_service(30s)) << server.output();
  expect_native_calls_served_once(*cli, server, 2, 3, /*over_dds=*/false);
}

// Shared memory is not trusted either: frames on "<service>/_request" with a bad header are
// skipped, those whose CDR does not decode are dropped, counted and logged, and the service goes
// on serving (a call right after is answered).
TEST_F(NativeServiceWire, malformed_requests_in_shared_memory_are_dropped_and_logged) {
  ::testing::internal::CaptureStderr();
  Service& srv = serve();
  auto hostile = node_->node()
                     .raw_publisher(service_ + "/_request", Service::request_topic_type(*type_))
                     .create();
  ASSERT_TRUE(hostile.has_value()) << hostile.error().detail;
  auto frame = [](std::vector<uint8_t> cdr, uint32_t version) {
    auto h = baton::detail::make_header(/*client_id=*/42, /*sequence=*/7);
    h.version = version;
    std::vector<uint8_t> out(sizeof h);
    std::memcpy(out.data(), &h, sizeof h);
    out.insert(out.end(), cdr.begin(), cdr.end());
    return out;
  };
  constexpr uint32_t V = baton::detail::SERVICE_WIRE_VERSION;
  const std::vector<std::vector<uint8_t>> bad = {
      {1, 2, 3},                                                      // shorter than a header
      frame({0, 1, 0, 0, 0, 0, 0, 0}, V + 1),                         // unknown header version
      frame({}, V),                                                   // no CDR at all
      frame({0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff}, V),                 // 2^32 - 1 names
      frame({0, 1, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'}, V),  // no NUL
  };
  for (const auto& b : bad) ASSERT_TRUE(hostile->publish_copy(b.data(), b.size()).has_value());
  for (int i = 0; i < 500 && srv.dropped() < 3; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(srv.dropped(), 3u);  // the two with a bad header are skipped without a word
  auto cli = client();
  ASSERT_TRUE(cli);
  auto r = cli->call(request("after"), 30s);
  ASSERT_TRUE(r.has_value()) << r.error().detail;
  EXPECT_EQ(answer(*r), "served:after");
  stop_serving();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(test::count_of(log, "dropped a malformed request from shared memory"), 3u) << log;
  EXPECT_EQ(served(), std::vector<std::string>{"after"});
  EXPECT_EQ(srv.served_from_shm(), 1u);
}

// A rogue CycloneDDS client (clientid= in USER_DATA, so the service reads its requests) sends 8
// malformed requests, then one framed as rmw_cyclonedds_cpp frames it. The native service drops
// and logs the 8 and keeps serving: the good one is served once, its header echoed in the reply.
TEST_F(NativeServiceWire, malformed_requests_from_a_rogue_dds_writer_are_dropped_and_logged) {
  ::testing::internal::CaptureStderr();
  Service& srv = serve();
  test::RogueServiceClient rogue;
  ASSERT_NO_FATAL_FAILURE(rogue.open(test::domain_id(DOMAIN_BASE), service_));
  ASSERT_TRUE(baton::testing::eventually([&] { return srv.wire_clients() > 0; }, 60s));
  for (const auto& s : test::malformed_requests()) ASSERT_TRUE(rogue.write(s));
  ASSERT_TRUE(rogue.write(test::GOOD_REQUEST));
  const auto reply = rogue.reply();
  stop_serving();
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(reply.has_value()) << log;
  EXPECT_EQ(reply->header, (RequestHeader{0xfeed, 77}));
  auto response = decode(*type_->response, reply->cdr);
  ASSERT_TRUE(response.has_value()) << response.error().detail;
  EXPECT_EQ(answer(*response), "served:rogue");
  EXPECT_EQ(served(), std::vector<std::string>{"rogue"});
  EXPECT_EQ(srv.served_from_wire(), 1u);
  EXPECT_EQ(srv.dropped(), 8u);
  EXPECT_NE(log.find("[baton_ros2] " + service_ +
                     ": dropped a DDS sample (1 so far): request header: 4 bytes"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("dropped a DDS sample (8 so far)"), std::string::npos) << log;
  EXPECT_EQ(log.find("dropped a DDS sample (9 so far)"), std::string::npos) << log;
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_CYCLONEDDS
