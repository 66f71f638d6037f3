#include "baton/api/node.hpp"

namespace baton {

Node::Node(std::shared_ptr<Context> context, std::string name, std::string namespace_)
    : context_(std::move(context)), name_(std::move(name)), namespace_(std::move(namespace_)) {
  if (this->namespace_.empty() || this->namespace_.front() != '/') {
    this->namespace_ = "/" + this->namespace_;
  }
  // Discovery is best effort: a node works without it (see Context::graph()). The parameter
  // `namespace_` shadows the member and was moved from: use this->namespace_.
  if (auto participant = context_->graph_participant()) {
    auto handle = participant->registry()->register_node(participant, name_, this->namespace_);
    if (handle) {
      graph_node_ = std::move(*handle);
    } else {
      graph_error_ = handle.error().detail;
    }
  } else {
    graph_error_ = context_->graph_participant_error();
  }
}

Node::~Node() = default;

std::string Node::fully_qualified_name() const {
  return (namespace_ == "/" ? "" : namespace_) + "/" + name_;
}

std::string Node::resolve(const std::string& topic) const {
  return resolve_topic_name(topic, namespace_, name_);
}

Result<std::shared_ptr<graph::EndpointHandle>, Error<graph::RegisterError>>
Node::register_graph_endpoint(graph::EndpointKind kind, const std::string& name,
                              const topic::TypeInfo& type, const QoS& qos,
                              const graph::EndpointGid& gid) {
  using E = Error<graph::RegisterError>;
  if (!graph_node_) {
    return unexpected(
        E{graph::RegisterError::InvalidHandle,
          "node '" + fully_qualified_name() + "' is not registered in the graph: " + graph_error_});
  }
  const std::string resolved = resolve(name);
  if (resolved.empty()) {
    return unexpected(
        E{graph::RegisterError::InvalidName, "'" + name + "' is not a valid ROS name"});
  }
  const graph::EndpointQos q{qos.depth(), qos.reliability(), qos.durability()};
  return graph_node_->participant()->registry()->register_endpoint(kind, graph_node_, resolved,
                                                                   type, q, gid);
}

namespace detail {

std::shared_ptr<void> register_in_graph(Node& node, graph::EndpointKind kind,
                                        const std::string& name, const topic::TypeInfo& type,
                                        const QoS& qos) {
  auto handle = node.register_graph_endpoint(kind, name, type, qos);
  if (!handle) return nullptr;
  return std::move(*handle);
}

namespace {
Result<std::shared_ptr<topic::Topic>, EndpointError> open_topic(Node& node, const std::string& name,
                                                                const topic::TypeInfo& type) {
  const std::string resolved = node.resolve(name);
  if (resolved.empty()) {
    return unexpected(EndpointError{
        EndpointCreateError::InvalidName,
        "topic name '" + name + "' is not a valid ROS name (letters, digits, _, /, ~)"});
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
  if (!port)
    return unexpected(EndpointError{to_endpoint_error(port.error().code), port.error().detail});
  auto impl = std::make_shared<PublisherImpl>();
  impl->port = std::move(*port);
  impl->qos = qos;
  impl->graph_handle =
      register_in_graph(node, graph::EndpointKind::Publisher, topic_name, type, qos);
  return impl;
}

Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> make_subscriber(
    Node& node, const std::string& topic_name, const topic::TypeInfo& type, const QoS& qos,
    WaitMode mode, std::chrono::nanoseconds spin, bool source_timestamps) {
  auto t = open_topic(node, topic_name, type);
  if (!t) return unexpected(t.error());
  auto opts = qos.subscriber_options();
  opts.wait_mode = mode;
  opts.spin_time = spin;
  opts.source_timestamps = source_timestamps;
  auto port = topic::SubscriberPort::create(*t, opts);
  if (!port)
    return unexpected(EndpointError{to_endpoint_error(port.error().code), port.error().detail});
  return std::move(*port);
}

void register_subscription(Node& node, const std::shared_ptr<SubscriptionBase>& subscription) {
  node.entities()->add(node.entities()->subscriptions, subscription);
}

}  // namespace detail
}  // namespace baton
