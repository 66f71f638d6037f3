// A point-in-time copy of the graph registry, as plain values, plus the ROS-style views derived
// from it (topics with their types and counts, services, a node's endpoints).
//
// Staleness: each entry in a snapshot was consistent on its own when read (seqlock-checked),
// but the scan is not atomic across entries: a registration or removal racing the scan may be
// missing or still present. `consistent` says whether the registry's epoch was unchanged over
// the whole scan; if so, the snapshot equals the registry at that epoch.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/graph/registry_layout.hpp"
#include "baton/topic/topic_layout.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::graph {

constexpr std::string_view to_string(EndpointKind k) noexcept {
  switch (k) {
    case EndpointKind::Publisher:
      return "publisher";
    case EndpointKind::Subscription:
      return "subscription";
    case EndpointKind::Service:
      return "service";
    case EndpointKind::Client:
      return "client";
  }
  return "unknown";
}

// The QoS facts discovery shares (what `ros2 topic info -v` shows).
struct EndpointQos {
  std::uint32_t depth = 0;
  topic::Reliability reliability = topic::Reliability::Reliable;
  topic::Durability durability = topic::Durability::Volatile;
  bool operator==(const EndpointQos&) const = default;
};

struct ParticipantInfo {
  std::uint32_t index = 0;
  std::uint32_t pid = 0;
  std::uint64_t start_time = 0;
};

struct NodeInfo {
  std::string name;
  std::string namespace_;
  std::string fully_qualified_name;  // "/ns/name", or "/name" in the root namespace
  std::uint32_t pid = 0;
  std::uint32_t index = 0;       // entry index in the node table
  std::uint32_t generation = 0;  // of that entry: (index, generation) names one registration
};

// An endpoint's global id as its ROS layer names it (16 bytes, as rmw_gid_t); zero when none.
using EndpointGid = std::array<std::uint8_t, 16>;

struct EndpointInfo {
  EndpointKind kind = EndpointKind::Publisher;
  std::string name;  // topic or service name
  topic::TypeInfo type;
  EndpointQos qos;
  std::string node_fully_qualified_name;  // empty if the node entry is gone or unreadable
  std::uint32_t node_index = 0;           // the node's (index, generation), as in NodeInfo
  std::uint32_t node_generation = 0;
  std::uint32_t pid = 0;
  std::uint32_t index = 0;  // entry index in the endpoint table
  EndpointGid gid{};        // as registered; zero when the registrant gave none
};

struct TopicInfo {
  std::string name;
  std::vector<std::string> types;  // sorted, unique; more than one means a type conflict
  std::uint32_t publisher_count = 0;
  std::uint32_t subscription_count = 0;
};

struct ServiceInfo {
  std::string name;
  std::vector<std::string> types;
  std::uint32_t server_count = 0;
  std::uint32_t client_count = 0;
};

struct NodeDetail {
  NodeInfo node;
  std::vector<EndpointInfo> publishers;
  std::vector<EndpointInfo> subscriptions;
  std::vector<EndpointInfo> services;
  std::vector<EndpointInfo> clients;
};

enum class Table : std::uint8_t { Header, Participants, Nodes, Endpoints };

constexpr std::string_view to_string(Table t) noexcept {
  switch (t) {
    case Table::Header:
      return "header";
    case Table::Participants:
      return "participants";
    case Table::Nodes:
      return "nodes";
    case Table::Endpoints:
      return "endpoints";
  }
  return "unknown";
}

// An entry a reader skipped because a field was out of range (a bug or a hostile writer).
struct GraphIssue {
  Table table = Table::Header;
  std::uint32_t index = 0;
  std::string what;
};

struct GraphSnapshot {
  std::uint64_t epoch = 0;
  bool consistent = false;
  std::vector<ParticipantInfo> participants;
  std::vector<NodeInfo> nodes;
  std::vector<EndpointInfo> endpoints;
  std::vector<GraphIssue> issues;  // corrupt entries skipped; empty in a healthy registry

  // Topics (publishers and subscriptions), sorted by name.
  std::vector<TopicInfo> topics() const;
  // Services (servers and clients), sorted by name.
  std::vector<ServiceInfo> services() const;
  // Every endpoint of topic or service `name`, in table order.
  std::vector<EndpointInfo> endpoints_of(std::string_view name) const;
  // The node with fully qualified name `fq` ("/ns/name") and its endpoints; the first match if
  // several nodes share the name (ROS allows it, with a warning).
  std::optional<NodeDetail> node_info(std::string_view fq) const;
};

}  // namespace baton::graph
