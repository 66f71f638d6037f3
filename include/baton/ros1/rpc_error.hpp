// Errors of XML-RPC calls to the ROS master or to another node's slave API (master_client.hpp,
// requestTopic). Every call has a deadline (NodeOptions::rpc_timeout), so none can hang.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::ros1 {

enum class RpcError : uint8_t {
  // No ROS_MASTER_URI (or NodeOptions::master_uri), or it is not http://host:port[/]: set it.
  NoMasterUri,
  // Nobody answers at the URI (connection refused, host unknown, connection lost): start roscore
  // or check ROS_MASTER_URI / the peer's address. detail names the URI and the method.
  Unreachable,
  // The peer accepted the connection but did not answer before the deadline.
  Timeout,
  // The peer answered with a status code other than 1 (detail: its status message), or an
  // XML-RPC fault.
  Fault,
  // The answer is not [code, status, value] with the value of the shape the method returns.
  BadResponse,
};

constexpr std::string_view to_string(RpcError e) noexcept {
  switch (e) {
    case RpcError::NoMasterUri:
      return "NoMasterUri";
    case RpcError::Unreachable:
      return "Unreachable";
    case RpcError::Timeout:
      return "Timeout";
    case RpcError::Fault:
      return "Fault";
    case RpcError::BadResponse:
      return "BadResponse";
  }
  return "?";
}

}  // namespace baton::ros1
