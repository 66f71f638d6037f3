// A baton subscription of a ROS 2 type that also listens on the DDS wire.
//
//   baton publishers in this shared-memory domain -> shared memory (zero copy up to the decode;
//                                                    with take_view(), arrays are not copied)
//   any other ROS 2 publisher (rclpy on Fast DDS, …) -> its DDS reader on rt/<topic>
//
// Its DDS reader carries this process's shm tag (shm/domain_tag.hpp) and drops samples of same-tag
// writers: a same-tag Publisher writes to DDS only for foreign readers, and what it writes
// reached us through shared memory already. So no message arrives twice.
//
// Every sample, from either path, is decoded as untrusted input: one that does not decode
// (malformed CDR, oversize string, …) is dropped, counted (malformed()) and logged on stderr
// ("[baton_ros2] …", the first 10 and then every power of two), never delivered.
//
// Not thread-safe: one thread takes / waits at a time.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "baton/api/guard_condition.hpp"
#include "baton/api/node.hpp"
#include "baton/api/subscription.hpp"
#include "baton/api/wait_set.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::wire {
class BridgedReader;  // the port, the DDS side and the exactly-once policy (src/wire/)
}  // namespace baton::wire

namespace baton::ros2 {

struct Sample {
  Value value;
  bool from_wire = false;  // true: came through DDS; false: through shared memory
};

// A sample from Subscription::take_view(). From shared memory, every non-empty primitive
// array of value() (an Image's `data`, a PointCloud2's `data`, …) is a view into the publisher's
// chunk (Value::view; read arrays with Value::bytes()): no copy. The view holds the chunk's loan,
// so the chunk is not recycled while the view lives, even if the publisher exits; it is given
// back when the view is destroyed. From DDS, the value owns its bytes as with take().
// Move-only; moving keeps the arrays valid (the chunk stays where it is mapped). A subscription
// holds at most MAX_LOANS_PER_SUBSCRIBER (16) shared-memory samples at once: while 16 views live,
// take() / take_view() get nothing from shared memory (logged once each time it happens).
class SampleView {
 public:
  const Value& value() const noexcept { return value_; }
  bool from_wire() const noexcept { return from_wire_; }
  // The received CDR sample in shared memory (empty for DDS samples): the views lie inside it.
  std::span<const uint8_t> shm_bytes() const noexcept {
    return loan_.valid() ? std::span(reinterpret_cast<const uint8_t*>(loan_.data()), loan_.size())
                         : std::span<const uint8_t>{};
  }

 private:
  friend class Subscription;
  SampleView(RawSample loan, Value value, bool from_wire)
      : loan_(std::move(loan)), value_(std::move(value)), from_wire_(from_wire) {}
  RawSample loan_;  // the chunk the views point into; invalid for DDS samples
  Value value_;
  bool from_wire_ = false;
};

class Subscription {
 public:
  // `ros_topic` as in ROS ("/chatter"). `wire` may be null (shared memory only); it must outlive
  // the subscription. `qos.user_data` empty = the baton endpoint default (shm tag + type hash).
  static Result<std::unique_ptr<Subscription>, Error<WireError>> create(
      baton::Node& node, const MessageDescription& type, const std::string& ros_topic,
      DdsParticipant* wire, const WireQos& qos = {});
  // On a ROS 2 node: name resolved by the node, listed in ros_discovery_info while it lives.
  static Result<std::unique_ptr<Subscription>, Error<WireError>> create(
      Node& node, const MessageDescription& type, const std::string& topic,
      const WireQos& qos = {});
  ~Subscription();

  // The next message from either path, decoded; nullopt when none is waiting.
  std::optional<Sample> take();
  // take() without copying primitive arrays out of shared memory (see SampleView). Same
  // checks: an array whose length points past the received sample's end is dropped, counted
  // (malformed()) and logged, never viewed.
  std::optional<SampleView> take_view();
  // Waits until take() may have a message (true) or `timeout` passes (false).
  bool wait(std::chrono::nanoseconds timeout);

  uint64_t from_shm() const noexcept { return from_shm_; }
  uint64_t from_wire() const noexcept { return from_wire_; }
  uint64_t malformed() const noexcept { return malformed_; }
  // DDS samples skipped because a same-tag writer sent them (they came through shared memory).
  uint64_t dropped_same_tag() const noexcept;
  uint32_t wire_writers() const;
  Guid gid() const;
  const std::string& topic() const noexcept { return topic_; }

 private:
  Subscription(const MessageDescription& type, std::string topic);
  // The next good sample of either path; primitive arrays of shm samples are views if `view`.
  std::optional<SampleView> next(bool view);
  void warn_views_held();
  std::optional<Value> decode_or_drop(std::span<const uint8_t> cdr, bool from_wire, bool view);

  const MessageDescription* type_;
  std::string topic_;
  std::unique_ptr<wire::BridgedReader> core_;
  WaitSet waitset_;  // the shared-memory port and the wire's guard
  uint64_t from_shm_ = 0, from_wire_ = 0, malformed_ = 0;
  bool views_exhausted_ = false;  // the last shm take found every loan held by views
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Subscription [[deprecated("use baton::ros2::Subscription")]] = Subscription;
using Ros2Sample [[deprecated("use baton::ros2::Sample")]] = Sample;
using Ros2SampleView [[deprecated("use baton::ros2::SampleView")]] = SampleView;

}  // namespace baton::ros2
