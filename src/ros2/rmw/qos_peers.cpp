// QoS compatibility with shared-memory peers: see qos_peers.hpp.
#include "qos_peers.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "gid.hpp"
#include "qos_map.hpp"

namespace baton::ros2::rmw {

namespace {

bool longer(const rmw_time_t& a, const rmw_time_t& b) {
  return std::tie(a.sec, a.nsec) > std::tie(b.sec, b.nsec);
}

// The (slot, generation) a peer's gid names (gid.hpp; bit 31 marks a subscriber slot).
std::pair<uint32_t, uint32_t> slot_of(const graph::EndpointGid& gid) {
  uint32_t slot = 0, generation = 0;
  std::memcpy(&slot, gid.data() + 8, 4);
  std::memcpy(&generation, gid.data() + 12, 4);
  return {slot & 0x7fffffffu, generation};
}

// `q` with the policies the registry does not hold (deadline, liveliness) at what every peer
// is listed with (qos_from_graph), so that only reliability and durability are compared.
rmw_qos_profile_t comparable(rmw_qos_profile_t q) {
  const rmw_qos_profile_t listed = qos_from_graph({});
  q.deadline = listed.deadline;
  q.liveliness = listed.liveliness;
  q.liveliness_lease_duration = listed.liveliness_lease_duration;
  return q;
}

}  // namespace

rmw_qos_policy_kind_t incompatible_policy(const rmw_qos_profile_t& offered,
                                          const rmw_qos_profile_t& requested) {
  if (offered.reliability == RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT &&
      requested.reliability == RMW_QOS_POLICY_RELIABILITY_RELIABLE)
    return RMW_QOS_POLICY_RELIABILITY;
  if (offered.durability == RMW_QOS_POLICY_DURABILITY_VOLATILE &&
      requested.durability == RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL)
    return RMW_QOS_POLICY_DURABILITY;
  if (longer(offered.deadline, requested.deadline)) return RMW_QOS_POLICY_DEADLINE;
  if (offered.liveliness == RMW_QOS_POLICY_LIVELINESS_AUTOMATIC &&
      requested.liveliness == RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC)
    return RMW_QOS_POLICY_LIVELINESS;
  if (longer(offered.liveliness_lease_duration, requested.liveliness_lease_duration))
    return RMW_QOS_POLICY_LIVELINESS_LEASE_DURATION;
  return RMW_QOS_POLICY_INVALID;
}

QosPeers::QosPeers(std::shared_ptr<graph::Registry> registry, std::string topic,
                   graph::EndpointKind self, const rmw_qos_profile_t& qos)
    : registry_(std::move(registry)),
      topic_(std::move(topic)),
      topic_key_(topic_key(topic_)),
      self_(self),
      qos_(comparable(qos)) {}

void QosPeers::refresh() {
  if (!registry_) return;
  auto snapshot = registry_->snapshot_if_changed(epoch_);
  if (!snapshot) return;
  epoch_ = snapshot->epoch;
  current_.clear();
  const auto peer_kind = self_ == graph::EndpointKind::Publisher ? graph::EndpointKind::Subscription
                                                                 : graph::EndpointKind::Publisher;
  for (const auto& e : snapshot->endpoints) {
    if (e.kind != peer_kind || e.name != topic_) continue;
    uint64_t key = 0;
    std::memcpy(&key, e.gid.data(), 8);
    if (key != topic_key_) continue;  // not an rmw_baton_cpp endpoint: no slot to name
    const rmw_qos_profile_t peer = qos_from_graph(e.qos);
    const rmw_qos_policy_kind_t policy = self_ == graph::EndpointKind::Publisher
                                             ? incompatible_policy(qos_, peer)
                                             : incompatible_policy(peer, qos_);
    if (policy == RMW_QOS_POLICY_INVALID) continue;
    current_.push_back(slot_of(e.gid));
    if (seen_.insert(e.gid).second) last_policy_ = policy;
  }
}

bool QosPeers::incompatible(uint32_t slot, uint32_t generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  refresh();
  return std::find(current_.begin(), current_.end(), std::make_pair(slot, generation)) !=
         current_.end();
}

size_t QosPeers::incompatible_now() {
  std::lock_guard<std::mutex> lock(mutex_);
  refresh();
  return current_.size();
}

QosPeers::Seen QosPeers::seen() {
  std::lock_guard<std::mutex> lock(mutex_);
  refresh();
  return {seen_.size(), last_policy_};
}

}  // namespace baton::ros2::rmw
