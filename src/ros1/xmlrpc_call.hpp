// Private to baton_ros1: one XML-RPC call with a deadline, through xmlrpcpp's non-blocking client,
// and the ROS convention that every API answers [code, statusMessage, value].
#pragma once

#include <xmlrpcpp/XmlRpcValue.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "baton/common/result.hpp"
#include "baton/ros1/rpc_error.hpp"

namespace baton::ros1::detail {

struct HttpUri {
  std::string host;
  int port = 0;
  std::string path;  // "/" when absent
};

// "http://host:port[/path]" (the form ROS uses for masters and nodes), or nullopt.
std::optional<HttpUri> parse_http_uri(std::string_view uri);
// "rosrpc://host:port" (a service provider's TCPROS address, as the master hands it out).
std::optional<HttpUri> parse_rosrpc_uri(std::string_view uri);

// Calls `method` on `uri` and returns the value of a ROS API answer whose code is 1. Errors:
// Unreachable, Timeout, Fault (code != 1 or an XML-RPC fault), BadResponse (not [int, string,
// value]). Details name the URI and the method. `code`, when given, gets the answer's code (0 when
// there was no well-formed answer), e.g. to tell "not found" (-1) from other faults.
Result<XmlRpc::XmlRpcValue, Error<RpcError>> ros_call(const std::string& uri, const char* method,
                                                      const XmlRpc::XmlRpcValue& params,
                                                      std::chrono::milliseconds timeout,
                                                      int* code = nullptr);

// A list of strings from an answer value (BadResponse if it is not one).
Result<std::vector<std::string>, Error<RpcError>> string_list(const XmlRpc::XmlRpcValue& v,
                                                              const std::string& what);

}  // namespace baton::ros1::detail
