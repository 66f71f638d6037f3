// A node, as in ROS: a named unit of a program that owns publishers and subscriptions.
// Endpoints come from move-only builders:
//
//   auto pub = node.publisher<Pose>("pose").qos(QoS(5).best_effort()).create();
//   auto sub = node.subscription<Pose>("pose").callback([](const Sample<Pose>& m) {...}).create();
//   auto img = node.raw_publisher("image", TypeInfo::from_name("sensor_msgs/msg/Image")).create();
//   auto srv = node.service<AddTwoInts>("add").callback([](const auto& req, auto& res) {...})
//                  .create();                                  // see service.hpp
//   auto cli = node.client<AddTwoInts>("add").create();         // see client.hpp
//
// create() returns Result<Endpoint, EndpointError>; the error's detail says what to fix.
#pragma once

#include <memory>
#include <string>

#include "baton/api/context.hpp"
#include "baton/api/detail/node_entities.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/service_traits.hpp"
#include "baton/api/subscription.hpp"

namespace baton {

class Node;
template <ServiceType S>
class ServiceBuilder;
template <ServiceType S>
class ClientBuilder;

namespace detail {
Result<std::shared_ptr<PublisherImpl>, EndpointError> make_publisher(
    Node& node, const std::string& topic, const topic::TypeInfo& type, const QoS& qos,
    const memory::PoolConfig& pool);
// `source_timestamps`: topic::SubscriberOptions::source_timestamps.
Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> make_subscriber(
    Node& node, const std::string& topic, const topic::TypeInfo& type, const QoS& qos,
    WaitMode mode, std::chrono::nanoseconds spin, bool source_timestamps = false);
// Registers an endpoint of `node` in the graph, best effort: returns the registration (to be
// held as long as the endpoint lives) or null when discovery is unavailable.
std::shared_ptr<void> register_in_graph(Node& node, graph::EndpointKind kind,
                                        const std::string& name, const topic::TypeInfo& type,
                                        const QoS& qos);
// Records a subscription in the node's entity list (for Executor::add_node).
void register_subscription(Node& node, const std::shared_ptr<SubscriptionBase>& subscription);
}  // namespace detail

template <typename PublisherT>
class PublisherBuilder {
 public:
  PublisherBuilder(Node& node, std::string topic, topic::TypeInfo type)
      : node_(node), topic_(std::move(topic)), type_(std::move(type)) {}
  PublisherBuilder&& qos(const QoS& q) && {
    qos_ = q;
    return std::move(*this);
  }
  // Largest single message (default 256 MiB) and total pool growth limit.
  PublisherBuilder&& max_message_size(std::uint64_t bytes) && {
    pool_.max_chunk_size = bytes;
    return std::move(*this);
  }
  PublisherBuilder&& max_pool_bytes(std::uint64_t bytes) && {
    pool_.max_total_bytes = bytes;
    return std::move(*this);
  }
  // Pays at create() for `count` messages of up to `max_message_size` bytes (see
  // RawPublisher::reserve): e.g. reserve(frame_bytes, depth + 2) for a camera's fixed frames.
  // create() fails with ReservationFailed if the memory cannot be had.
  PublisherBuilder&& reserve(std::uint64_t max_message_size, std::uint32_t count) && {
    reserve_size_ = max_message_size;
    reserve_count_ = count;
    return std::move(*this);
  }
  // With reserve(): commit every reserved message's memory in /dev/shm at create(), not as
  // loans first need the chunks of 1 MiB and more (the default). No commit after start-up, and a
  // /dev/shm without room fails create(); costs count x max_message_size of tmpfs (RAM) even if
  // the readers keep up and the publisher writes one chunk (memory::PoolConfig).
  PublisherBuilder&& commit_reservation(bool now = true) && {
    pool_.commit_reservations = now;
    return std::move(*this);
  }
  Result<PublisherT, EndpointError> create() && {
    auto impl = detail::make_publisher(node_, topic_, type_, qos_, pool_);
    if (!impl) return unexpected(impl.error());
    if (reserve_count_ != 0 || reserve_size_ != 0) {
      auto r = (*impl)->port->reserve(reserve_size_, reserve_count_);
      if (!r)
        return unexpected(EndpointError{EndpointCreateError::ReservationFailed, r.error().detail});
    }
    return PublisherT(std::move(*impl));
  }

 private:
  Node& node_;
  std::string topic_;
  topic::TypeInfo type_;
  QoS qos_;
  memory::PoolConfig pool_;
  std::uint64_t reserve_size_ = 0;
  std::uint32_t reserve_count_ = 0;
};

template <typename SubscriptionT>
class SubscriptionBuilder {
 public:
  SubscriptionBuilder(Node& node, std::string topic, topic::TypeInfo type)
      : node_(node), topic_(std::move(topic)), type_(std::move(type)) {}
  SubscriptionBuilder&& qos(const QoS& q) && {
    qos_ = q;
    return std::move(*this);
  }
  SubscriptionBuilder&& callback(typename SubscriptionT::Callback cb) && {
    cb_ = std::move(cb);
    return std::move(*this);
  }
  // Blocking (default), BusyPoll, or Adaptive (spin `spin` then sleep).
  SubscriptionBuilder&& wait_mode(
      WaitMode m, std::chrono::nanoseconds spin = std::chrono::microseconds(50)) && {
    mode_ = m;
    spin_ = spin;
    return std::move(*this);
  }
  // Read the publishers' source timestamps (RawSample::source_timestamp_ns, 0 unless asked):
  // they stamp only while a subscriber asks (topic::SubscriberOptions::source_timestamps).
  SubscriptionBuilder&& source_timestamps(bool on = true) && {
    stamps_ = on;
    return std::move(*this);
  }
  Result<std::shared_ptr<SubscriptionT>, EndpointError> create() && {
    auto port = detail::make_subscriber(node_, topic_, type_, qos_, mode_, spin_, stamps_);
    if (!port) return unexpected(port.error());
    auto sub = std::make_shared<SubscriptionT>(std::move(*port), std::move(cb_));
    sub->graph_handle =
        detail::register_in_graph(node_, graph::EndpointKind::Subscription, topic_, type_, qos_);
    detail::register_subscription(node_, sub);
    return sub;
  }

 private:
  Node& node_;
  std::string topic_;
  topic::TypeInfo type_;
  QoS qos_;
  typename SubscriptionT::Callback cb_;
  WaitMode mode_ = WaitMode::Blocking;
  std::chrono::nanoseconds spin_{50000};
  bool stamps_ = false;
};

class Node {
 public:
  Node(std::shared_ptr<Context> context, std::string name, std::string namespace_ = "/");
  ~Node();
  Node(const Node&) = delete;

  template <Message T>
  PublisherBuilder<Publisher<T>> publisher(const std::string& topic) {
    return {*this, topic, type_info_of<T>()};
  }
  template <Message T>
  SubscriptionBuilder<Subscription<T>> subscription(const std::string& topic) {
    return {*this, topic, type_info_of<T>()};
  }
  PublisherBuilder<RawPublisher> raw_publisher(const std::string& topic, topic::TypeInfo type) {
    return {*this, topic, std::move(type)};
  }
  SubscriptionBuilder<RawSubscription> raw_subscription(const std::string& topic,
                                                        topic::TypeInfo type) {
    return {*this, topic, std::move(type)};
  }
  // Services and clients (defined in service.hpp / client.hpp; include those or baton.hpp).
  template <ServiceType S>
  ServiceBuilder<S> service(const std::string& name);
  template <ServiceType S>
  ClientBuilder<S> client(const std::string& name);

  const std::string& name() const noexcept { return name_; }
  const std::string& get_namespace() const noexcept { return namespace_; }
  std::string fully_qualified_name() const;
  // The topic name this node would use for `name` (ROS resolution rules), or "" if invalid.
  std::string resolve(const std::string& topic) const;
  const std::shared_ptr<Context>& context() const noexcept { return context_; }
  // The subscriptions, services and clients this node created (for executors).
  const std::shared_ptr<detail::NodeEntities>& entities() const noexcept { return entities_; }

  // The graph (discovery): nodes, topics, services of every process using the same registry.
  Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>> graph() const {
    return context_->graph();
  }
  // This node's registration in the graph; null if discovery is unavailable.
  const std::shared_ptr<graph::NodeHandle>& graph_node() const noexcept { return graph_node_; }
  // Registers an endpoint of this node in the graph (publishers and subscriptions do this
  // themselves; services and clients call it). `name` is resolved like a topic name. The
  // endpoint is listed as long as the returned handle lives.
  Result<std::shared_ptr<graph::EndpointHandle>, Error<graph::RegisterError>>
  register_graph_endpoint(graph::EndpointKind kind, const std::string& name,
                          const topic::TypeInfo& type, const QoS& qos,
                          const graph::EndpointGid& gid = {});

 private:
  std::shared_ptr<Context> context_;
  std::string name_;
  std::string namespace_;
  std::shared_ptr<graph::NodeHandle> graph_node_;  // null if discovery is unavailable
  std::string graph_error_;                        // why graph_node_ is null
  std::shared_ptr<detail::NodeEntities> entities_ = std::make_shared<detail::NodeEntities>();
};

}  // namespace baton
