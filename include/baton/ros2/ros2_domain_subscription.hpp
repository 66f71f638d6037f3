// A subscription of a ROS 2 type that receives in a memory domain ("host", "staging", "opencl:N",
// "opencl:N:sc", "cuda:N"): the large arrays of a message (an Image's `data`, a PointCloud2's
// `data`) are read where the domain has them — a cl_mem, a device pointer, or host memory — with
// at most one copy per message per domain, shared by every subscriber of that domain in any
// process (topic::DomainSubscriber); none at all from a publisher in the same domain, or where
// the domain is host memory.
//
//   baton publishers in this shared-memory domain -> shared memory, brought into the domain
//   any other ROS 2 publisher (rclpy on Fast DDS, …) -> its DDS reader on rt/<topic>; the sample
//                                    is decoded (checked) on the host and brought into the
//                                    domain with exactly one copy (DomainPath::MadeCopy)
//
// Only the small fields are decoded, from the host chunk, without bringing the whole message to
// host memory: in a copying domain the host bytes of a device-published array may not be there
// yet, and decode_locate() does not read array contents (bool arrays included). Every primitive
// array is given as Value::reserved(count) in value() and as a DeviceArray by array(). Every
// length is checked against the received sample (shared memory is never trusted): a sample that
// does not decode is dropped, counted (malformed()) and logged, as Subscription does.
//
// Not thread-safe: one thread takes / waits at a time.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/api/domain_endpoints.hpp"
#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::wire {
class ForeignReader;
}  // namespace baton::wire

namespace baton::ros2 {

// A DDS sample's copy in a domain: a pool of its own (released with the last sample using it).
struct WireDomainCopy;

// One message in the subscription's domain. Move-only; holds the message (the publisher's chunk
// and the domain copy) until destroyed.
class DomainSample {
 public:
  // The small fields; every primitive array is Value::reserved(count): read it through array().
  const Value& value() const noexcept { return value_; }
  // Primitive array `path` ("data", "fields[1].name") in the subscriber's domain; nullopt if the
  // type has no primitive array there. The view *borrows* the message: valid while this lives.
  std::optional<DeviceArray> array(std::string_view path) const;
  // Every primitive array's slot (offsets from the CDR sample's start).
  const std::vector<ArraySlot>& arrays() const noexcept { return arrays_; }
  // How the message reached the domain (from DDS: MadeCopy, the one copy of the sample).
  DomainPath path() const noexcept { return path_; }
  bool from_wire() const noexcept { return from_wire_; }
  // The whole message in the domain (cl_mem, device or host pointer); the CDR sample starts
  // sample_offset() bytes into it.
  const memory::domain::DeviceView& view() const noexcept { return view_; }
  uint64_t sample_offset() const noexcept { return sample_offset_; }

 private:
  friend class DomainSubscription;
  baton::topic::DomainSample shm_;        // a sample from shared memory, or
  std::shared_ptr<WireDomainCopy> wire_;  // a DDS sample's copy in the domain
  memory::domain::DeviceView view_;       // borrowed from shm_ or wire_
  uint64_t sample_offset_ = 0;
  Value value_;
  std::vector<ArraySlot> arrays_;
  DomainPath path_ = DomainPath::ZeroCopy;
  bool from_wire_ = false;
};

class DomainSubscription {
 public:
  // As Subscription::create, receiving in `domain`. Errors: WireError::Endpoint when the
  // domain cannot be opened here (the detail names it) or the baton port cannot be made.
  static Result<std::unique_ptr<DomainSubscription>, Error<WireError>> create(
      baton::Node& node, const MessageDescription& type, const std::string& ros_topic,
      DdsParticipant* wire, std::string_view domain, const WireQos& qos = {});
  // On a ROS 2 node: name resolved by the node, listed in ros_discovery_info while it lives.
  static Result<std::unique_ptr<DomainSubscription>, Error<WireError>> create(
      Node& node, const MessageDescription& type, const std::string& topic, std::string_view domain,
      const WireQos& qos = {});
  ~DomainSubscription();

  // The next good message from either path, in the domain; nullopt when none is waiting (or
  // every waiting one was dropped: malformed, or not brought into the domain — counted in
  // malformed() / domain_failures()).
  std::optional<DomainSample> take();
  // Waits until take() may have a message (true) or `timeout` passes (false). DDS samples are
  // noticed within 10 ms (the wait sleeps on the shared-memory port in slices).
  bool wait(std::chrono::nanoseconds timeout);

  uint64_t from_shm() const noexcept { return from_shm_; }
  uint64_t from_wire() const noexcept { return from_wire_; }
  uint64_t malformed() const noexcept { return malformed_; }
  // Messages skipped because they could not be brought into the domain (device full, driver).
  uint64_t domain_failures() const noexcept { return domain_failures_; }
  uint64_t dropped_same_tag() const noexcept;
  // The domain port (DomainSubscriber): domain_copies(), backend(), …
  baton::topic::DomainSubscriber& port() const noexcept { return **shm_; }
  Guid gid() const;
  const std::string& topic() const noexcept { return topic_; }

 private:
  DomainSubscription(const MessageDescription& type, std::string topic);
  std::optional<DomainSample> from_shared_memory();
  std::optional<DomainSample> from_dds();
  // Decodes the small fields of `cdr` into `s`, or counts and logs the drop.
  bool locate_or_drop(std::span<const uint8_t> cdr, bool from_wire, DomainSample& s);

  const MessageDescription* type_;
  std::string topic_;
  std::optional<baton::DomainSubscription> shm_;
  std::shared_ptr<memory::domain::DomainBackend> backend_;
  std::unique_ptr<wire::ForeignReader> reader_;  // the DDS side (src/wire/foreign_wire.hpp)
  std::unique_ptr<DiscoveryListing> listing_;
  uint64_t from_shm_ = 0, from_wire_ = 0, malformed_ = 0, domain_failures_ = 0;
  uint64_t wire_copies_ = 0;  // names the pools of DDS samples' copies
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2DomainSubscription [[deprecated("use baton::ros2::DomainSubscription")]] =
    DomainSubscription;
using Ros2DomainSample [[deprecated("use baton::ros2::DomainSample")]] = DomainSample;

}  // namespace baton::ros2
