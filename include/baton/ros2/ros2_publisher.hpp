// Prototype: a baton publisher of a ROS 2 type whose samples also go on the DDS wire.
//
//   local baton subscribers  <- shared memory (the CDR bytes, encoded straight into a loan)
//   remote ROS 2 subscribers <- DDS rt/<topic>, only while a DDS reader is matched
//
// Prototype limits (see README "Local vs wire"): every matched DDS reader counts as remote (no
// baton USER_DATA tag yet), so a baton subscriber that also had a DDS reader would get the
// message twice; no ros_discovery_info; the DDS write copies the loan's bytes once.
#pragma once

#include <memory>
#include <string>

#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/dds_wire.hpp"
#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {

class Ros2Publisher {
 public:
  // `ros_topic` as in ROS ("/chatter"); the baton topic has the same name. `wire` may be null
  // (shared memory only); it must outlive the publisher.
  static Result<Ros2Publisher, Error<WireError>> create(Node& node, const MessageDescription& type,
                                                        const std::string& ros_topic,
                                                        DdsParticipant* wire,
                                                        const WireQos& qos = {});

  // Encodes `v` into a loan, publishes it on shared memory and, if a DDS reader is matched, on
  // DDS. Errors: the CdrError of encoding (nothing was published); Internal when the loan or
  // either publish failed (detail says which).
  Status<Error<CdrError>> publish(const Value& v);

  uint64_t wire_samples() const noexcept { return wire_samples_; }
  uint32_t wire_readers() const { return writer_ ? writer_->matched_readers() : 0; }

 private:
  Ros2Publisher(const MessageDescription& type, RawPublisher pub)
      : type_(&type), publisher_(std::move(pub)) {}
  const MessageDescription* type_;
  RawPublisher publisher_;
  std::unique_ptr<DdsRawWriter> writer_;
  uint64_t wire_samples_ = 0;
};

}  // namespace baton::ros2
