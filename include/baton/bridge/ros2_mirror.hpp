// Ros2Mirror: the other direction of Ros1Mirror — a ROS 1 topic (rospy / roscpp talkers, TCPROS
// or BATONSHM) published as a native ROS 2 topic, so native, rmw_baton_cpp and DDS subscribers
// get what ROS 1 nodes publish:
//
//   rospy / roscpp talker ── TCPROS ──> ros1::Subscription ──> ROS 1 bytes read as a Value (arrays
//   left where they arrived) ──> the same pairing as CdrToRos1, reversed ──> Publisher:
//   encoded once into the loan, to shared memory and DDS as any native publish.
//
// No loops: the mirror drops messages whose ROS 1 publisher is its own node (`ros1::Node` name),
// so a Ros1Mirror of the same topic on the same node is never fed back into ROS 2. One mirror per
// topic and direction, as with Ros1Mirror.
//
// Not thread-safe to configure; messages are handled on the subscription's reader threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/bridge/ros1_conversion.hpp"
#include "baton/bridge/ros1_mirror.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/node.hpp"
#include "baton/ros1/subscription.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::bridge {

struct Ros2MirrorOptions {
  std::string ros2_topic;  // "" = the ROS 1 topic's name
  std::string ros1_type;   // "" = the same-named ROS 1 type
  ros2::WireQos qos{};     // the ROS 2 publisher's
  ros1::LogHandler log;    // dropped messages; default: stderr
};

struct Ros2MirrorStats {
  uint64_t received = 0;   // ROS 1 messages received from other nodes
  uint64_t published = 0;  // published on ROS 2 (encoded once each)
  uint64_t own = 0;        // from this mirror's own ROS 1 node: not fed back
  uint64_t dropped = 0;    // did not decode, map or encode: dropped and logged
};

class Ros2Mirror {
 public:
  // Mirrors ROS 1 topic `ros1_topic` onto `ros2_node` as a ROS 2 topic of `type`.
  static Result<std::unique_ptr<Ros2Mirror>, Error<MirrorError>> create(
      ros1::Node& ros1_node, ros2::Node& ros2_node, const ros2::MessageDescription& type,
      const std::string& ros1_topic, Ros2MirrorOptions options = {});
  ~Ros2Mirror();  // unsubscribes first: no message is handled after it returns
  Ros2Mirror(const Ros2Mirror&) = delete;
  Ros2Mirror& operator=(const Ros2Mirror&) = delete;

  ros2::Publisher& ros2_publisher() noexcept { return *publisher_; }
  ros1::Subscription& ros1_subscription() noexcept { return *subscription_; }
  Ros2MirrorStats stats() const;

 private:
  struct State;  // what the ROS 1 sink uses (outlives nothing: the subscription goes first)
  Ros2Mirror(std::unique_ptr<ros2::Publisher> publisher, std::shared_ptr<State> state)
      : publisher_(std::move(publisher)), state_(std::move(state)) {}

  std::unique_ptr<ros2::Publisher> publisher_;
  std::shared_ptr<State> state_;
  std::unique_ptr<ros1::Subscription> subscription_;  // last: destroyed first
};

}  // namespace baton::bridge
