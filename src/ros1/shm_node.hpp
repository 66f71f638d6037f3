// Private to baton_ros1: the baton node (api/node.hpp) that a ros1::Node's BATONSHM endpoints live
// on. One Context (its janitor reclaims what dead peers held) and one Node with the ROS 1 node's
// name, so baton's own tools list the shm endpoints under it. Made with the ros1::Node when
// NodeOptions::shared_memory is on; endpoint creation is serialized (link threads attach
// concurrently).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"

namespace baton::ros1::detail {

class ShmNode {
 public:
  // `context` null: a Context of its own.
  ShmNode(const std::string& ros1_name, std::shared_ptr<baton::Context> context);  // "/ns/name"

  // A publisher / subscription on ROS 1 topic `ros_topic`'s baton topic (batonshm.hpp), keeping
  // the last `depth` messages, best effort (a slow subscriber loses its oldest messages, as a
  // ROS 1 queue does; the publisher never waits). Errors name the topic and the reason.
  Result<RawPublisher, std::string> publisher(const std::string& ros_topic, const MessageType& type,
                                              uint32_t depth);
  Result<std::shared_ptr<RawSubscription>, std::string> subscription(const std::string& ros_topic,
                                                                     const MessageType& type,
                                                                     uint32_t depth);

 private:
  std::mutex mutex_;
  std::shared_ptr<baton::Context> context_;
  std::unique_ptr<baton::Node> node_;  // qualified: ros1::Node is another class
};

}  // namespace baton::ros1::detail
