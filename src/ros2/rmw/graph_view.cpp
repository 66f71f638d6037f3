// The merged graph view: see graph_view.hpp.
#include "graph_view.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "qos_map.hpp"
#include "rmw_impl.hpp"

namespace baton::ros2::rmw {
namespace {

using graph::EndpointInfo;
using graph::EndpointKind;
using graph::GraphSnapshot;
using graph::NodeInfo;

// What rmw_dds_common names an endpoint's node when no node lists it: its participant lists
// nodes (ros_discovery_info) but not this endpoint, or it is a bare DDS application.
constexpr const char* NODE_NAME_UNKNOWN = "_NODE_NAME_UNKNOWN_";
constexpr const char* NODE_NAMESPACE_UNKNOWN = "_NODE_NAMESPACE_UNKNOWN_";
constexpr const char* BARE_DDS_APP = "_CREATED_BY_BARE_DDS_APP_";

// The plumbing of baton's own C++ services (never shown by ROS).
bool is_plumbing_name(std::string_view name) {
  return name.ends_with("/_request") || name.find("/_response/") != std::string_view::npos;
}
bool is_plumbing_node(const NodeInfo& n) { return n.name.starts_with("_baton"); }

rosidl_type_hash_t hash_of(const std::array<uint8_t, 32>& bytes) {
  rosidl_type_hash_t h = rosidl_get_zero_initialized_type_hash();
  h.version = 1;
  std::memcpy(h.value, bytes.data(), sizeof h.value);
  return h;
}

void add_registry(const GraphSnapshot& g, GraphView& out) {
  // (index, generation) of a registry node -> index in out.nodes.
  auto node_of = [&](const EndpointInfo& e) -> int {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].index == e.node_index && g.nodes[i].generation == e.node_generation)
        return static_cast<int>(i);
    return -1;
  };
  for (const auto& n : g.nodes)  // one entry per registry node (plumbing ones filtered below)
    out.nodes.push_back(GraphViewNode{n.name, n.namespace_, "/"});  // baton has no enclaves
  for (const auto& e : g.endpoints) {
    if (is_plumbing_name(e.name)) continue;
    GraphViewEndpoint v;
    v.kind = e.kind;
    v.name = e.name;
    v.writer = e.kind == EndpointKind::Publisher || e.kind == EndpointKind::Client;
    v.type = e.type.name;
    v.hash = hash_of(e.type.hash);
    v.qos = qos_from_graph(e.qos);
    // The gid the endpoint registered (rmw_baton_cpp's own, gid.hpp); native baton endpoints
    // register none: then one the graph can name, [pid][endpoint entry index][kind].
    if (e.gid != graph::EndpointGid{}) {
      std::memcpy(v.gid.data(), e.gid.data(), e.gid.size());
    } else {
      std::memcpy(v.gid.data(), &e.pid, 4);
      std::memcpy(v.gid.data() + 4, &e.index, 4);
      v.gid[8] = static_cast<uint8_t>(e.kind);
    }
    v.node = node_of(e);
    v.node_name = v.node >= 0 ? g.nodes[v.node].name : NODE_NAME_UNKNOWN;
    v.node_namespace = v.node >= 0 ? g.nodes[v.node].namespace_ : NODE_NAMESPACE_UNKNOWN;
    out.endpoints.push_back(std::move(v));
  }
  // Plumbing nodes stay in `out.nodes` (endpoint indices point into it) but are never listed:
  // renamed to "" and skipped by the node queries.
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (is_plumbing_node(g.nodes[i])) out.nodes[i].name.clear();
}

void add_dds(const DdsGraph& d, GraphView& out) {
  const int base = static_cast<int>(out.nodes.size());
  for (const auto& n : d.nodes) out.nodes.push_back({n.node_name, n.node_namespace, n.enclave});
  for (const auto& e : d.endpoints) {
    GraphViewEndpoint v;
    v.dds_topic = e.dds.topic;
    v.dds_type = e.dds.type;
    v.writer = e.dds.writer;
    switch (e.ros.kind) {
      case DdsTopicKind::Topic:
        v.kind = e.dds.writer ? EndpointKind::Publisher : EndpointKind::Subscription;
        v.name = e.ros.name;
        break;
      case DdsTopicKind::ServiceRequest:  // a server reads requests, a client writes them
        v.kind = e.dds.writer ? EndpointKind::Client : EndpointKind::Service;
        v.name = e.ros.name;
        break;
      case DdsTopicKind::ServiceReply:  // the other half of a service / client: counted once
      case DdsTopicKind::NotRos:
        v.kind = e.dds.writer ? EndpointKind::Publisher : EndpointKind::Subscription;
        v.name = e.dds.topic;
        v.ros = false;
        break;
    }
    v.type = e.ros_type;
    v.hash = e.type_hash ? hash_of(*e.type_hash) : rosidl_get_zero_initialized_type_hash();
    v.qos = rmw_qos_of(e.dds.qos);
    std::memcpy(v.gid.data(), e.dds.guid.data(), std::min(v.gid.size(), e.dds.guid.size()));
    if (e.node >= 0) {
      v.node = base + e.node;
      v.node_name = out.nodes[v.node].name;
      v.node_namespace = out.nodes[v.node].namespace_;
    } else {
      v.node_name = e.participant_has_nodes ? NODE_NAME_UNKNOWN : BARE_DDS_APP;
      v.node_namespace = e.participant_has_nodes ? NODE_NAMESPACE_UNKNOWN : BARE_DDS_APP;
    }
    out.endpoints.push_back(std::move(v));
  }
}

}  // namespace

bool graph_view_of(const rmw_node_t* node, const char* function, GraphView& out) {
  ContextImpl& context = *static_cast<NodeImpl*>(node->data)->context;
  auto registry = context.context->graph();
  if (!registry) {
    set_error(function, "baton graph registry unavailable: " + registry.error().detail);
    return false;
  }
  out = GraphView{};
  add_registry((*registry)->snapshot(), out);
  add_dds(wire_graph(context.wire.get()), out);  // wire: DDS peers outside this shm domain
  return true;
}

}  // namespace baton::ros2::rmw
