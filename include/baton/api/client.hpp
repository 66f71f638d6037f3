// Service clients over shared memory, shaped like rclcpp::Client:
//
//   auto cli = node.client<AddTwoInts>("add_two_ints").create();  // Result<shared_ptr<Client>,..>
//   (*cli)->wait_for_service(1s);
//   // With an executor (the client is a waitable: its response subscription):
//   auto future = (*cli)->async_send_request({2, 3});              // Result<SharedFuture, ..>
//   executor.spin_until_future_complete(*future, 1s);
//   // Or synchronously, without an executor:
//   auto res = (*cli)->send_request({2, 3}, 1s);                  // Result<Response, ClientError>
//
// Requests are copied once into a loan of the client's request publisher; responses are copied
// once out of shared memory into the future. Many clients may call one service: at most
// ClientBase::MAX_CLIENTS (256) per service name, across all processes, since each holds one
// publisher slot of the request topic; the next one's create() fails with NoFreeSlot.
#pragma once

#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "baton/api/client_base.hpp"
#include "baton/api/detail/service_wire.hpp"
#include "baton/api/node.hpp"
#include "baton/api/service.hpp"
#include "baton/api/service_traits.hpp"

namespace baton {

template <ServiceType S>
class Client : public ClientBase {
 public:
  using Request = typename S::Request;
  using Response = typename S::Response;
  using SharedFuture = std::shared_future<Response>;

  Client(std::shared_ptr<Context> context, std::string resolved_name, std::uint64_t id,
         RawPublisher requests, std::unique_ptr<topic::SubscriberPort> responses)
      : ClientBase(std::move(context), std::move(resolved_name), id, wire(), std::move(requests),
                   std::move(responses)) {}

  // Sends the request; the future completes when an executor (or a concurrent send_request on
  // this client) reads the response. Does not wait for the service: see wait_for_service. A
  // future whose response never comes stays pending until prune_pending_requests().
  Result<SharedFuture, ClientError> async_send_request(const Request& request) {
    auto [sequence, future] = enqueue();
    if (auto sent = send(sequence, &request); !sent) {
      forget(sequence);
      return unexpected(sent.error());
    }
    return future;
  }

  // Sends the request and waits for its response, reading the response topic itself (no
  // executor needed). Waits for the service first if none is there yet. `timeout` (< 0: forever)
  // bounds the whole call; on timeout the request is forgotten and a late response dropped.
  Result<Response, ClientError> send_request(const Request& request,
                                             std::chrono::nanoseconds timeout) {
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t deadline = timeout.count() < 0
                                      ? -1
                                      : std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            (start + timeout).time_since_epoch())
                                            .count();
    if (!service_is_ready() && !wait_for_service(timeout)) {
      return unexpected(context()->ok() ? ClientError::ServiceUnavailable
                                        : ClientError::ContextShutDown);
    }
    auto [sequence, future] = enqueue();
    if (auto sent = send(sequence, &request); !sent) {
      forget(sequence);
      return unexpected(sent.error());
    }
    auto done = await(deadline, [&f = future] {
      return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    });
    if (!done) {
      forget(sequence);
      return unexpected(done.error());
    }
    return future.get();
  }

  // Requests sent whose response has not come yet.
  std::size_t pending_requests() const {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    return pending_.size();
  }
  // Forgets every pending request; their futures become ready with std::future_error
  // (broken_promise). Returns how many were dropped.
  std::size_t prune_pending_requests() {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    const std::size_t n = pending_.size();
    pending_.clear();
    return n;
  }

 private:
  static Wire wire() {
    return {detail::payload_offset<Request>(), detail::message_size<Request>(),
            detail::payload_offset<Response>(), detail::message_size<Response>()};
  }
  std::pair<std::uint64_t, SharedFuture> enqueue() {
    std::promise<Response> promise;
    SharedFuture future = promise.get_future().share();
    std::lock_guard<std::mutex> lock(pending_mutex_);
    const std::uint64_t sequence = next_sequence_++;
    pending_.emplace(sequence, std::move(promise));
    return {sequence, std::move(future)};
  }
  void forget(std::uint64_t sequence) {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_.erase(sequence);
  }
  bool complete(std::uint64_t sequence, const std::byte* payload) override {
    std::promise<Response> promise;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      auto it = pending_.find(sequence);
      if (it == pending_.end()) return false;
      promise = std::move(it->second);
      pending_.erase(it);
    }
    Response response;
    std::memcpy(static_cast<void*>(&response), payload, sizeof(Response));
    promise.set_value(response);
    return true;
  }

  mutable std::mutex pending_mutex_;
  std::unordered_map<std::uint64_t, std::promise<Response>> pending_;
  std::uint64_t next_sequence_ = 1;
};

template <ServiceType S>
class ClientBuilder {
 public:
  ClientBuilder(Node& node, std::string name) : node_(node), name_(std::move(name)) {}
  ClientBuilder&& qos(const QoS& q) && {
    qos_ = q;
    return std::move(*this);
  }
  Result<std::shared_ptr<Client<S>>, EndpointError> create() && {
    const std::string resolved = node_.resolve(name_);
    if (resolved.empty()) {
      return unexpected(EndpointError{EndpointCreateError::InvalidName,
                                      "service name '" + name_ + "' is not a valid ROS name"});
    }
    const std::uint64_t id = ClientBase::next_client_id();
    // Responses first: the subscription exists before any request can be answered.
    auto port = detail::make_subscriber(node_, detail::response_topic(resolved, id),
                                        response_type_info_of<S>(), qos_, WaitMode::Blocking,
                                        std::chrono::microseconds(50));
    if (!port) return unexpected(port.error());
    auto pub = detail::make_publisher(node_, detail::request_topic(resolved),
                                      request_type_info_of<S>(), qos_, memory::PoolConfig{});
    if (!pub) return unexpected(ClientBase::explain_create_error(resolved, pub.error()));
    auto client = std::make_shared<Client<S>>(node_.context(), resolved, id,
                                              RawPublisher(std::move(*pub)), std::move(*port));
    node_.entities()->add(node_.entities()->clients, std::shared_ptr<ClientBase>(client));
    client->graph_handle =
        detail::register_in_graph(node_, graph::EndpointKind::Client, name_,
                                  topic::TypeInfo::from_name(ServiceTraits<S>::name()), qos_);
    return client;
  }

 private:
  Node& node_;
  std::string name_;
  QoS qos_ = services_default_qos();
};

template <ServiceType S>
ClientBuilder<S> Node::client(const std::string& name) {
  return {*this, name};
}

}  // namespace baton
