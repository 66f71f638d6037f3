// ros1::Subscription: a topic subscribed by a ros1::Node over TCPROS (created by Node::subscribe).
// Its sink is called from the connection threads, one call at a time. Destroying it unregisters
// from the master, closes its connections and waits for the threads: after the destructor the
// sink is never called again.
#pragma once

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
  // Publishers whose TCPROS connection is established now.
  size_t publisher_count() const;
  // The TCPROS endpoint, for composing into a bridged endpoint.
  WireReader& wire() noexcept;

 private:
  friend class Node;
  explicit Subscription(std::unique_ptr<detail::Registered<detail::TcprosSubscription>> registered);
  std::unique_ptr<detail::Registered<detail::TcprosSubscription>> registered_;  // keeps the node
};

}  // namespace baton::ros1
