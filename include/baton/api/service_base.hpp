// What executors and wait sets need from any service, whatever its service type; the type-free
// half of Service<S> (request validation, reply routing, the per-client response publishers).
//
// A service subscribes to "<service>/_request". Every request names its client; the response
// goes to that client's own topic "<service>/_response/<client_id>" through a publisher the
// service creates on first use and caches (one per client). A cached publisher whose topic has
// no subscriber left (the client was destroyed, or died and was reclaimed) is dropped when that
// client id calls again or the next new client appears, and its topic removed. See
// detail/service_wire.hpp.
//
// Thread safety: has_data / execute_one may be called from any thread; one request is handled
// at a time (a second concurrent execute_one returns false at once).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "baton/api/node.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/qos.hpp"
#include "baton/topic/subscriber_port.hpp"

namespace baton {

class ServiceBase {
 public:
  // The graph registration (ROS-style service listing); null without discovery.
  std::shared_ptr<void> graph_handle;
  // At most this many clients get a cached response publisher (as many as a service takes,
  // ClientBase::MAX_CLIENTS); beyond it the dead are reclaimed and dropped first, then the least
  // recently added one (recreated if that client calls again).
  static constexpr std::size_t MAX_CACHED_CLIENTS = 256;

  virtual ~ServiceBase();
  ServiceBase(const ServiceBase&) = delete;
  ServiceBase& operator=(const ServiceBase&) = delete;

  // True if a request is waiting.
  bool has_data();
  // Takes one request, runs the callback and sends the response. False if there was nothing to
  // take or another thread is handling a request of this service right now.
  bool execute_one();

  std::atomic<std::uint32_t>* wake_word() const noexcept { return port_->wake_word(); }
  std::atomic<std::uint32_t>* waiters_word() const noexcept { return port_->waiters_word(); }

  // The fully resolved service name ("/ns/add_two_ints").
  const std::string& service_name() const noexcept { return name_; }
  // Requests answered so far.
  std::uint64_t handled() const noexcept { return handled_.load(std::memory_order_relaxed); }
  // Requests dropped: malformed, or the reply could not be routed or published.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  // Clients with a cached response publisher.
  std::size_t cached_clients() const;

 protected:
  struct Wire {
    std::uint64_t request_offset, request_size;  // payload offset / whole message size
    std::uint64_t response_offset, response_size;
  };
  ServiceBase(std::shared_ptr<Context> context, std::string resolved_name,
              topic::TypeInfo response_type, QoS qos, Wire wire,
              std::unique_ptr<topic::SubscriberPort> request_port);

  // Runs the user callback: `request` points at a validated request payload (valid only during
  // the call), `response` at uninitialised, suitably aligned bytes for the response payload.
  virtual void handle(const std::byte* request, std::byte* response) = 0;

 private:
  RawPublisher* responder(std::uint64_t client_id);  // mutex_ held
  void drop_responder_locked(std::uint64_t client_id);
  void sweep_locked();  // drops the responders whose client is gone

  std::string name_;
  topic::TypeInfo response_type_;
  QoS qos_;
  Wire wire_;
  Node node_;  // internal: creates the response publishers (never added to an executor)
  std::unique_ptr<topic::SubscriberPort> port_;
  mutable std::mutex mutex_;  // one request at a time; guards responders_
  std::unordered_map<std::uint64_t, RawPublisher> responders_;
  std::vector<std::uint64_t> responder_order_;  // insertion order, for eviction
  std::atomic<std::uint64_t> handled_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace baton
