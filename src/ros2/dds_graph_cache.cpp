// The graph of foreign DDS peers: see include/baton/ros2/dds_graph_cache.hpp.
#include "baton/ros2/dds_graph_cache.hpp"

#include <algorithm>

#include "shm_peer_tag.hpp"

namespace baton::ros2 {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::array<uint8_t, 32>> parse_rihs01(std::string_view text) {
  constexpr std::string_view PREFIX = "RIHS01_";
  if (!text.starts_with(PREFIX) || text.size() != PREFIX.size() + 64) return std::nullopt;
  std::array<uint8_t, 32> out{};
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit(text[PREFIX.size() + 2 * i]);
    const int lo = hex_digit(text[PREFIX.size() + 2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

bool DdsGraphCache::add_participant(const Guid& gid, std::string user_data) {
  auto [it, added] = participants_.try_emplace(gid);
  bool changed = added || it->second.user_data != user_data;
  it->second.user_data = std::move(user_data);
  if (auto early = early_entities_.find(gid); early != early_entities_.end()) {
    it->second.entities = std::move(early->second);
    early_entities_.erase(early);
    changed = true;
  }
  return changed;
}

bool DdsGraphCache::remove_participant(const Guid& gid) {
  bool changed = participants_.erase(gid) > 0;
  changed |= early_entities_.erase(gid) > 0;
  changed |=
      std::erase_if(endpoints_, [&](const auto& e) { return e.second.participant == gid; }) > 0;
  return changed;
}

bool DdsGraphCache::update_participant_entities(ParticipantEntities entities) {
  auto it = participants_.find(entities.gid);
  if (it == participants_.end()) {
    early_entities_[entities.gid] = std::move(entities);
    return false;  // not listed before its participant is seen
  }
  if (it->second.entities == entities) return false;
  it->second.entities = std::move(entities);
  return true;
}

bool DdsGraphCache::add_endpoint(DiscoveredEndpoint endpoint) {
  auto [it, added] = endpoints_.try_emplace(endpoint.guid, endpoint);
  if (added) return true;
  if (it->second == endpoint) return false;
  it->second = std::move(endpoint);
  return true;
}

bool DdsGraphCache::remove_endpoint(const Guid& gid) { return endpoints_.erase(gid) > 0; }

DdsGraph DdsGraphCache::snapshot(std::string_view local_tag) const {
  DdsGraph out;
  // (participant, node index in its entities) -> index in out.nodes.
  std::map<std::pair<Guid, size_t>, int> node_index;
  for (const auto& [gid, p] : participants_) {
    if (has_shm_tag(bytes_of(p.user_data), local_tag) || !p.entities) continue;
    const auto kv = parse_user_data(bytes_of(p.user_data));
    const auto enclave = kv.find("enclave");
    for (size_t i = 0; i < p.entities->nodes.size(); ++i) {
      const NodeEntities& n = p.entities->nodes[i];
      node_index[{gid, i}] = static_cast<int>(out.nodes.size());
      out.nodes.push_back(DdsGraphNode{n.node_namespace, n.node_name,
                                       enclave == kv.end() ? std::string() : enclave->second});
    }
  }
  for (const auto& [gid, e] : endpoints_) {
    if (has_shm_tag(bytes_of(e.qos.user_data), local_tag)) continue;
    const auto participant = participants_.find(e.participant);
    if (participant != participants_.end() &&
        has_shm_tag(bytes_of(participant->second.user_data), local_tag))
      continue;
    DdsGraphEndpoint g;
    g.dds = e;
    g.ros = ros_name_of(e.topic);
    g.ros_type =
        g.ros.kind == DdsTopicKind::ServiceRequest || g.ros.kind == DdsTopicKind::ServiceReply
            ? ros_service_type_of(e.type)
            : ros_type_of(e.type);
    const auto kv = parse_user_data(bytes_of(e.qos.user_data));
    if (const auto hash = kv.find("typehash"); hash != kv.end())
      g.type_hash = parse_rihs01(hash->second);
    if (participant != participants_.end() && participant->second.entities) {
      g.participant_has_nodes = true;
      const auto& nodes = participant->second.entities->nodes;
      for (size_t i = 0; i < nodes.size() && g.node < 0; ++i) {
        const auto& list = e.writer ? nodes[i].writers : nodes[i].readers;
        if (std::find(list.begin(), list.end(), e.guid) != list.end())
          g.node = node_index.at({e.participant, i});
      }
    }
    out.endpoints.push_back(std::move(g));
  }
  return out;
}

}  // namespace baton::ros2
