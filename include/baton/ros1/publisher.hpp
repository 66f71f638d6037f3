// ros1::Publisher: a topic published by a ros1::Node (created by Node::advertise): over BATONSHM
// to baton subscribers that negotiated it, over TCPROS to everyone else; serialized once.
// Destroying it unregisters the topic from the master and closes its subscribers' connections.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>

#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"

namespace baton::ros1 {

namespace detail {
class Publication;
template <typename Endpoint>
struct Registered;
}  // namespace detail

class Publisher {
 public:
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  const std::string& topic() const noexcept;
  const MessageType& type() const noexcept;
  // Serializes `message` once and sends it to every subscriber; returns how many it went to.
  // Nothing is serialized while there is no subscriber (unless latched).
  Result<size_t, Error<WireError>> publish(const ros2::Value& message);
  // Sends bytes already serialized as ROS 1 (not checked against the type).
  Result<size_t, Error<WireError>> publish_serialized(std::span<const uint8_t> bytes);
  // Sends `size` bytes of ROS 1 serialization that `fill` writes straight into the buffer they are
  // sent from (the BATONSHM loan, else the TCPROS frame): a message converted from another
  // encoding without a copy (bridge::Ros1Mirror). `fill` is not called without subscribers.
  Result<size_t, Error<WireError>> publish_filled(uint64_t size, const FillBytes& fill);
  // TCPROS connections plus baton subscribers attached over BATONSHM.
  size_t subscriber_count() const;
  // Waits until at least `n` subscribers are connected over TCPROS (true) or `timeout` passes.
  // (A BATONSHM subscriber attaches without telling the publisher: wait on its
  // Subscription::wait_for_publishers.)
  bool wait_for_tcpros_subscribers(size_t n, std::chrono::milliseconds timeout) const;
  // Waits until every TCPROS subscriber's queue is written to its socket (true) or `timeout`
  // passes (false). Destroying a publisher drops what is still queued: wait first when its last
  // messages must arrive (a player at the end of a bag). BATONSHM subscribers need no wait.
  bool wait_until_sent(std::chrono::milliseconds timeout) const;
  // The TCPROS endpoint: its connections and counters.
  WireWriter& wire() noexcept;
  // The BATONSHM side: `serialized` into shared-memory loans, `sent` published there.
  WireStats shm_stats() const;

 private:
  friend class Node;
  explicit Publisher(std::unique_ptr<detail::Registered<detail::Publication>> registered);
  std::unique_ptr<detail::Registered<detail::Publication>> registered_;  // keeps the node
};

}  // namespace baton::ros1
