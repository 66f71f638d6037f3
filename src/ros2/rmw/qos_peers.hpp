// QoS compatibility between an rmw_baton_cpp endpoint and its peers in shared memory.
//
// Baton's ports would deliver between any publisher and subscription of a topic, but ROS
// programs rely on the DDS verdict (rmw/qos_profiles.h, "request vs offered"): an incompatible
// pair is not matched (counts and matched events leave it out), exchanges no message, and each
// side gets the incompatible-QoS event. DDS peers on the wire get this from Cyclone itself.
//
// The peers' QoS come from baton's graph registry, which holds each endpoint's reliability and
// durability (and its gid, i.e. its topic slot and generation, gid.hpp), so those two policies
// are checked; deadline and liveliness are not in the registry and never make a local pair
// incompatible. The registry is re-read only when its epoch moves: a take pays one atomic load.
#pragma once

#include <rmw/qos_policy_kind.h>
#include <rmw/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "baton/graph/graph_snapshot.hpp"
#include "baton/graph/registry.hpp"

namespace baton::ros2::rmw {

// The first policy (reliability, durability, deadline, liveliness kind, liveliness lease) for
// which what a publisher `offered` falls short of what a subscription `requested`, or
// RMW_QOS_POLICY_INVALID if the pair is compatible. Both profiles are as in effect
// (qos_in_effect: durations infinite when unset).
rmw_qos_policy_kind_t incompatible_policy(const rmw_qos_profile_t& offered,
                                          const rmw_qos_profile_t& requested);

// `count` endpoints of a port less the `incompatible` ones among them; never below 0 (a peer is
// registered just after its slot is taken, so for a moment it can be in one and not the other).
inline size_t without(size_t count, size_t incompatible) {
  return count > incompatible ? count - incompatible : 0;
}

class QosPeers {
 public:
  // For an endpoint of kind `self` (Publisher or Subscription) on `topic` with QoS `qos` (in
  // effect). A null registry (discovery unavailable) finds no peer incompatible.
  QosPeers(std::shared_ptr<graph::Registry> registry, std::string topic, graph::EndpointKind self,
           const rmw_qos_profile_t& qos);

  // True if the peer in topic slot `slot` with generation `generation` (a sample's publisher)
  // is incompatible.
  bool incompatible(uint32_t slot, uint32_t generation);
  // How many live peers are incompatible now (to leave out of the matched counts).
  size_t incompatible_now();

  struct Seen {
    uint64_t total = 0;  // distinct incompatible peers seen since creation
    rmw_qos_policy_kind_t last_policy = RMW_QOS_POLICY_INVALID;
  };
  Seen seen();

 private:
  void refresh();  // under mutex_

  std::mutex mutex_;
  std::shared_ptr<graph::Registry> registry_;
  std::string topic_;
  uint64_t topic_key_;
  graph::EndpointKind self_;
  rmw_qos_profile_t qos_;
  uint64_t epoch_ = ~uint64_t{0};
  std::vector<std::pair<uint32_t, uint32_t>> current_;  // (slot, generation) of live ones
  std::set<graph::EndpointGid> seen_;
  rmw_qos_policy_kind_t last_policy_ = RMW_QOS_POLICY_INVALID;
};

}  // namespace baton::ros2::rmw
