// What executors and wait sets need from any client, whatever its service type; the type-free
// half of Client<S> (request publishing, response validation, the synchronous wait).
//
// Each client has a unique id (pid << 32 | per-process counter) and its own response topic
// "<service>/_response/<client_id>", subscribed before any request is sent, so a response can
// only reach the client that asked. A response whose id or sequence is not ours, or that is
// malformed, is dropped.
//
// Thread safety: every member may be called from any thread. The response subscription is read
// by one thread at a time: a synchronous send_request holds it while it waits (and completes
// every other pending future it sees meanwhile); an executor skips the client while it is held.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "baton/api/client_error.hpp"
#include "baton/api/context.hpp"
#include "baton/api/endpoint_error.hpp"
#include "baton/api/publisher.hpp"
#include "baton/topic/subscriber_port.hpp"

namespace baton {

class ClientBase {
 public:
  // The graph registration (ROS-style service listing); null without discovery.
  std::shared_ptr<void> graph_handle;
  virtual ~ClientBase();
  ClientBase(const ClientBase&) = delete;
  ClientBase& operator=(const ClientBase&) = delete;

  // True if a response is waiting (false while a synchronous call holds the subscription).
  bool has_data();
  // Takes one response and completes its future. False if there was nothing to take or another
  // thread reads the responses right now.
  bool execute_one();

  std::atomic<std::uint32_t>* wake_word() const noexcept { return port_->wake_word(); }
  std::atomic<std::uint32_t>* waiters_word() const noexcept { return port_->waiters_word(); }

  // True once a service listens on the request topic (a snapshot).
  bool service_is_ready() const;
  // Waits until service_is_ready(), the timeout (< 0: forever) passes or the context shuts down.
  bool wait_for_service(std::chrono::nanoseconds timeout);

  const std::string& service_name() const noexcept { return name_; }
  std::uint64_t client_id() const noexcept { return id_; }
  // Responses dropped: malformed, not ours, or for a request nobody waits for any more.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  // A fresh client id: pid << 32 | per-process counter.
  static std::uint64_t next_client_id();

  // Clients one service name takes, across all processes: each holds one publisher slot of the
  // request topic "<service>/_request".
  static constexpr std::uint32_t MAX_CLIENTS = topic::MAX_PUBLISHERS;
  // The error of a request publisher that could not be created, said in terms of the service
  // (NoFreeSlot: MAX_CLIENTS clients exist already).
  static EndpointError explain_create_error(const std::string& service, EndpointError e);

 protected:
  struct Wire {
    std::uint64_t request_offset, request_size;  // payload offset / whole message size
    std::uint64_t response_offset, response_size;
  };
  ClientBase(std::shared_ptr<Context> context, std::string resolved_name, std::uint64_t id,
             Wire wire, RawPublisher requests, std::unique_ptr<topic::SubscriberPort> responses);

  // Publishes one request carrying `sequence` and the `wire.request_size - request_offset`
  // payload bytes at `payload`.
  Status<ClientError> send(std::uint64_t sequence, const void* payload);
  // Completes the request `sequence` with the validated response payload at `payload` (valid
  // only during the call). False if no such request is pending.
  virtual bool complete(std::uint64_t sequence, const std::byte* payload) = 0;
  // Reads responses itself until done() holds, the deadline (steady clock ns, < 0: none) passes
  // or the context shuts down.
  Status<ClientError> await(std::int64_t deadline_ns, const std::function<bool()>& done);

  const std::shared_ptr<Context>& context() const noexcept { return context_; }

 private:
  bool take_one_locked();

  std::shared_ptr<Context> context_;
  std::string name_;
  std::uint64_t id_;
  Wire wire_;
  mutable std::mutex publish_mutex_;  // a publisher is used by one thread at a time
  RawPublisher requests_;
  std::mutex take_mutex_;  // a subscriber port is read by one thread at a time
  std::unique_ptr<topic::SubscriberPort> port_;
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace baton
