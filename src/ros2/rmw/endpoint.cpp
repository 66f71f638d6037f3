// baton ports for the rmw's endpoints: see endpoint.hpp.
#include "endpoint.hpp"

#include <cstring>

#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

Result<baton::RawPublisher, std::string> open_publisher(baton::Context& context,
                                                        const std::string& topic,
                                                        const topic::TypeInfo& type,
                                                        const baton::QoS& qos) {
  auto t = context.topic(topic, type);
  if (!t) return unexpected("topic '" + topic + "': " + t.error().detail);
  auto options = qos.publisher_options();
  options.pool.segment_mode = context.options().segment_mode;
  options.source_timestamps = true;  // rmw_message_info_t::source_timestamp
  auto port = topic::PublisherPort::create(*t, options);
  if (!port) return unexpected("publisher on '" + topic + "': " + port.error().detail);
  auto impl = std::make_shared<baton::detail::PublisherImpl>();
  impl->port = std::move(*port);
  impl->qos = qos;
  return baton::RawPublisher(std::move(impl));
}

Result<std::shared_ptr<baton::RawSubscription>, std::string> open_subscription(
    baton::Context& context, const std::string& topic, const topic::TypeInfo& type,
    const baton::QoS& qos) {
  auto t = context.topic(topic, type);
  if (!t) return unexpected("topic '" + topic + "': " + t.error().detail);
  auto options = qos.subscriber_options();
  options.source_timestamps = true;  // rmw_message_info_t::source_timestamp
  auto port = topic::SubscriberPort::create(*t, options);
  if (!port) return unexpected("subscription on '" + topic + "': " + port.error().detail);
  return std::make_shared<baton::RawSubscription>(std::move(*port));
}

std::shared_ptr<void> register_endpoint(NodeImpl& node, graph::EndpointKind kind,
                                        const std::string& name, const topic::TypeInfo& type,
                                        const baton::QoS& qos, const uint8_t* gid) {
  graph::EndpointGid id{};
  if (gid != nullptr) std::memcpy(id.data(), gid, id.size());
  auto handle = node.node->register_graph_endpoint(kind, name, type, qos, id);
  if (!handle) return nullptr;
  return std::move(*handle);
}

std::unique_ptr<QosPeers> open_qos_peers(NodeImpl& node, graph::EndpointKind kind,
                                         const std::string& topic, const rmw_qos_profile_t& qos) {
  auto registry = node.context->context->graph();
  return std::make_unique<QosPeers>(registry ? std::move(*registry) : nullptr, topic, kind, qos);
}

}  // namespace baton::ros2::rmw
