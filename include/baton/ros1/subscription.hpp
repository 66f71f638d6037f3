// ros1::Subscription: a topic subscribed by a ros1::Node (created by Node::subscribe), over
// BATONSHM from baton publishers that grant it (WireSample::transport "BATONSHM": the bytes are
// read in place in shared memory), over TCPROS from the others. Its sink is called from the
// connection threads and the shm reader thread, one call at a time. Destroying it unregisters
// from the master, closes its connections and waits for the threads: after the destructor the
// sink is never called again.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"

namespace baton::ros1 {

namespace detail {
class TcprosSubscription;
template <typename Endpoint>
struct Registered;
}  // namespace detail

class Subscription {
 public:
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  const std::string& topic() const noexcept;
  const MessageType& type() const noexcept;
  // Publishers connected now: over TCPROS, or granted BATONSHM.
  size_t publisher_count() const;
  // Waits until publisher_count() >= n (true) or `timeout` passes (false).
  bool wait_for_publishers(size_t n, std::chrono::milliseconds timeout) const;
  // The TCPROS endpoint: its connections and counters.
  WireReader& wire() noexcept;
  // The BATONSHM side: `received` (read in place), `refused` (oversize samples), `dropped`
  // (overwritten unread: the queue was full).
  WireStats shm_stats() const;

 private:
  friend class Node;
  explicit Subscription(std::unique_ptr<detail::Registered<detail::TcprosSubscription>> registered);
  std::unique_ptr<detail::Registered<detail::TcprosSubscription>> registered_;  // keeps the node
};

}  // namespace baton::ros1
