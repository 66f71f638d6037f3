#include "baton/graph/graph_snapshot.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace baton::graph {
namespace {

bool is_topic_kind(EndpointKind k) {
  return k == EndpointKind::Publisher || k == EndpointKind::Subscription;
}

}  // namespace

std::vector<TopicInfo> GraphSnapshot::topics() const {
  std::map<std::string, std::pair<TopicInfo, std::set<std::string>>> by_name;
  for (const auto& e : endpoints) {
    if (!is_topic_kind(e.kind)) continue;
    auto& [info, types] = by_name[e.name];
    info.name = e.name;
    types.insert(e.type.name);
    if (e.kind == EndpointKind::Publisher) {
      ++info.publisher_count;
    } else {
      ++info.subscription_count;
    }
  }
  std::vector<TopicInfo> out;
  out.reserve(by_name.size());
  for (auto& [name, entry] : by_name) {
    entry.first.types.assign(entry.second.begin(), entry.second.end());
    out.push_back(std::move(entry.first));
  }
  return out;
}

std::vector<ServiceInfo> GraphSnapshot::services() const {
  std::map<std::string, std::pair<ServiceInfo, std::set<std::string>>> by_name;
  for (const auto& e : endpoints) {
    if (is_topic_kind(e.kind)) continue;
    auto& [info, types] = by_name[e.name];
    info.name = e.name;
    types.insert(e.type.name);
    if (e.kind == EndpointKind::Service) {
      ++info.server_count;
    } else {
      ++info.client_count;
    }
  }
  std::vector<ServiceInfo> out;
  out.reserve(by_name.size());
  for (auto& [name, entry] : by_name) {
    entry.first.types.assign(entry.second.begin(), entry.second.end());
    out.push_back(std::move(entry.first));
  }
  return out;
}

std::vector<EndpointInfo> GraphSnapshot::endpoints_of(std::string_view name) const {
  std::vector<EndpointInfo> out;
  for (const auto& e : endpoints) {
    if (e.name == name) out.push_back(e);
  }
  return out;
}

std::optional<NodeDetail> GraphSnapshot::node_info(std::string_view fq) const {
  auto it = std::find_if(nodes.begin(), nodes.end(),
                         [&](const NodeInfo& n) { return n.fully_qualified_name == fq; });
  if (it == nodes.end()) return std::nullopt;
  NodeDetail d;
  d.node = *it;
  for (const auto& e : endpoints) {
    if (e.node_index != it->index || e.node_generation != it->generation) continue;
    switch (e.kind) {
      case EndpointKind::Publisher:
        d.publishers.push_back(e);
        break;
      case EndpointKind::Subscription:
        d.subscriptions.push_back(e);
        break;
      case EndpointKind::Service:
        d.services.push_back(e);
        break;
      case EndpointKind::Client:
        d.clients.push_back(e);
        break;
    }
  }
  return d;
}

}  // namespace baton::graph
