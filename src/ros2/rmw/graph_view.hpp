// rmw_graph.cpp's one view of the ROS graph, as rmw reports it: baton's shared-memory graph
// registry (this shm domain; plumbing of baton's own C++ services left out) followed by the DDS
// peers outside it (the context wire's graph cache: other RMWs, baton in other shm domains).
// Nothing is listed twice: baton endpoints of this shm domain are in the registry only.
#pragma once

#include <rmw/types.h>
#include <rosidl_runtime_c/type_hash.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "baton/graph/graph_snapshot.hpp"

namespace baton::ros2::rmw {

struct GraphViewNode {
  std::string name;
  std::string namespace_;
  std::string enclave;
};

struct GraphViewEndpoint {
  // Topics: Publisher / Subscription. Services: Service / Client (on DDS, the reader / writer of
  // "rq/<service>Request", as rmw_dds_common counts them).
  graph::EndpointKind kind = graph::EndpointKind::Publisher;
  // The ROS topic or service name; for a DDS endpoint that has none ("rr/…Reply", a bare DDS
  // topic) the DDS topic, with `ros` false.
  std::string name;
  bool ros = true;
  std::string dds_topic;  // DDS endpoints: the DDS topic; empty for baton's registry
  std::string dds_type;   // DDS endpoints: the DDS type ("std_msgs::msg::dds_::String_")
  bool writer = true;     // a publisher / DDS writer (the endpoint type of *_info_by_topic)
  std::string type;
  rosidl_type_hash_t hash{};  // version 0 when unknown
  rmw_qos_profile_t qos{};
  std::array<uint8_t, RMW_GID_STORAGE_SIZE> gid{};
  int node = -1;          // index into GraphView::nodes, -1: none
  std::string node_name;  // as *_info_by_topic names it (placeholders when node < 0)
  std::string node_namespace;
};

struct GraphView {
  std::vector<GraphViewNode> nodes;
  std::vector<GraphViewEndpoint> endpoints;
};

// The view for `node`'s context (a node check_handle accepted), or false (rmw error set, naming
// `function`).
bool graph_view_of(const rmw_node_t* node, const char* function, GraphView& out);

}  // namespace baton::ros2::rmw
