#include "baton/api/domain_endpoints.hpp"

#include "baton/api/node.hpp"
#include "baton/memory/domain/domain_spec.hpp"

namespace baton {
namespace {

Result<std::shared_ptr<topic::Topic>, EndpointError> open_topic(Node& node, const std::string& name,
                                                                const topic::TypeInfo& type) {
  const std::string resolved = node.resolve(name);
  if (resolved.empty()) {
    return unexpected(EndpointError{EndpointCreateError::InvalidName,
                                    "topic name '" + name + "' is not a valid ROS name"});
  }
  return node.context()->topic(resolved, type);
}

Result<memory::domain::DomainSpec, EndpointError> parse(std::string_view domain) {
  auto spec = memory::domain::DomainSpec::parse(domain);
  if (!spec) {
    return unexpected(EndpointError{
        EndpointCreateError::DomainUnavailable,
        "'" + std::string(domain) + "' is not host, staging, opencl:<n>[:sc] or cuda:<n>"});
  }
  return *spec;
}

}  // namespace

Result<DomainSubscription, EndpointError> create_domain_subscription(Node& node,
                                                                     const std::string& topic,
                                                                     const topic::TypeInfo& type,
                                                                     std::string_view domain,
                                                                     const QoS& qos) {
  auto spec = parse(domain);
  if (!spec) return unexpected(spec.error());
  auto t = open_topic(node, topic, type);
  if (!t) return unexpected(t.error());
  auto sub = topic::DomainSubscriber::create(*t, qos.subscriber_options(), *spec);
  if (!sub) {
    const auto code = sub.error().code;
    return unexpected(EndpointError{code == topic::DomainSubscriberCreateError::DomainUnavailable
                                        ? EndpointCreateError::DomainUnavailable
                                    : code == topic::DomainSubscriberCreateError::InvalidQos
                                        ? EndpointCreateError::InvalidQos
                                    : code == topic::DomainSubscriberCreateError::NoFreeSlot
                                        ? EndpointCreateError::NoFreeSlot
                                        : EndpointCreateError::SegmentFailure,
                                    sub.error().detail});
  }
  return DomainSubscription(
      std::move(*sub),
      detail::register_in_graph(node, graph::EndpointKind::Subscription, topic, type, qos));
}

Result<DomainPublisher, EndpointError> create_domain_publisher(Node& node, const std::string& topic,
                                                               const topic::TypeInfo& type,
                                                               std::string_view domain,
                                                               const QoS& qos) {
  auto spec = parse(domain);
  if (!spec) return unexpected(spec.error());
  auto t = open_topic(node, topic, type);
  if (!t) return unexpected(t.error());
  auto opts = qos.publisher_options();
  opts.pool.segment_mode = node.context()->options().segment_mode;
  auto pub = topic::DomainPublisher::create(*t, opts, *spec);
  if (!pub) {
    const bool domain_missing = pub.error().detail.find("unavailable") != std::string::npos;
    return unexpected(EndpointError{domain_missing ? EndpointCreateError::DomainUnavailable
                                                   : EndpointCreateError::SegmentFailure,
                                    pub.error().detail});
  }
  return DomainPublisher(
      std::move(*pub),
      detail::register_in_graph(node, graph::EndpointKind::Publisher, topic, type, qos));
}

}  // namespace baton
