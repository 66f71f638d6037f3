// MasterClient: the ROS master's XML-RPC API (http://wiki.ros.org/ROS/Master_API) as a node calls
// it: registration of publishers, subscribers and services, the graph queries tools use, and the
// parameter server. Each call
// opens its own connection and has a deadline, so calls from several threads are fine and none
// can hang (an unreachable master is RpcError::Unreachable, a silent one RpcError::Timeout).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/param_value.hpp"
#include "baton/ros1/rpc_error.hpp"

namespace baton::ros1 {

using TopicEndpoints = std::vector<std::pair<std::string, std::vector<std::string>>>;
using TopicTypes = std::vector<std::pair<std::string, std::string>>;  // {topic, type}

// getSystemState's answer: for each topic (or service), the nodes on it.
struct SystemState {
  TopicEndpoints publishers;
  TopicEndpoints subscribers;
  TopicEndpoints services;
};

class MasterClient {
 public:
  // `master_uri`: "http://host:port/"; `caller_id`: the calling node's name ("/talker").
  MasterClient(std::string master_uri, std::string caller_id,
               std::chrono::milliseconds timeout = std::chrono::seconds(5));

  const std::string& master_uri() const noexcept { return master_uri_; }

  // Registers `caller_api` (the node's XML-RPC URI) as a publisher; returns the subscribers' URIs.
  Result<std::vector<std::string>, Error<RpcError>> register_publisher(
      const std::string& topic, const std::string& type, const std::string& caller_api) const;
  // Registers as a subscriber; returns the URIs of the topic's publishers now.
  Result<std::vector<std::string>, Error<RpcError>> register_subscriber(
      const std::string& topic, const std::string& type, const std::string& caller_api) const;
  // Both return how many registrations were removed (0 if there was none).
  Result<int, Error<RpcError>> unregister_publisher(const std::string& topic,
                                                    const std::string& caller_api) const;
  Result<int, Error<RpcError>> unregister_subscriber(const std::string& topic,
                                                     const std::string& caller_api) const;
  // The XML-RPC URI of node `node_name`; Fault if the master does not know it.
  Result<std::string, Error<RpcError>> lookup_node(const std::string& node_name) const;
  Result<SystemState, Error<RpcError>> get_system_state() const;
  // Topics with at least one publisher, under `subgraph` ("" for all).
  Result<TopicTypes, Error<RpcError>> get_published_topics(const std::string& subgraph = "") const;
  Result<TopicTypes, Error<RpcError>> get_topic_types() const;
  // The master's pid: a cheap "is it there" call.
  Result<int, Error<RpcError>> get_pid() const;

  // Services: `service_api` is the provider's TCPROS address, "rosrpc://host:port".
  Result<int, Error<RpcError>> register_service(const std::string& service,
                                                const std::string& service_api,
                                                const std::string& caller_api) const;
  // How many registrations were removed (0 if `service_api` was not the one registered).
  Result<int, Error<RpcError>> unregister_service(const std::string& service,
                                                  const std::string& service_api) const;
  // The provider's rosrpc:// URI; Fault when no node provides `service`.
  Result<std::string, Error<RpcError>> lookup_service(const std::string& service) const;

  // The parameter server (master_params.cpp). The master resolves `key` against this caller's
  // name: "/abs", "rel" (in the caller's namespace), "~private" (under the caller).
  // Fault when `key` is not set.
  Result<ParamValue, Error<RpcError>> get_param(const std::string& key) const;
  Status<Error<RpcError>> set_param(const std::string& key, const ParamValue& value) const;
  Result<bool, Error<RpcError>> has_param(const std::string& key) const;
  // Fault when `key` is not set.
  Status<Error<RpcError>> delete_param(const std::string& key) const;
  // The closest key named `key` from the caller's namespace upwards (nullopt: none).
  Result<std::optional<std::string>, Error<RpcError>> search_param(const std::string& key) const;

 private:
  Result<std::vector<std::string>, Error<RpcError>> register_as(const char* method,
                                                                const std::string& topic,
                                                                const std::string& type,
                                                                const std::string& api) const;
  Result<int, Error<RpcError>> unregister_as(const char* method, const std::string& topic,
                                             const std::string& api) const;

  std::string master_uri_;
  std::string caller_id_;
  std::chrono::milliseconds timeout_;
};

}  // namespace baton::ros1
