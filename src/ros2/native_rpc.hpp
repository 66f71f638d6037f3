// Private to Service and Client: what a native service and client of one `.srv` type both
// derive from its ServiceDescription, so that they meet each other and rmw_baton_cpp's endpoints
// on the same baton topics and DDS topics.
#pragma once

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "baton/api/qos.hpp"
#include "baton/api/wait_set.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/topic/type_info.hpp"
#include "endpoint_qos.hpp"
#include "rpc_shm.hpp"
#include "rpc_wire.hpp"

namespace baton::ros2::detail {

struct NativeServiceTypes {
  topic::TypeInfo graph;           // the service type (name + RIHS01), as listed in baton's graph
  topic::TypeInfo request_topic;   // guards "<service>/_request"
  topic::TypeInfo response_topic;  // guards "<service>/_response/<client id>"
};

inline NativeServiceTypes native_service_types(const ServiceDescription& type) {
  // The service's hash is that of its synthesised description (null when service_msgs was not
  // found: then a zero hash, and only peers built the same way share the topics).
  const std::array<uint8_t, 32> hash =
      type.description != nullptr ? type_hash_bytes(*type.description) : std::array<uint8_t, 32>{};
  topic::TypeInfo graph;
  graph.name = type.full_name();
  graph.hash = hash;
  return {graph, service_topic_type(type.full_name(), "_Request", hash),
          service_topic_type(type.full_name(), "_Response", hash)};
}

// The DDS endpoints of service `resolved` ("/add") made on `node`: topics as ROS 2 mangles them,
// the request / response type hashes in USER_DATA.
inline RpcWireSpec native_rpc_spec(Node& node, const ServiceDescription& type,
                                   const std::string& resolved, const WireQos& qos) {
  return RpcWireSpec{resolved,
                     dds_topic_name(resolved, "rq") + "Request",
                     dds_topic_name(resolved, "rr") + "Reply",
                     type.full_name(),
                     endpoint_wire_qos(*type.request, qos),
                     endpoint_wire_qos(*type.response, qos),
                     node.get_namespace(),
                     node.name()};
}

// The native endpoints' log lines go to stderr (as Subscription's).
inline void log_native(const std::string& line) {
  std::fprintf(stderr, "[baton_ros2] %s\n", line.c_str());
}

// Opens the DDS endpoints of native service / client (`role`) `resolved` on `node` and adds their
// guard condition to `waitset` (next to the shared-memory port).
inline Result<std::unique_ptr<RpcWire>, Error<WireError>> open_native_wire(
    Node& node, RpcWire::Role role, const ServiceDescription& type, const std::string& resolved,
    const WireQos& qos, WaitSet& waitset) {
  auto wire =
      RpcWire::open(node.wire(), role, native_rpc_spec(node, type, resolved, qos), log_native);
  if (!wire) return unexpected(Error<WireError>{WireError::Endpoint, wire.error()});
  (void)waitset.add_guard_condition((*wire)->wait_guard());
  return std::move(*wire);
}

}  // namespace baton::ros2::detail
