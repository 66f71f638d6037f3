#include "baton/api/node.hpp"

namespace baton {

Node::Node(std::shared_ptr<Context> context, std::string name, std::string namespace_)
    : context_(std::move(context)), name_(std::move(name)), namespace_(std::move(namespace_)) {
  if (this->namespace_.empty() || this->namespace_.front() != '/') {
    this->namespace_ = "/" + this->namespace_;
  }
}

Node::~Node() = default;

std::string Node::fully_qualified_name() const {
  return (namespace_ == "/" ? "" : namespace_) + "/" + name_;
}

std::string Node::resolve(const std::string& topic) const {
  return resolve_topic_name(topic, namespace_, name_);
}

namespace detail {

namespace {
Result<std::shared_ptr<topic::Topic>, EndpointError> open_topic(Node& node,
                                                                const std::string& name,
                                                                const topic::TypeInfo& type) {
  const std::string resolved = node.resolve(name);
  if (resolved.empty()) {
    return unexpected(EndpointError{EndpointCreateError::InvalidName,
                                    "topic name '" + name +
                                        "' is not a valid ROS name (letters, digits, _, /, ~)"});
  }
  return node.context()->topic(resolved, type);
}
}  // namespace

Result<std::shared_ptr<PublisherImpl>, EndpointError> make_publisher(
    Node& node, const std::string& topic_name, const topic::TypeInfo& type, const QoS& qos,
    const memory::PoolConfig& pool) {
  auto t = open_topic(node, topic_name, type);
  if (!t) return unexpected(t.error());
  auto opts = qos.publisher_options();
  opts.pool = pool;
  opts.pool.segment_mode = node.context()->options().segment_mode;
  auto port = topic::PublisherPort::create(*t, opts);
  if (!port) return unexpected(EndpointError{to_endpoint_error(port.error().code), port.error().detail});
  auto impl = std::make_shared<PublisherImpl>();
  impl->port = std::move(*port);
  impl->qos = qos;
  return impl;
}

Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> make_subscriber(
    Node& node, const std::string& topic_name, const topic::TypeInfo& type, const QoS& qos,
    WaitMode mode, std::chrono::nanoseconds spin) {
  auto t = open_topic(node, topic_name, type);
  if (!t) return unexpected(t.error());
  auto opts = qos.subscriber_options();
  opts.wait_mode = mode;
  opts.spin_time = spin;
  auto port = topic::SubscriberPort::create(*t, opts);
  if (!port) return unexpected(EndpointError{to_endpoint_error(port.error().code), port.error().detail});
  return std::move(*port);
}

void register_subscription(Node& node, const std::shared_ptr<SubscriptionBase>& subscription) {
  node.entities()->add(node.entities()->subscriptions, subscription);
}

}  // namespace detail
}  // namespace baton
