// Errors of creating a ROS 1 node (Node::create) and its endpoints (advertise / subscribe).
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::ros1 {

enum class NodeError : uint8_t {
  // Neither NodeOptions::master_uri nor ROS_MASTER_URI (nor __master:=) gives http://host:port.
  NoMasterUri,
  // The master does not answer (detail: the URI, why, and that roscore may not be running).
  MasterUnreachable,
  // The node name (after __name / __ns remapping) is not a valid ROS graph name.
  BadName,
  // The node's XML-RPC or TCPROS server could not listen (detail: the address and errno text).
  Network,
};

constexpr std::string_view to_string(NodeError e) noexcept {
  switch (e) {
    case NodeError::NoMasterUri:
      return "NoMasterUri";
    case NodeError::MasterUnreachable:
      return "MasterUnreachable";
    case NodeError::BadName:
      return "BadName";
    case NodeError::Network:
      return "Network";
  }
  return "?";
}

enum class EndpointError : uint8_t {
  // The topic name is not a valid ROS graph name.
  BadName,
  // The message type cannot be loaded (detail: the package / file looked for, or the parse error).
  UnknownType,
  // This node already publishes (or subscribes to) the topic; keep using that endpoint.
  Duplicate,
  // The master did not take the registration (detail: RpcError and its detail).
  MasterFailed,
};

constexpr std::string_view to_string(EndpointError e) noexcept {
  switch (e) {
    case EndpointError::BadName:
      return "BadName";
    case EndpointError::UnknownType:
      return "UnknownType";
    case EndpointError::Duplicate:
      return "Duplicate";
    case EndpointError::MasterFailed:
      return "MasterFailed";
  }
  return "?";
}

}  // namespace baton::ros1
