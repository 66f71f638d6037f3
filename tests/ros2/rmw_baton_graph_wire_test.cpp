// rmw_baton_cpp's graph includes DDS peers (graph_view.hpp, dds_graph_reader.hpp): rclpy on
// rmw_baton_cpp lists a Fast DDS rclpy node, its topics with their types, counts its endpoints
// and reports their gid / QoS / type hash; the node leaves the answers when its process exits (and
// the graph guard condition wakes a waiter each time); baton peers are listed exactly once, from
// the shm registry in one BATON_NAMESPACE, from DDS across namespaces. DDS domain 74 (+ shift).
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/rmw.h>

#include <chrono>
#include <string>

#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string DOMAIN_ID = test::domain_id_str(74);  // this suite's own ROS_DOMAIN_ID
constexpr const char* QUERY = "rclpy_native_peer.py";   // its `graph` mode runs on either RMW
const std::vector<std::string> GRAPH_QUERY = {"graph",      "/graph_ns",  "target",
                                              "/graph_pub", "/graph_sub", "90"};

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class RmwBatonGraphWire : public test::RmwPeers {
 protected:
  RmwBatonGraphWire() : RmwPeers(DOMAIN_ID) {}
  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped()) return;
    BATON_REQUIRE_CYCLONEDDS();
  }
  // rclpy on rmw_baton_cpp runs the graph query against node /graph_ns/target (rclpy_rmw_peer.py
  // graph_target: publisher /graph_pub String depth 7, subscription /graph_sub Image depth 3).
  // Every line of test::graph_target_lines() must be there.
  std::string query_on_baton() {
    auto& query = on_baton(GRAPH_QUERY, QUERY);
    int code = -1;
    EXPECT_TRUE(query.wait_exit(120s, &code)) << query.output();
    const std::string out = query.output();
    EXPECT_EQ(code, 0) << out;
    for (const std::string& expected : test::graph_target_lines())
      EXPECT_NE(out.find(expected), std::string::npos) << expected << " not in\n" << out;
    return out;
  }
  static std::string hash_of(const char* type) {
    TypeRegistry registry;
    registry.add_share_root(test::ros_venv() / "share");
    auto t = registry.message(type);
    EXPECT_TRUE(t.has_value());
    return t ? type_hash(**t) : "";
  }
};

TEST_F(RmwBatonGraphWire, fast_dds_node_is_listed_with_its_topics_counts_gid_qos_and_hash) {
  auto& target = on_fast_dds({"graph_target", "120"});
  ASSERT_TRUE(target.wait_for_output("ready", 60s)) << target.output();
  const std::string out = query_on_baton();
  for (const std::string& expected : {
           // Fast DDS GUIDs start with RTPS vendor id 01.0f; the QoS as Fast DDS announces it.
           "pubinfo /graph_pub node=/graph_ns|target type=std_msgs/msg/String hash=" +
               hash_of("std_msgs/msg/String") + " gid=010f",
           std::string("reliability=RELIABLE durability=VOLATILE"),
           "subinfo /graph_sub node=/graph_ns|target type=sensor_msgs/msg/Image hash=" +
               hash_of("sensor_msgs/msg/Image") + " gid=010f",
           // no_demangle: DDS names and types, services' request / reply topics too.
           std::string("raw_topic rt/graph_pub std_msgs::msg::dds_::String_\n"),
           std::string("raw_topic rq/graph_ns/target/get_parametersRequest "
                       "rcl_interfaces::srv::dds_::GetParameters_Request_\n"),
           std::string("raw_topic rr/graph_ns/target/get_parametersReply "
                       "rcl_interfaces::srv::dds_::GetParameters_Response_\n"),
       })
    EXPECT_NE(out.find(expected), std::string::npos) << expected << " not in\n" << out;
  EXPECT_EQ(occurrences(out, "node /graph_ns target\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "pubinfo "), 1u) << out;
}

// Called through dlopen as rcl calls it: a waiter on the graph guard condition wakes when the
// Fast DDS node appears and again when its process has exited and it is gone.
TEST_F(RmwBatonGraphWire, fast_dds_node_leaves_the_graph_when_its_process_exits) {
  test::Rmw rmw;
  ASSERT_TRUE(rmw.loaded()) << ::dlerror();
  test::ScopedEnv ns("BATON_NAMESPACE", namespace_.c_str());
  RMW_FN(rmw, rmw_node_get_graph_guard_condition);
  RMW_FN(rmw, rmw_create_wait_set);
  RMW_FN(rmw, rmw_destroy_wait_set);
  RMW_FN(rmw, rmw_wait);
  RMW_FN(rmw, rmw_get_node_names);
  RMW_FN(rmw, rmw_count_publishers);
  RMW_FN(rmw, rcutils_get_zero_initialized_string_array);
  RMW_FN(rmw, rcutils_string_array_fini);
  test::RmwContext c(rmw, "observer", std::stoul(DOMAIN_ID),
                     RMW_AUTOMATIC_DISCOVERY_RANGE_LOCALHOST);
  ASSERT_NE(c.node, nullptr) << test::take_error(rmw);
  auto target_listed = [&] {
    rcutils_string_array_t names = rcutils_get_zero_initialized_string_array();
    rcutils_string_array_t namespaces = rcutils_get_zero_initialized_string_array();
    EXPECT_EQ(rmw_get_node_names(c.node, &names, &namespaces), RMW_RET_OK);
    bool found = false;
    for (size_t i = 0; i < names.size; ++i)
      found |=
          std::string(names.data[i]) == "target" && std::string(namespaces.data[i]) == "/graph_ns";
    (void)rcutils_string_array_fini(&names);
    (void)rcutils_string_array_fini(&namespaces);
    return found;
  };
  size_t publishers = 99;
  auto count = [&] {
    EXPECT_EQ(rmw_count_publishers(c.node, "/graph_pub", &publishers), RMW_RET_OK);
    return publishers;
  };
  const rmw_guard_condition_t* graph = rmw_node_get_graph_guard_condition(c.node);
  rmw_wait_set_t* ws = rmw_create_wait_set(&c.context, 1);
  ASSERT_NE(ws, nullptr);
  // Waits on the graph guard condition until `done`; false when a wait timed out (no wake-up).
  auto wait_until = [&](auto done) {
    while (!done()) {
      void* entries[1] = {graph->data};
      rmw_guard_conditions_t gcs{1, entries};
      rmw_time_t timeout{30, 0};
      if (rmw_wait(nullptr, &gcs, nullptr, nullptr, nullptr, ws, &timeout) != RMW_RET_OK)
        return false;
    }
    return true;
  };
  EXPECT_FALSE(target_listed());
  auto& target = on_fast_dds({"graph_target", "120"});
  ASSERT_TRUE(target.wait_for_output("ready", 60s)) << target.output();
  EXPECT_TRUE(wait_until([&] { return target_listed() && count() == 1; }))
      << "the Fast DDS node was never listed\n"
      << target.output();
  target.stop();  // SIGTERM: rclpy shuts down, its participant leaves
  EXPECT_TRUE(wait_until([&] { return !target_listed() && count() == 0; }))
      << "the Fast DDS node stayed listed after its process exited";
  EXPECT_EQ(publishers, 0u);
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
}

TEST_F(RmwBatonGraphWire, baton_peer_in_the_same_shm_namespace_is_listed_once) {
  auto& target = on_baton({"graph_target", "120"});  // shared memory and DDS both reach it
  ASSERT_TRUE(target.wait_for_output("ready", 60s)) << target.output();
  const std::string out = query_on_baton();
  EXPECT_EQ(occurrences(out, "node /graph_ns target\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "count_publishers /graph_pub 1\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "count_subscribers /graph_sub 1\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "pubinfo "), 1u) << out;
  EXPECT_EQ(occurrences(out, "subinfo "), 1u) << out;
  // no_demangle names baton's endpoints as their DDS endpoints are named.
  EXPECT_EQ(occurrences(out, "raw_topic rt/graph_pub std_msgs::msg::dds_::String_\n"), 1u) << out;
  EXPECT_EQ(occurrences(out,
                        "raw_topic rq/graph_ns/target/get_parametersRequest "
                        "rcl_interfaces::srv::dds_::GetParameters_Request_\n"),
            1u)
      << out;
}

TEST_F(RmwBatonGraphWire, baton_peer_in_another_shm_namespace_is_listed_once_over_dds) {
  auto& target =
      on_baton({"graph_target", "120"}, "rclpy_rmw_peer.py",
               {{"BATON_NAMESPACE", namespace_ + "-other"}});  // no shared memory in common
  ASSERT_TRUE(target.wait_for_output("ready", 60s)) << target.output();
  const std::string out = query_on_baton();
  EXPECT_EQ(occurrences(out, "node /graph_ns target\n"), 1u) << out;
  EXPECT_EQ(occurrences(out, "count_publishers /graph_pub 1\n"), 1u) << out;
  // Its DDS writer: a CycloneDDS GUID (vendor 01.10), the String hash from its USER_DATA.
  EXPECT_NE(out.find("pubinfo /graph_pub node=/graph_ns|target type=std_msgs/msg/String hash=" +
                     hash_of("std_msgs/msg/String") + " gid=0110"),
            std::string::npos)
      << out;
  EXPECT_EQ(occurrences(out, "pubinfo "), 1u) << out;
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
