// Private to rmw_wire.cpp (topics) and rmw_service_wire.cpp (services), built with CycloneDDS
// only: the context's wire and the helpers both kinds of endpoint use.
#pragma once

#include <rmw/types.h>

#include <memory>
#include <string>
#include <string_view>

#include "../dds_graph_reader.hpp"
#include "../dds_wire.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/type_registry.hpp"

namespace baton::ros2::rmw {

struct NodeImpl;

struct ContextWire {
  TypeRegistry registry;  // outlives the participant, which borrows a description from it
  std::unique_ptr<Participant> participant;
  std::unique_ptr<DdsGraphReader> graph;  // null if its readers could not be made (warned)
};

// An endpoint's DDS QoS from the resolved rmw profile (as rmw_cyclonedds_cpp maps it), with the
// baton USER_DATA "baton=<shm tag>;typehash=<hash>;" and ignore-local.
WireQos wire_qos_of(const rmw_qos_profile_t& qos, const rosidl_type_hash_t& hash);

// The DDS topic of a ROS name: "<prefix>/chatter<suffix>" ("rt/chatter", "rq/addRequest"), or the
// name + suffix as is with avoid_ros_namespace_conventions (rmw_cyclonedds_cpp's make_fqtopic).
std::string dds_topic_of(const char* topic, const rmw_qos_profile_t& qos,
                         std::string_view prefix = "rt", std::string_view suffix = {});

// Lists a DDS endpoint (its GUID) under `node` in ros_discovery_info while the result lives.
Result<std::unique_ptr<DiscoveryListing>, std::string> list_endpoint(ContextWire& wire,
                                                                     const NodeImpl& node,
                                                                     const Guid& gid, bool reader);

}  // namespace baton::ros2::rmw
