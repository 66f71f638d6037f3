// A baton publisher of a ROS 2 type whose samples also go on the DDS wire when someone there
// needs them.
//
//   local baton subscribers  <- shared memory (the CDR bytes, encoded straight into a loan)
//   remote ROS 2 subscribers <- DDS rt/<topic>, only while a matched DDS reader is *not* a
//                               baton reader with this process's shm tag (shm_peer_tag.hpp)
//
// Exception: a transient-local publisher always writes to DDS as well, so its DDS writer holds the
// history a late-joining DDS reader asks for (same-tag readers drop those samples).
// So baton -> baton is shared memory only, baton -> rclpy is one DDS write (DDS fans out), and a
// baton subscriber never gets a message twice (it also drops DDS samples of same-tag writers).
// Made on a Ros2Node, the writer's GUID is listed under the node in ros_discovery_info and its
// USER_DATA carries "typehash=RIHS01_…;", so other RMWs list it with node, type and hash.
// The DDS write copies the loan's bytes once (Cyclone keeps the sample for retransmission).
#pragma once

#include <memory>
#include <string>

#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/dds_wire.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {

class Ros2Publisher {
 public:
  // `ros_topic` as in ROS ("/chatter"); the baton topic has the same name. `wire` may be null
  // (shared memory only); it must outlive the publisher. `qos.user_data` empty = the baton
  // endpoint default (shm tag + type hash).
  static Result<Ros2Publisher, Error<WireError>> create(Node& node, const MessageDescription& type,
                                                        const std::string& ros_topic,
                                                        DdsParticipant* wire,
                                                        const WireQos& qos = {});
  // On a ROS 2 node: `topic` resolved by the node (relative names get its namespace), DDS writer
  // on the node's participant, listed in ros_discovery_info until the publisher is destroyed.
  static Result<Ros2Publisher, Error<WireError>> create(Ros2Node& node,
                                                        const MessageDescription& type,
                                                        const std::string& topic,
                                                        const WireQos& qos = {});

  // Encodes `v` into a loan, publishes it on shared memory and, if a foreign DDS reader is
  // matched, on DDS. Errors: the CdrError of encoding (nothing was published); Internal when the
  // loan or either publish failed (detail says which).
  Status<Error<CdrError>> publish(const Value& v);

  uint64_t wire_samples() const noexcept { return wire_samples_; }
  // Baton subscriptions on the topic (any process of this shared-memory domain).
  uint32_t shm_subscribers() const { return publisher_.subscription_count(); }
  uint32_t wire_readers() const { return writer_ ? writer_->matched_readers() : 0; }
  // Matched DDS readers that are not same-tag baton readers (those that get DDS samples).
  uint32_t wire_foreign_readers() { return writer_ ? writer_->matched_foreign_readers() : 0; }
  // The DDS writer's GUID (rmw gid); zero without a wire.
  Guid gid() const { return writer_ ? writer_->guid() : Guid{}; }
  const std::string& topic() const noexcept { return topic_; }

 private:
  Ros2Publisher(const MessageDescription& type, RawPublisher pub, std::string topic)
      : type_(&type), publisher_(std::move(pub)), topic_(std::move(topic)) {}
  const MessageDescription* type_;
  RawPublisher publisher_;
  std::string topic_;
  std::unique_ptr<DdsRawWriter> writer_;
  bool always_wire_ = false;  // transient local: DDS keeps the history for late joiners
  std::unique_ptr<DiscoveryListing> listing_;  // after writer_: unlisted before it is deleted
  uint64_t wire_samples_ = 0;
};

}  // namespace baton::ros2
