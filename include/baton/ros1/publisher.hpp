// ros1::Publisher: a topic published by a ros1::Node over TCPROS (created by Node::advertise).
// Destroying it unregisters the topic from the master and closes its subscribers' connections.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"

namespace baton::ros1 {

namespace detail {
class NodeImpl;
class TcprosPublication;
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
  size_t subscriber_count() const;
  // The TCPROS endpoint, for composing into a bridged endpoint.
  WireWriter& wire() noexcept;

 private:
  friend class Node;
  Publisher(std::shared_ptr<detail::NodeImpl> node,
            std::shared_ptr<detail::TcprosPublication> publication);
  std::shared_ptr<detail::NodeImpl> node_;
  std::shared_ptr<detail::TcprosPublication> publication_;
};

}  // namespace baton::ros1
