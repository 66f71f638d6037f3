// XML-RPC calls with a deadline (xmlrpc_call.hpp). xmlrpcpp's blocking execute() waits without
// limit; executeNonBlock() plus driving the client's own dispatcher in slices does not.
#include "xmlrpc_call.hpp"

#include <xmlrpcpp/XmlRpc.h>

#include <charconv>

namespace baton::ros1::detail {
namespace {

using Err = Error<RpcError>;
using XmlRpc::XmlRpcValue;

std::optional<HttpUri> parse_uri(std::string_view uri, std::string_view scheme) {
  if (uri.substr(0, scheme.size()) != scheme) return std::nullopt;
  uri.remove_prefix(scheme.size());
  const auto slash = uri.find('/');
  std::string_view authority = uri.substr(0, slash);
  HttpUri out;
  out.path = slash == std::string_view::npos ? "/" : std::string(uri.substr(slash));
  const auto colon = authority.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  out.host = std::string(authority.substr(0, colon));
  const auto port = authority.substr(colon + 1);
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (ec != std::errc() || p != port.data() + port.size() || out.port <= 0 || out.port > 65535)
    return std::nullopt;
  return out;
}

}  // namespace

std::optional<HttpUri> parse_http_uri(std::string_view uri) { return parse_uri(uri, "http://"); }
std::optional<HttpUri> parse_rosrpc_uri(std::string_view uri) {
  return parse_uri(uri, "rosrpc://");
}

Result<XmlRpcValue, Err> ros_call(const std::string& uri, const char* method,
                                  const XmlRpcValue& params, std::chrono::milliseconds timeout,
                                  int* code_out) {
  if (code_out != nullptr) *code_out = 0;
  const std::string what = std::string(method) + " on " + uri;
  const auto parsed = parse_http_uri(uri);
  if (!parsed)
    return unexpected(Err{RpcError::Unreachable, what + ": not an http://host:port/ URI"});
  XmlRpc::XmlRpcClient client(parsed->host.c_str(), parsed->port, parsed->path.c_str());
  if (!client.executeNonBlock(method, params))
    return unexpected(Err{RpcError::Unreachable, what + ": cannot connect"});
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  XmlRpcValue answer;
  while (!client.executeCheckDone(answer)) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      client.close();
      return unexpected(Err{RpcError::Timeout, what + ": no answer within " +
                                                   std::to_string(timeout.count()) + " ms"});
    }
    // XmlRpcDispatch::work takes seconds; it returns early when the call completes or fails.
    client._disp.work(std::min(std::chrono::duration<double>(left).count(), 0.1));
  }
  if (client.isFault())
    return unexpected(Err{RpcError::Fault, what + ": XML-RPC fault " + answer.toXml()});
  if (!answer.valid())
    return unexpected(
        Err{RpcError::Unreachable, what + ": connection refused or lost before an answer"});
  try {
    if (answer.getType() != XmlRpcValue::TypeArray || answer.size() != 3 ||
        answer[0].getType() != XmlRpcValue::TypeInt)
      return unexpected(Err{RpcError::BadResponse,
                            what + ": answer " + answer.toXml() + " is not [code, status, value]"});
    const int code = answer[0];
    if (code_out != nullptr) *code_out = code;
    if (code != 1) {
      std::string status =
          answer[1].getType() == XmlRpcValue::TypeString ? std::string(answer[1]) : "";
      return unexpected(
          Err{RpcError::Fault, what + ": code " + std::to_string(code) + ": " + status});
    }
    return XmlRpcValue(answer[2]);
  } catch (const XmlRpc::XmlRpcException& e) {
    return unexpected(Err{RpcError::BadResponse, what + ": " + e.getMessage()});
  }
}

Result<std::vector<std::string>, Err> string_list(const XmlRpcValue& v, const std::string& what) {
  XmlRpcValue copy = v;  // operator[] of xmlrpcpp is non-const
  if (copy.getType() != XmlRpcValue::TypeArray)
    return unexpected(Err{RpcError::BadResponse, what + ": expected a list, got " + copy.toXml()});
  std::vector<std::string> out;
  for (int i = 0; i < copy.size(); ++i) {
    if (copy[i].getType() != XmlRpcValue::TypeString)
      return unexpected(
          Err{RpcError::BadResponse, what + ": expected strings, got " + copy[i].toXml()});
    out.push_back(copy[i]);
  }
  return out;
}

}  // namespace baton::ros1::detail
