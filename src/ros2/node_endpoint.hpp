// Private to baton_ros2: how a native endpoint (Publisher, Subscription,
// DomainSubscription) is made on a Node, in one place.
#pragma once

#include <memory>
#include <string>

#include "baton/common/result.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "dds_wire.hpp"

namespace baton::ros2::detail {

template <typename T>
T& endpoint_ref(T& e) {
  return e;
}
template <typename T>
T& endpoint_ref(std::unique_ptr<T>& e) {
  return *e;
}

// Resolves `topic` on `node` (relative names get its namespace), makes the endpoint with
// `make(resolved)` (a Result of the endpoint or of a unique_ptr to it), and lists its DDS gid under
// the node in ros_discovery_info for as long as it lives: `keep(endpoint, listing)` stores the
// listing in the endpoint (its bridged-endpoint core, src/wire/bridged_topic.hpp).
template <typename Make, typename Keep>
auto make_on_node(Node& node, const std::string& topic, bool reader, Make make, Keep keep)
    -> decltype(make(std::string{})) {
  const std::string resolved = node.node().resolve(topic);
  if (resolved.empty())
    return unexpected(Error<WireError>{WireError::Endpoint, "invalid topic name '" + topic + "'"});
  auto out = make(resolved);
  if (!out) return out;
  auto& endpoint = endpoint_ref(*out);
  auto listing = DiscoveryListing::create(node.wire(), node.get_namespace(), node.name(),
                                          endpoint.gid(), reader);
  if (!listing) return unexpected(listing.error());
  keep(endpoint, std::move(*listing));
  return out;
}

}  // namespace baton::ros2::detail
