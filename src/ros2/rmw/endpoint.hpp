// baton ports for the rmw's endpoints. The ports are opened without a graph registration: the
// rmw registers what ROS shows (a publisher of "/chatter", a service "/add") itself, and keeps
// the service plumbing ("/add/_request", "/add/_response/<id>") out of the ROS graph.
#pragma once

#include <memory>
#include <string>

#include "baton/api/context.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/qos.hpp"
#include "baton/api/subscription.hpp"
#include "baton/common/result.hpp"
#include "baton/graph/graph_snapshot.hpp"
#include "baton/topic/type_info.hpp"
#include "qos_peers.hpp"

namespace baton::ros2::rmw {

struct NodeImpl;

// A publisher of `type` on baton topic `topic` (a fully qualified ROS name). Errors name the
// topic and what to do.
Result<baton::RawPublisher, std::string> open_publisher(baton::Context& context,
                                                        const std::string& topic,
                                                        const topic::TypeInfo& type,
                                                        const baton::QoS& qos);

// A subscription (blocking wait mode; rmw_wait waits on its futex word).
Result<std::shared_ptr<baton::RawSubscription>, std::string> open_subscription(
    baton::Context& context, const std::string& topic, const topic::TypeInfo& type,
    const baton::QoS& qos);

// Lists an endpoint of `node` in baton's graph registry while the returned handle lives; null
// (and nothing listed) when discovery is unavailable.
// `gid`: the endpoint's rmw gid (gid.hpp), which graph queries then report; null for none.
std::shared_ptr<void> register_endpoint(NodeImpl& node, graph::EndpointKind kind,
                                        const std::string& name, const topic::TypeInfo& type,
                                        const baton::QoS& qos, const uint8_t* gid = nullptr);

// The QoS verdict on the peers of an endpoint of `kind` on `topic` with QoS `qos` (in effect),
// read from `node`'s context's graph registry (qos_peers.hpp).
std::unique_ptr<QosPeers> open_qos_peers(NodeImpl& node, graph::EndpointKind kind,
                                         const std::string& topic, const rmw_qos_profile_t& qos);

}  // namespace baton::ros2::rmw
