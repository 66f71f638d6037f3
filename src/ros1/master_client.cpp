// MasterClient: the ROS master's XML-RPC API (master_client.hpp).
#include "baton/ros1/master_client.hpp"

#include "xmlrpc_call.hpp"
#include "xmlrpc_param.hpp"

namespace baton::ros1 {
namespace {

using detail::ros_call;
using XmlRpc::XmlRpcValue;
using Err = Error<RpcError>;

XmlRpcValue args(std::initializer_list<std::string> values) {
  XmlRpcValue out;
  out.setSize(static_cast<int>(values.size()));
  int i = 0;
  for (const auto& v : values) out[i++] = v;
  return out;
}

Result<int, Err> as_int(const XmlRpcValue& v, const std::string& what) {
  XmlRpcValue copy = v;
  if (copy.getType() != XmlRpcValue::TypeInt)
    return unexpected(Err{RpcError::BadResponse, what + ": expected an int, got " + copy.toXml()});
  return static_cast<int>(copy);
}

// [[topic, [node, ...]], ...]
Result<TopicEndpoints, Err> endpoints(XmlRpcValue& v, const std::string& what) {
  if (v.getType() != XmlRpcValue::TypeArray)
    return unexpected(Err{RpcError::BadResponse, what + ": expected a list, got " + v.toXml()});
  TopicEndpoints out;
  for (int i = 0; i < v.size(); ++i) {
    XmlRpcValue& entry = v[i];
    if (entry.getType() != XmlRpcValue::TypeArray || entry.size() != 2 ||
        entry[0].getType() != XmlRpcValue::TypeString)
      return unexpected(
          Err{RpcError::BadResponse, what + ": expected [name, [nodes]], got " + entry.toXml()});
    auto nodes = detail::string_list(entry[1], what);
    if (!nodes) return unexpected(nodes.error());
    out.emplace_back(std::string(entry[0]), std::move(*nodes));
  }
  return out;
}

// [[a, b], ...] of strings.
Result<TopicTypes, Err> pairs(XmlRpcValue& v, const std::string& what) {
  if (v.getType() != XmlRpcValue::TypeArray)
    return unexpected(Err{RpcError::BadResponse, what + ": expected a list, got " + v.toXml()});
  TopicTypes out;
  for (int i = 0; i < v.size(); ++i) {
    auto pair = detail::string_list(v[i], what);
    if (!pair) return unexpected(pair.error());
    if (pair->size() != 2)
      return unexpected(Err{RpcError::BadResponse, what + ": expected pairs, got " + v.toXml()});
    out.emplace_back((*pair)[0], (*pair)[1]);
  }
  return out;
}

}  // namespace

MasterClient::MasterClient(std::string master_uri, std::string caller_id,
                           std::chrono::milliseconds timeout)
    : master_uri_(std::move(master_uri)), caller_id_(std::move(caller_id)), timeout_(timeout) {}

// register{Publisher,Subscriber}: [caller_id, topic, type, caller_api] -> the other side's URIs.
Result<std::vector<std::string>, Err> MasterClient::register_as(const char* method,
                                                                const std::string& topic,
                                                                const std::string& type,
                                                                const std::string& api) const {
  auto v = ros_call(master_uri_, method, args({caller_id_, topic, type, api}), timeout_);
  if (!v) return unexpected(v.error());
  return detail::string_list(*v, method + (" " + topic));
}

// unregister{Publisher,Subscriber}: [caller_id, topic, caller_api] -> registrations removed.
Result<int, Err> MasterClient::unregister_as(const char* method, const std::string& topic,
                                             const std::string& api) const {
  auto v = ros_call(master_uri_, method, args({caller_id_, topic, api}), timeout_);
  if (!v) return unexpected(v.error());
  return as_int(*v, method + (" " + topic));
}

Result<std::vector<std::string>, Err> MasterClient::register_publisher(
    const std::string& topic, const std::string& type, const std::string& caller_api) const {
  return register_as("registerPublisher", topic, type, caller_api);
}

Result<std::vector<std::string>, Err> MasterClient::register_subscriber(
    const std::string& topic, const std::string& type, const std::string& caller_api) const {
  return register_as("registerSubscriber", topic, type, caller_api);
}

Result<int, Err> MasterClient::unregister_publisher(const std::string& topic,
                                                    const std::string& caller_api) const {
  return unregister_as("unregisterPublisher", topic, caller_api);
}

Result<int, Err> MasterClient::unregister_subscriber(const std::string& topic,
                                                     const std::string& caller_api) const {
  return unregister_as("unregisterSubscriber", topic, caller_api);
}

Result<std::string, Err> MasterClient::lookup_node(const std::string& node_name) const {
  auto v = ros_call(master_uri_, "lookupNode", args({caller_id_, node_name}), timeout_);
  if (!v) return unexpected(v.error());
  if (v->getType() != XmlRpcValue::TypeString)
    return unexpected(Err{RpcError::BadResponse, "lookupNode: expected a URI, got " + v->toXml()});
  return std::string(*v);
}

Result<SystemState, Err> MasterClient::get_system_state() const {
  auto v = ros_call(master_uri_, "getSystemState", args({caller_id_}), timeout_);
  if (!v) return unexpected(v.error());
  if (v->getType() != XmlRpcValue::TypeArray || v->size() != 3)
    return unexpected(Err{RpcError::BadResponse,
                          "getSystemState: expected [pubs, subs, srvs], got " + v->toXml()});
  SystemState out;
  TopicEndpoints* parts[] = {&out.publishers, &out.subscribers, &out.services};
  for (int i = 0; i < 3; ++i) {
    auto e = endpoints((*v)[i], "getSystemState");
    if (!e) return unexpected(e.error());
    *parts[i] = std::move(*e);
  }
  return out;
}

Result<TopicTypes, Err> MasterClient::get_published_topics(const std::string& subgraph) const {
  auto v = ros_call(master_uri_, "getPublishedTopics", args({caller_id_, subgraph}), timeout_);
  if (!v) return unexpected(v.error());
  return pairs(*v, "getPublishedTopics");
}

Result<TopicTypes, Err> MasterClient::get_topic_types() const {
  auto v = ros_call(master_uri_, "getTopicTypes", args({caller_id_}), timeout_);
  if (!v) return unexpected(v.error());
  return pairs(*v, "getTopicTypes");
}

Result<int, Err> MasterClient::register_service(const std::string& service,
                                                const std::string& service_api,
                                                const std::string& caller_api) const {
  auto v = ros_call(master_uri_, "registerService",
                    args({caller_id_, service, service_api, caller_api}), timeout_);
  if (!v) return unexpected(v.error());
  return as_int(*v, "registerService " + service);
}

Result<int, Err> MasterClient::unregister_service(const std::string& service,
                                                  const std::string& service_api) const {
  auto v = ros_call(master_uri_, "unregisterService", args({caller_id_, service, service_api}),
                    timeout_);
  if (!v) return unexpected(v.error());
  return as_int(*v, "unregisterService " + service);
}

Result<std::string, Err> MasterClient::lookup_service(const std::string& service) const {
  auto v = ros_call(master_uri_, "lookupService", args({caller_id_, service}), timeout_);
  if (!v) return unexpected(v.error());
  if (v->getType() != XmlRpcValue::TypeString)
    return unexpected(
        Err{RpcError::BadResponse, "lookupService: expected a URI, got " + v->toXml()});
  return std::string(*v);
}

Result<ParamValue, Err> MasterClient::get_param(const std::string& key) const {
  auto v = ros_call(master_uri_, "getParam", args({caller_id_, key}), timeout_);
  if (!v) return unexpected(v.error());
  return detail::from_xmlrpc(*v, "getParam " + key);
}

Status<Err> MasterClient::set_param(const std::string& key, const ParamValue& value) const {
  XmlRpcValue params = args({caller_id_, key});
  params[2] = detail::to_xmlrpc(value);
  auto v = ros_call(master_uri_, "setParam", params, timeout_);
  if (!v) return unexpected(v.error());
  return Ok{};
}

Result<bool, Err> MasterClient::has_param(const std::string& key) const {
  auto v = ros_call(master_uri_, "hasParam", args({caller_id_, key}), timeout_);
  if (!v) return unexpected(v.error());
  if (v->getType() != XmlRpcValue::TypeBoolean)
    return unexpected(Err{RpcError::BadResponse, "hasParam: expected a bool, got " + v->toXml()});
  return static_cast<bool>(*v);
}

Status<Err> MasterClient::delete_param(const std::string& key) const {
  auto v = ros_call(master_uri_, "deleteParam", args({caller_id_, key}), timeout_);
  if (!v) return unexpected(v.error());
  return Ok{};
}

Result<std::optional<std::string>, Err> MasterClient::search_param(const std::string& key) const {
  int code = 0;
  auto v = ros_call(master_uri_, "searchParam", args({caller_id_, key}), timeout_, &code);
  if (!v && code == -1) return std::optional<std::string>();  // the master found none
  if (!v) return unexpected(v.error());
  if (v->getType() != XmlRpcValue::TypeString)
    return unexpected(Err{RpcError::BadResponse, "searchParam: expected a key, got " + v->toXml()});
  return std::optional<std::string>(std::string(*v));
}

Result<int, Err> MasterClient::get_pid() const {
  auto v = ros_call(master_uri_, "getPid", args({caller_id_}), timeout_);
  if (!v) return unexpected(v.error());
  return as_int(*v, "getPid");
}

}  // namespace baton::ros1
