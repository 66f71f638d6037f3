// The graph of foreign DDS peers (dds_graph_cache.hpp) and the DDS -> ROS name demangling
// (dds_names.hpp), as pure data: what rmw_baton_cpp's graph queries list about other RMWs.
#include "baton/ros2/dds_graph_cache.hpp"

#include <gtest/gtest.h>

#include "baton/ros2/dds_names.hpp"

namespace baton::ros2 {
namespace {

constexpr const char* LOCAL_TAG = "boot.1.1000.ns";
const std::string HASH = "RIHS01_" + std::string(64, 'a');

Guid guid(uint8_t participant, uint8_t entity) {
  Guid g{};
  g.fill(participant);
  g[15] = entity;  // entity id 0: the participant itself
  return g;
}

DiscoveredEndpoint endpoint(uint8_t participant, uint8_t entity, bool writer, std::string topic,
                            std::string type, std::string user_data = {}) {
  DiscoveredEndpoint e;
  e.guid = guid(participant, entity);
  e.participant = guid(participant, 0);
  e.writer = writer;
  e.topic = std::move(topic);
  e.type = std::move(type);
  e.qos.user_data = std::move(user_data);
  return e;
}

ParticipantEntities entities(uint8_t participant, std::string ns, std::string name,
                             std::vector<uint8_t> writers, std::vector<uint8_t> readers = {}) {
  ParticipantEntities p;
  p.gid = guid(participant, 0);
  auto& n = p.node(ns, name);
  for (uint8_t w : writers) n.writers.push_back(guid(participant, w));
  for (uint8_t r : readers) n.readers.push_back(guid(participant, r));
  return p;
}

TEST(DdsNames, bad_and_foreign_names_are_not_ros_names) {
  EXPECT_EQ(ros_name_of("").kind, DdsTopicKind::NotRos);
  EXPECT_EQ(ros_name_of("rt/").kind, DdsTopicKind::NotRos);
  EXPECT_EQ(ros_name_of("ros_discovery_info").kind, DdsTopicKind::NotRos);
  EXPECT_EQ(ros_name_of("rq/addReply").kind, DdsTopicKind::NotRos);  // wrong suffix
  EXPECT_EQ(ros_name_of("rr/addRequest").kind, DdsTopicKind::NotRos);
  EXPECT_EQ(ros_name_of("rq/Request").kind, DdsTopicKind::NotRos);  // no service name
  EXPECT_EQ(ros_type_of("Plain"), "Plain");                         // not a ROS type: as is
  EXPECT_EQ(ros_type_of("pkg::msg::Name_"), "pkg::msg::Name_");
  EXPECT_EQ(ros_service_type_of("std_msgs::msg::dds_::String_"), "");
  EXPECT_EQ(ros_service_type_of("no_namespace_Request_"), "");
}

TEST(DdsNames, ros_topics_services_and_types_are_demangled_as_rmw_dds_common_does) {
  EXPECT_EQ(ros_name_of("rt/chatter"), (RosName{DdsTopicKind::Topic, "/chatter"}));
  EXPECT_EQ(ros_name_of("rt/robot/cmd_vel"), (RosName{DdsTopicKind::Topic, "/robot/cmd_vel"}));
  EXPECT_EQ(ros_name_of("rq/ns/add_two_intsRequest"),
            (RosName{DdsTopicKind::ServiceRequest, "/ns/add_two_ints"}));
  EXPECT_EQ(ros_name_of("rr/ns/add_two_intsReply"),
            (RosName{DdsTopicKind::ServiceReply, "/ns/add_two_ints"}));
  EXPECT_EQ(ros_type_of("std_msgs::msg::dds_::String_"), "std_msgs/msg/String");
  EXPECT_EQ(ros_type_of(dds_type_name("sensor_msgs/msg/Image")), "sensor_msgs/msg/Image");
  EXPECT_EQ(ros_service_type_of("example_interfaces::srv::dds_::AddTwoInts_Request_"),
            "example_interfaces/srv/AddTwoInts");
  EXPECT_EQ(ros_service_type_of("rcl_interfaces::srv::dds_::GetParameters_Response_"),
            "rcl_interfaces/srv/GetParameters");
}

TEST(DdsGraphCache, rihs01_parses_only_the_full_hash) {
  EXPECT_FALSE(parse_rihs01("").has_value());
  EXPECT_FALSE(parse_rihs01("RIHS01_abc").has_value());
  EXPECT_FALSE(parse_rihs01("RIHS01_" + std::string(63, 'a') + "g").has_value());
  auto h = parse_rihs01("RIHS01_0f" + std::string(62, '0'));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ((*h)[0], 0x0f);
  EXPECT_EQ((*h)[31], 0);
}

TEST(DdsGraphCache, endpoint_is_filed_under_the_node_that_lists_its_gid) {
  DdsGraphCache sut;
  EXPECT_TRUE(sut.add_participant(guid(1, 0), "enclave=/secure;"));
  EXPECT_TRUE(sut.add_endpoint(endpoint(1, 3, true, "rt/chatter", "std_msgs::msg::dds_::String_",
                                        "typehash=" + HASH + ";")));
  EXPECT_TRUE(sut.add_endpoint(endpoint(1, 4, false, "rq/addRequest",
                                        "example_interfaces::srv::dds_::AddTwoInts_Request_")));
  EXPECT_TRUE(sut.update_participant_entities(entities(1, "/robot", "talker", {3}, {4})));
  EXPECT_FALSE(sut.update_participant_entities(entities(1, "/robot", "talker", {3}, {4})));

  const DdsGraph g = sut.snapshot(LOCAL_TAG);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].node_namespace, "/robot");
  EXPECT_EQ(g.nodes[0].node_name, "talker");
  EXPECT_EQ(g.nodes[0].enclave, "/secure");
  ASSERT_EQ(g.endpoints.size(), 2u);
  const auto& pub = g.endpoints[0];  // ordered by GUID
  EXPECT_EQ(pub.ros, (RosName{DdsTopicKind::Topic, "/chatter"}));
  EXPECT_EQ(pub.ros_type, "std_msgs/msg/String");
  ASSERT_TRUE(pub.type_hash.has_value());
  EXPECT_EQ((*pub.type_hash)[0], 0xaa);
  EXPECT_EQ(pub.node, 0);
  const auto& server = g.endpoints[1];
  EXPECT_EQ(server.ros, (RosName{DdsTopicKind::ServiceRequest, "/add"}));
  EXPECT_EQ(server.ros_type, "example_interfaces/srv/AddTwoInts");
  EXPECT_FALSE(server.type_hash.has_value());
  EXPECT_EQ(server.node, 0);
}

TEST(DdsGraphCache, endpoint_no_node_lists_is_unknown_or_bare_dds) {
  DdsGraphCache sut;
  sut.add_participant(guid(1, 0), "");
  sut.add_participant(guid(2, 0), "");
  sut.update_participant_entities(entities(1, "/", "n", {}));
  sut.add_endpoint(endpoint(1, 3, true, "rt/a", "T"));  // participant 1 lists nodes, not this
  sut.add_endpoint(endpoint(2, 3, true, "rt/a", "T"));  // participant 2 publishes no nodes
  const DdsGraph g = sut.snapshot(LOCAL_TAG);
  ASSERT_EQ(g.endpoints.size(), 2u);
  EXPECT_EQ(g.endpoints[0].node, -1);
  EXPECT_TRUE(g.endpoints[0].participant_has_nodes);
  EXPECT_EQ(g.endpoints[1].node, -1);
  EXPECT_FALSE(g.endpoints[1].participant_has_nodes);
}

TEST(DdsGraphCache, same_shm_tag_participants_and_endpoints_are_left_out) {
  DdsGraphCache sut;
  const std::string local = std::string("enclave=/;baton=") + LOCAL_TAG + ";";
  sut.add_participant(guid(1, 0), local);                                 // a baton peer here
  sut.add_participant(guid(2, 0), "enclave=/;baton=boot.1.1000.other;");  // another shm domain
  sut.update_participant_entities(entities(1, "/", "local_node", {3}));
  sut.update_participant_entities(entities(2, "/", "remote_node", {3}));
  sut.add_endpoint(endpoint(1, 3, true, "rt/a", "T", "typehash=" + HASH + ";"));
  sut.add_endpoint(endpoint(2, 3, true, "rt/a", "T", "baton=boot.1.1000.other;"));
  // A same-tag endpoint whose participant is not known (yet): its own tag decides.
  sut.add_endpoint(endpoint(7, 3, true, "rt/a", "T", std::string("baton=") + LOCAL_TAG + ";"));
  const DdsGraph g = sut.snapshot(LOCAL_TAG);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].node_name, "remote_node");
  ASSERT_EQ(g.endpoints.size(), 1u);
  EXPECT_EQ(g.endpoints[0].dds.participant, guid(2, 0));
  EXPECT_EQ(g.endpoints[0].node, 0);
  // With no local tag nothing is left out.
  EXPECT_EQ(sut.snapshot("").nodes.size(), 2u);
  EXPECT_EQ(sut.snapshot("").endpoints.size(), 3u);
}

TEST(DdsGraphCache, participant_leaving_takes_its_nodes_and_endpoints) {
  DdsGraphCache sut;
  sut.add_participant(guid(1, 0), "");
  sut.update_participant_entities(entities(1, "/", "n", {3}));
  sut.add_endpoint(endpoint(1, 3, true, "rt/a", "T"));
  sut.add_endpoint(endpoint(1, 4, false, "rt/b", "T"));
  EXPECT_TRUE(sut.remove_endpoint(guid(1, 4)));
  EXPECT_FALSE(sut.remove_endpoint(guid(1, 4)));
  EXPECT_EQ(sut.snapshot(LOCAL_TAG).endpoints.size(), 1u);
  EXPECT_TRUE(sut.remove_participant(guid(1, 0)));
  const DdsGraph g = sut.snapshot(LOCAL_TAG);
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_TRUE(g.endpoints.empty());
  EXPECT_FALSE(sut.remove_participant(guid(1, 0)));
}

TEST(DdsGraphCache, discovery_info_before_its_participant_is_listed_once_it_is_seen) {
  DdsGraphCache sut;
  EXPECT_FALSE(sut.update_participant_entities(entities(1, "/", "early", {})));
  EXPECT_TRUE(sut.snapshot(LOCAL_TAG).nodes.empty());
  EXPECT_TRUE(sut.add_participant(guid(1, 0), ""));
  const DdsGraph g = sut.snapshot(LOCAL_TAG);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].node_name, "early");
}

}  // namespace
}  // namespace baton::ros2
