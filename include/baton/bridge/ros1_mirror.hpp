// Ros1Mirror: a native ROS 2 topic of baton, published on a ROS 1 graph as well, so one
// publisher reaches every kind of subscriber at once (issue 19 item 4, what replaces ros1_bridge):
//
//   Publisher ── loan (CDR, written once) ──┬─> native baton subscriptions     shared memory
//                                               ├─> rclpy / rcl on rmw_baton_cpp   shared memory
//                                               ├─> Fast DDS / other RMWs          DDS (the ROS 2
//                                               │                                  layer's wire)
//                                               └─> Ros1Mirror: CDR -> ROS 1 once ─┬> rospy, roscpp
//                                                                                   │   TCPROS
//                                                                                   └> baton ROS 1
//                                                                                       BATONSHM
//
// The mirror reads the ROS 2 topic's baton topic in place (a shared-memory subscription of its
// own, so the publisher may live in any process of the shm domain) and converts each sample once
// (CdrToRos1, ros1_conversion.hpp) straight into the buffer its ros1::Publisher sends
// (Publisher::publish_filled): the BATONSHM loan while baton ROS 1 subscribers read one (TCPROS
// then sends a copy of those bytes), else the one TCPROS frame every connection shares.
// While the ROS 1 topic has no subscriber nothing is converted.
//
// Exactly once. A rospy / roscpp node reaches only the mirror's ROS 1 publication (TCPROS). A baton
// ROS 1 subscription reads the ROS 1 topic's own baton topic (/_ros1/<topic>, ROS 1 bytes) over
// BATONSHM, never the ROS 2 topic's (CDR), so it gets the mirror's copy once. Native and rmw
// subscribers read the ROS 2 topic and never see the ROS 1 side. One mirror per topic and graph:
// two mirrors of one topic would be two ROS 1 publishers, and ROS 1 subscribers get both.
//
// Samples that reach this process only over DDS (a Fast DDS talker) are not mirrored: the mirror
// reads shared memory. The other direction is Ros2Mirror (ros2_mirror.hpp); mirroring one topic
// both ways, pass the Ros2Mirror's publisher to skip_publisher.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "baton/api/guard_condition.hpp"
#include "baton/api/node.hpp"
#include "baton/api/subscription.hpp"
#include "baton/bridge/ros1_conversion.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/node.hpp"
#include "baton/ros1/publisher.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_publisher.hpp"

namespace baton::bridge {

enum class MirrorError : uint8_t {
  // No ROS 1 counterpart type, or the two types do not pair (detail: the field and why).
  Types,
  // The ROS 1 publisher or the shared-memory subscription could not be made (detail: why).
  Endpoint,
};

constexpr std::string_view to_string(MirrorError e) noexcept {
  switch (e) {
    case MirrorError::Types:
      return "Types";
    case MirrorError::Endpoint:
      return "Endpoint";
  }
  return "?";
}

struct MirrorOptions {
  std::string ros1_topic;   // "" = the ROS 2 topic's name
  std::string ros1_type;    // "" = the same-named ROS 1 type ("sensor_msgs/Image")
  size_t queue_size = 100;  // per TCPROS subscriber (ros1::PublisherOptions::queue_size)
  uint32_t depth = 16;      // the shared-memory subscription's queue
  bool reliable = true;
  // ROS 1 latching: a ROS 1 subscriber that connects later gets the last message first (for
  // transient-local ROS 2 topics: maps, static transforms). Every sample is then converted, with
  // or without ROS 1 subscribers.
  bool latch = false;           // as a ROS 2 subscriber: a full queue holds the publisher back
  ros2::DecodeLimits limits{};  // for the CDR input (untrusted)
  ros1::LogHandler log;         // dropped samples; default: stderr
};

struct MirrorStats {
  uint64_t taken = 0;      // samples read from the ROS 2 topic
  uint64_t converted = 0;  // converted to ROS 1 (once each) and published
  uint64_t unread = 0;     // taken while the ROS 1 topic had no subscriber: not converted
  uint64_t malformed = 0;  // CDR that did not convert: dropped and logged
  uint64_t bytes = 0;      // ROS 1 bytes converted
  uint64_t skipped = 0;    // from publishers left out (skip_publisher)
};

class Ros1Mirror {
 public:
  // Mirrors ROS 2 topic `ros2_topic` ("/chatter", as the publisher resolved it) of `type` onto
  // `ros1_node`'s graph; `shm_node` is the baton node whose context reads the shared memory.
  static Result<std::unique_ptr<Ros1Mirror>, Error<MirrorError>> create(
      ros1::Node& ros1_node, Node& shm_node, const ros2::MessageDescription& type,
      const std::string& ros2_topic, MirrorOptions options = {});
  // The same for a native publisher's topic and type (the usual case: a few lines of user code).
  static Result<std::unique_ptr<Ros1Mirror>, Error<MirrorError>> create(
      ros1::Node& ros1_node, ros2::Node& ros2_node, const ros2::Publisher& publisher,
      MirrorOptions options = {});
  ~Ros1Mirror();  // stops the reader thread, then unregisters the ROS 1 publisher
  Ros1Mirror(const Ros1Mirror&) = delete;
  Ros1Mirror& operator=(const Ros1Mirror&) = delete;

  ros1::Publisher& ros1_publisher() noexcept { return *publisher_; }
  const CdrToRos1& conversion() const noexcept { return conversion_; }
  MirrorStats stats() const;
  // Leaves `publisher`'s samples of the topic out (counted as `skipped`): when the topic is also
  // mirrored the other way, pass that Ros2Mirror's ros2_publisher(), or rospy / roscpp listeners
  // would get every ROS 1 talker's message a second time, echoed back by this mirror.
  void skip_publisher(ros2::Publisher& publisher);

 private:
  Ros1Mirror(CdrToRos1 conversion, std::unique_ptr<ros1::Publisher> publisher,
             std::shared_ptr<RawSubscription> subscription, MirrorOptions options);
  void run();
  void mirror_one(const RawSample& sample);

  const CdrToRos1 conversion_;
  const std::unique_ptr<ros1::Publisher> publisher_;
  const std::shared_ptr<RawSubscription> subscription_;
  const MirrorOptions options_;
  const std::shared_ptr<GuardCondition> stop_ = std::make_shared<GuardCondition>();
  std::atomic<bool> stopping_{false};
  uint32_t seq_ = 0;  // the ROS 1 header seq, as a rospy publisher counts it (reader thread only)
  std::atomic<uint64_t> taken_{0}, converted_{0}, unread_{0}, malformed_{0}, bytes_{0}, skipped_{0};
  mutable std::mutex skip_mutex_;
  std::set<std::pair<uint32_t, uint32_t>> skip_;  // (slot, generation) of left-out publishers
  std::thread thread_;
};

}  // namespace baton::bridge
