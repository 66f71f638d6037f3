// A baton publisher of a ROS 2 type whose samples also go on the DDS wire when someone there
// needs them.
//
//   local baton subscribers  <- shared memory (the CDR bytes, encoded straight into a loan)
//   remote ROS 2 subscribers <- DDS rt/<topic>, only while a matched DDS reader is *not* a
//                               baton reader with this process's shm tag (shm/domain_tag.hpp)
//
// Exception: a transient-local publisher always writes to DDS as well, so its DDS writer holds the
// history a late-joining DDS reader asks for (same-tag readers drop those samples).
// So baton -> baton is shared memory only, baton -> rclpy is one DDS write (DDS fans out), and a
// baton subscriber never gets a message twice (it also drops DDS samples of same-tag writers).
// Made on a Node, the writer's GUID is listed under the node in ros_discovery_info and its
// USER_DATA carries "typehash=RIHS01_…;", so other RMWs list it with node, type and hash.
// The DDS write copies the loan's bytes once (Cyclone keeps the sample for retransmission).
//
// Two-phase publish: loan(shape) encodes every field but the large arrays the shape gives as
// Value::reserved(n) straight into a loan, and hands out each such array's room to be written in
// place (by the CPU, a camera driver, a kernel); publish(Loan&&) then publishes it exactly as
// publish(const Value&) does (which is loan + publish with nothing reserved).
//
// Memory domain (create(..., domain), e.g. "opencl:0", "opencl:0:sc", "cuda:0", "staging"): the
// loan lives in the domain (topic::DomainPublisher): its small fields are encoded on the host and
// copied into the domain loan (a few bytes), the reserved arrays are written there by the caller
// (Loan::device_array: a cl_mem + offset, a CUDA device pointer + offset, or a host pointer
// where the domain is host memory). Host subscribers that know nothing of domains get host bytes
// (DomainPublisher writes the host chunk for them), and a foreign DDS reader gets the sample
// after one copy of the whole message to host memory.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/api/domain_endpoints.hpp"
#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::wire {
class BridgedWriter;  // the DDS side and the exactly-once policy (src/wire/bridged_topic.hpp)
}  // namespace baton::wire

namespace baton::ros2 {

// One primitive array of a message in a memory domain: `bytes` bytes at `offset` into `view`.
// `view` *borrows* the message's memory (a cl_mem, a device pointer or a host pointer, as
// memory::domain::DeviceView says): valid until the loan or sample it came from is published or
// destroyed; do not release it. The elements are aligned for their type within the message.
struct DeviceArray {
  memory::domain::DeviceView view;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t element_size = 0;
};

class Publisher;

// A message on loan from a Publisher: every field encoded except the Value::reserved arrays,
// whose room the caller fills before publish(Loan&&). Move-only; destroyed unpublished, the
// loan goes back to the pool. Reserved arrays' bytes are not initialised: write all of them (a
// bool array with 0 / 1 only: subscribers drop a sample with another byte value).
class Loan {
 public:
  Loan() = default;
  Loan(Loan&&) noexcept = default;
  Loan& operator=(Loan&&) noexcept = default;

  // The writable elements of reserved array `path` ("data", "a.b", "items[2].data") in host
  // memory. Empty if there is no such reserved array, or if the loan lives in a copying domain
  // (the host bytes would not be published): use device_array() there.
  std::span<uint8_t> array(std::string_view path) const;
  // Reserved array `path` where the publisher's domain reaches it (on a host publisher: its host
  // pointer); nullopt if there is no such reserved array.
  std::optional<DeviceArray> device_array(std::string_view path) const;
  // The reserved arrays, in encoding order (offsets from the start of the CDR sample).
  const std::vector<ArraySlot>& arrays() const noexcept { return arrays_; }
  // The CDR sample's bytes in the host chunk (header included).
  std::span<uint8_t> host_sample() const noexcept;
  bool valid() const noexcept { return owner_ != nullptr; }

 private:
  friend class Publisher;
  const Publisher* owner_ = nullptr;
  RawLoan host_;                     // host publisher
  baton::topic::DeviceLoan device_;  // publisher in a memory domain
  std::byte* chunk_ = nullptr;       // the host chunk (the sample is at CDR_SAMPLE_OFFSET)
  uint64_t size_ = 0;                // the CDR sample's size
  bool host_addressable_ = true;
  std::vector<ArraySlot> arrays_;
};

class Publisher {
 public:
  // `ros_topic` as in ROS ("/chatter"); the baton topic has the same name. `wire` may be null
  // (shared memory only); it must outlive the publisher. `qos.user_data` empty = the baton
  // endpoint default (shm tag + type hash).
  // `domain` ("" = host shared memory, or "staging", "opencl:N", "opencl:N:sc", "cuda:N"): where
  // loans live (see above); an unavailable domain is a WireError::Endpoint naming it.
  static Result<Publisher, Error<WireError>> create(baton::Node& node,
                                                    const MessageDescription& type,
                                                    const std::string& ros_topic,
                                                    DdsParticipant* wire, const WireQos& qos = {},
                                                    std::string_view domain = {});
  // On a ROS 2 node: `topic` resolved by the node (relative names get its namespace), DDS writer
  // on the node's participant, listed in ros_discovery_info until the publisher is destroyed.
  static Result<Publisher, Error<WireError>> create(Node& node, const MessageDescription& type,
                                                    const std::string& topic,
                                                    const WireQos& qos = {},
                                                    std::string_view domain = {});

  // Encodes `v` into a loan, publishes it on shared memory and, if a foreign DDS reader is
  // matched, on DDS. Errors: the CdrError of encoding (nothing was published); Internal when the
  // loan or either publish failed (detail says which). In a copying domain this costs a copy of
  // the whole message into the domain: use loan() to write large arrays there directly.
  Status<Error<CdrError>> publish(const Value& v);
  // Phase one: a loan holding `shape` encoded, its Value::reserved arrays left for the caller
  // (Loan::array / device_array). Errors: the CdrError of encoding; Internal when no loan
  // could be had or the small fields could not be copied into the domain.
  Result<Loan, Error<CdrError>> loan(const Value& shape);
  // A loan for a message already serialized (a recorded one): `cdr_bytes` bytes, the CDR
  // encapsulation header included, all left for the caller to write into host_sample() (nothing is
  // encoded). Subscribers decode it as untrusted bytes, as any sample. Host publishers only (in a
  // memory domain the bytes would not reach the loan): Internal otherwise, or when no loan could
  // be had.
  Result<Loan, Error<CdrError>> loan_serialized(uint64_t cdr_bytes);
  // Pays now for `count` loan_serialized() loans of up to `cdr_bytes` (RawPublisher::reserve):
  // a recorded stream's pool is committed before it is played, not while (a 4K chunk's first
  // touch made frames late). Host publishers only; Internal otherwise or when the pool refuses
  // (detail names the limit or /dev/shm).
  Status<Error<CdrError>> reserve_serialized(uint64_t cdr_bytes, uint32_t count);
  // Phase two: publishes the loan (consumed) as publish(const Value&) does. Errors: Internal for
  // a loan of another publisher or a failed publish (detail says which).
  Status<Error<CdrError>> publish(Loan&& loan);

  uint64_t wire_samples() const noexcept;
  // Baton subscriptions on the topic (any process of this shared-memory domain).
  uint32_t shm_subscribers() const {
    return domain_ ? (*domain_)->port().subscriber_count() : publisher_.subscription_count();
  }
  // The memory domain loans live in ("host" without one).
  std::string domain() const { return domain_ ? (*domain_)->backend().spec().str() : "host"; }
  uint32_t wire_readers() const;
  // Matched DDS readers that are not same-tag baton readers (those that get DDS samples).
  uint32_t wire_foreign_readers();
  // The DDS writer's GUID (rmw gid); zero without a wire.
  Guid gid() const;
  const std::string& topic() const noexcept { return topic_; }
  const MessageDescription& type() const noexcept { return *type_; }
  // The shared-memory writer as subscribers see it (TakenSample::publisher_slot(),
  // publisher_generation()): lets a reader of the topic tell this publisher's samples apart.
  std::pair<uint32_t, uint32_t> shm_writer() {
    auto& port = domain_ ? (*domain_)->port() : publisher_.port();
    return {port.slot(), port.generation()};
  }

  ~Publisher();
  Publisher(Publisher&&) noexcept;
  Publisher& operator=(Publisher&&) noexcept;

 private:
  Publisher(const MessageDescription& type, RawPublisher pub, std::string topic);
  Publisher(const MessageDescription& type, baton::DomainPublisher pub, std::string topic);
  const MessageDescription* type_;
  RawPublisher publisher_;                        // host shared memory, or
  std::optional<baton::DomainPublisher> domain_;  // a memory domain
  std::string topic_;
  std::unique_ptr<wire::BridgedWriter> wire_;  // null: shared memory only
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Publisher [[deprecated("use baton::ros2::Publisher")]] = Publisher;
using Ros2Loan [[deprecated("use baton::ros2::Loan")]] = Loan;

}  // namespace baton::ros2
