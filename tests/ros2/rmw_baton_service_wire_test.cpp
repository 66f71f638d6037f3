// rmw_baton_cpp services on the standard DDS wire (src/ros2/rmw/rmw_service_wire.hpp), with real
// rclpy processes: rclpy on rmw_baton_cpp in two baton namespaces (no shared memory between them,
// so only DDS can carry the call), rclpy on the wheels' rmw_fastrtps_cpp for the graph and for
// what happens across the two request-id conventions, and a rogue CycloneDDS writer for hostile
// requests. The peers are rclpy_rmw_peer.py's svc_server / svc_call / svc_graph modes (service
// type rcl_interfaces/srv/GetParameters; the server answers name n with "served:n").
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "rmw_peers.hpp"

#if BATON_HAVE_CYCLONEDDS
#include "rogue_service_client.hpp"
#endif

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t DOMAIN_BASE = 62;  // this suite's own ROS_DOMAIN_ID (+ BATON_TEST_DOMAIN_SHIFT)

class RmwBatonServiceWire : public test::RmwPeers {
 protected:
  RmwBatonServiceWire() : RmwPeers(test::domain_id_str(DOMAIN_BASE)) {}
  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped()) return;
    BATON_REQUIRE_CYCLONEDDS();
    service_ =
        std::string("/svc_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  // A second baton namespace: shares no memory with namespace_ (cleaned with it, rmw_peers.hpp).
  std::string other_namespace() const { return namespace_ + "-peer"; }
  test::RclpyProcess& baton_server() {
    auto& server = on_baton({"svc_server", service_, "150"});
    EXPECT_TRUE(server.wait_for_output("ready", 60s)) << server.output();
    return server;
  }
  std::string service_;
};

// (a) Namespaces A and B share no memory (different BATON_NAMESPACE): the call can only go over
// DDS rq/rr. Each of the 8 requests is served once and answered with its own reply.
TEST_F(RmwBatonServiceWire, rclpy_on_baton_calls_a_server_in_another_baton_namespace_over_dds) {
  auto& server = baton_server();
  auto& client = on_baton({"svc_call", service_, "8", "90"}, "rclpy_rmw_peer.py",
                          {{"BATON_NAMESPACE", other_namespace()}});
  start_calls(client, &server);
  EXPECT_EQ(finished(client), 0) << client.output() << server.output();
  EXPECT_NE(client.output().find("summary replies=8 ok=8"), std::string::npos) << client.output();
  const std::string served = server.output();
  EXPECT_EQ(test::count_of(served, "served q"), 8u) << served;
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(test::count_of(served, "served q" + std::to_string(i) + "\n"), 1u) << i << "\n"
                                                                                 << served;
}

// The control of (a): the same pair with the client's wire off never meets, so (a) went over DDS.
TEST_F(RmwBatonServiceWire, without_the_wire_a_server_in_another_namespace_is_not_available) {
  auto& server = baton_server();
  auto& client = on_baton({"svc_call", service_, "1", "8"}, "rclpy_rmw_peer.py",
                          {{"BATON_NAMESPACE", other_namespace()}, {"BATON_RMW_WIRE", "0"}});
  EXPECT_EQ(finished(client), 1) << client.output();
  EXPECT_NE(client.output().find("service not available"), std::string::npos) << client.output();
  EXPECT_EQ(server.output().find("served"), std::string::npos) << server.output();
}

// (b) rclpy on Fast DDS lists the baton service with its type, also by node: the rq reader and rr
// writer are discovered on DDS and listed under /svc_ns/svc_server in ros_discovery_info.
TEST_F(RmwBatonServiceWire, fast_dds_graph_lists_the_baton_service_with_its_type) {
  baton_server();
  auto& query = on_fast_dds({"svc_graph", service_, "60"});
  EXPECT_EQ(finished(query), 0) << query.output();
  const std::string type = " rcl_interfaces/srv/GetParameters\n";
  EXPECT_NE(query.output().find("service " + service_ + type), std::string::npos) << query.output();
  EXPECT_NE(query.output().find("by_node " + service_ + type), std::string::npos) << query.output();
}

// (c) Fast DDS client -> baton server. Discovery matches (same topic and type names), the client
// sees the server and sends; the requests arrive on the baton server's DDS reader. rmw_fastrtps_cpp
// sends the bare request and correlates replies by the RTPS sample identity, which CycloneDDS 0.10
// can neither read nor echo: the server drops each request with a log line naming Fast DDS, serves
// none, and keeps serving others (a baton client of another namespace, over DDS).
TEST_F(RmwBatonServiceWire, fast_dds_client_requests_reach_the_baton_server_which_drops_them) {
  auto& server = baton_server();
  auto& fast_client = on_fast_dds({"svc_call", service_, "3", "15"});
  start_calls(fast_client, &server);
  EXPECT_EQ(finished(fast_client), 1) << fast_client.output();
  EXPECT_NE(fast_client.output().find("available\n"), std::string::npos) << fast_client.output();
  EXPECT_NE(fast_client.output().find("summary replies=0 ok=0"), std::string::npos)
      << fast_client.output();
  EXPECT_TRUE(server.wait_for_output("(eProsima Fast DDS: rmw_fastrtps_cpp correlates", 30s))
      << server.output();
  EXPECT_NE(server.output().find("dropped a DDS sample (1 so far): request from DDS writer 010f"),
            std::string::npos)
      << server.output();
  EXPECT_EQ(server.output().find("served q"), std::string::npos) << server.output();

  // The Fast DDS client has left the server's graph; a client arriving from now on is this one.
  ASSERT_TRUE(server.wait_for_output_where(
      [](const std::string& out) { return out.rfind("clients ") == out.rfind("clients 0\n"); },
      60s))
      << server.output();
  const size_t mark = server.output().size();
  auto& baton_client = on_baton({"svc_call", service_, "2", "60"}, "rclpy_rmw_peer.py",
                                {{"BATON_NAMESPACE", other_namespace()}});
  start_calls(baton_client, &server, mark);
  EXPECT_EQ(finished(baton_client), 0) << baton_client.output() << server.output();
  EXPECT_EQ(test::count_of(server.output(), "served q"), 2u) << server.output();
}

// (c) baton client -> Fast DDS server. The Fast DDS server's rq reader and rr writer are matched
// but carry no serviceid= (they would not read the request header): the baton client does not
// count them as a server and sends nothing, so wait_for_service times out and the Fast DDS server
// serves nothing (sent anyway, the framed request would be rejected by Fast DDS, or misread).
TEST_F(RmwBatonServiceWire, baton_client_does_not_call_a_fast_dds_server) {
  auto& fast_server = on_fast_dds({"svc_server", service_, "120"});
  ASSERT_TRUE(fast_server.wait_for_output("ready", 60s)) << fast_server.output();
  auto& baton_client = on_baton({"svc_call", service_, "3", "10"});
  EXPECT_EQ(finished(baton_client), 1) << baton_client.output();
  EXPECT_NE(baton_client.output().find("service not available"), std::string::npos)
      << baton_client.output();
  EXPECT_EQ(fast_server.output().find("served"), std::string::npos) << fast_server.output();
}

#if BATON_HAVE_CYCLONEDDS
// (d) A rogue CycloneDDS client (it carries clientid=, so the server reads its requests) sends 8
// malformed requests, then a good one in rmw_cyclonedds_cpp's framing, written byte by byte
// (rogue_service_client.hpp). The server drops and logs the 8, serves the good one once and
// replies with its header echoed.
TEST_F(RmwBatonServiceWire, malformed_requests_from_a_rogue_dds_writer_are_dropped_and_logged) {
  auto& server = baton_server();
  test::RogueServiceClient rogue;
  ASSERT_NO_FATAL_FAILURE(rogue.open(test::domain_id(DOMAIN_BASE), service_));
  ASSERT_TRUE(server.wait_for_output("clients 1", 60s)) << server.output();  // its side too
  for (const auto& s : test::malformed_requests()) ASSERT_TRUE(rogue.write(s));
  ASSERT_TRUE(rogue.write(test::GOOD_REQUEST));

  const auto reply = rogue.reply();
  ASSERT_TRUE(reply.has_value()) << server.output();
  EXPECT_EQ(reply->header, (RequestHeader{0xfeed, 77}));
  const std::string body(reply->cdr.begin(), reply->cdr.end());
  EXPECT_NE(body.find(std::string("served:rogue\0", 13)), std::string::npos);

  const std::string log = server.output();
  EXPECT_EQ(test::count_of(log, "served rogue\n"), 1u) << log;
  EXPECT_EQ(test::count_of(log, "served"), 1u) << log;
  EXPECT_NE(log.find("dropped a DDS sample (1 so far): request header: 4 bytes"), std::string::npos)
      << log;
  EXPECT_NE(log.find("dropped a DDS sample (8 so far)"), std::string::npos) << log;
  EXPECT_EQ(log.find("dropped a DDS sample (9 so far)"), std::string::npos) << log;
}
#endif

}  // namespace
}  // namespace baton::ros2
