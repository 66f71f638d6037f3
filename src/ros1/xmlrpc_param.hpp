// Private to baton_ros1: ParamValue <-> XmlRpcValue, for the parameter server calls.
#pragma once

#include <xmlrpcpp/XmlRpcValue.h>

#include <string>

#include "baton/common/result.hpp"
#include "baton/ros1/param_value.hpp"
#include "baton/ros1/rpc_error.hpp"

namespace baton::ros1::detail {

XmlRpc::XmlRpcValue to_xmlrpc(const ParamValue& v);
// BadResponse (detail: `what` and the value) for what a parameter cannot be: base64, dateTime,
// an invalid value, or nesting deeper than 64 levels.
Result<ParamValue, Error<RpcError>> from_xmlrpc(const XmlRpc::XmlRpcValue& v,
                                                const std::string& what);

}  // namespace baton::ros1::detail
