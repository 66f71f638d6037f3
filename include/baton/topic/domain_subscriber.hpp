// A subscriber that receives messages in a memory domain of its choice ("host", "opencl:0",
// "cuda:0", "staging", "opencl:0:sc"), built alongside the SubscriberPort (which it wraps and
// does not change).
//
// A message is copied into a domain at most once, on the first take that needs it; every later
// subscriber in that domain, in any process, shares that copy (the publisher's domain copy
// table, memory/domain/domain_table.hpp, records it). Where host memory is the domain's memory
// (host; OpenCL on a host-unified device such as PoCL; CUDA on an integrated Jetson-class GPU)
// the publisher's chunk itself is handed to the device and nothing is ever copied.
//
// Not thread-safe: one thread at a time per subscriber; samples may be released on any thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/common/result.hpp"
#include "baton/memory/domain/domain_backend.hpp"
#include "baton/memory/domain/domain_table.hpp"
#include "baton/topic/subscriber_port.hpp"

namespace baton::topic {

// Name of the domain copy table of publisher (slot, generation) of `topic`.
std::string domain_table_name(const Topic& topic, std::uint32_t slot, std::uint32_t generation);

enum class DomainSubscriberCreateError : std::uint8_t {
  DomainUnavailable,  // The domain cannot be opened here (no platform / driver / device).
  InvalidQos,         // depth must be 1..65536.
  NoFreeSlot,         // MAX_SUBSCRIBERS subscribers are attached to this topic already, or
                      // none of the first MAX_TABLE_READERS slots (domain reader bits) is free.
  SegmentFailure,     // The topic's directory could not be reopened; see the detail.
};

enum class DomainTakeError : std::uint8_t {
  NoData,        // Nothing new: wait() or try later.
  TooManyLoans,  // MAX_LOANS_PER_SUBSCRIBER samples are held: release one first.
  CopyFailed,    // The message could not be brought into the domain (device full, driver error);
                 // the message is skipped.
  Busy,          // Another live process held the message's copy lock too long; skipped.
};

constexpr std::string_view to_string(DomainSubscriberCreateError e) noexcept {
  switch (e) {
    case DomainSubscriberCreateError::DomainUnavailable:
      return "memory domain unavailable";
    case DomainSubscriberCreateError::InvalidQos:
      return "invalid QoS";
    case DomainSubscriberCreateError::NoFreeSlot:
      return "too many subscribers on topic";
    case DomainSubscriberCreateError::SegmentFailure:
      return "topic directory could not be reopened";
  }
  return "unknown";
}
constexpr std::string_view to_string(DomainTakeError e) noexcept {
  switch (e) {
    case DomainTakeError::NoData:
      return "no data";
    case DomainTakeError::TooManyLoans:
      return "too many samples held";
    case DomainTakeError::CopyFailed:
      return "copy into the domain failed";
    case DomainTakeError::Busy:
      return "copy lock busy";
  }
  return "unknown";
}

namespace detail {
struct ReaderRegistration;
}

// How a sample reached its domain.
enum class DomainPath : std::uint8_t {
  ZeroCopy,    // the publisher's bytes themselves (host or a host-unified device)
  SharedCopy,  // a copy another take (in this or another process) already made
  MadeCopy,    // this take made the domain's copy
};

// A read-only loan of one message in the subscriber's domain. Move-only; the destructor returns
// it. view() *borrows* the bytes: valid until the sample is released.
class DomainSample {
 public:
  DomainSample() = default;
  ~DomainSample() { release(); }
  DomainSample(DomainSample&& o) noexcept { *this = std::move(o); }
  DomainSample& operator=(DomainSample&& o) noexcept;
  DomainSample(const DomainSample&) = delete;

  // The message in the subscriber's domain: host pointer (host, staging, unified devices),
  // cl_mem (OpenCL: `native`), CUDA device pointer (`device`). It starts at the start of the
  // publisher's chunk: the message is payload_offset() bytes into it (0 unless the publisher
  // placed it further, DomainPublisher::loan), and the view holds payload_offset() + size().
  const memory::domain::DeviceView& view() const noexcept { return view_; }
  std::uint64_t payload_offset() const noexcept { return host_.payload_offset(); }
  // The publisher's host bytes (pinned as long as the sample lives).
  const TakenSample& host() const noexcept { return host_; }
  std::uint64_t size() const noexcept { return host_.size(); }
  std::uint64_t sequence() const noexcept { return host_.sequence(); }
  DomainPath path() const noexcept { return path_; }
  bool valid() const noexcept { return host_.valid(); }
  void release() noexcept;

 private:
  friend class DomainSubscriber;
  TakenSample host_;
  memory::domain::DeviceView view_;
  std::shared_ptr<memory::domain::DomainBackend> backend_;
  std::shared_ptr<detail::ReaderRegistration> reader_;
  memory::domain::CopyPin pin_;
  bool pinned_ = false;
  DomainPath path_ = DomainPath::ZeroCopy;
};

class DomainSubscriber {
 public:
  static Result<std::unique_ptr<DomainSubscriber>, Error<DomainSubscriberCreateError>> create(
      std::shared_ptr<Topic> topic, const SubscriberOptions& options,
      const memory::domain::DomainSpec& domain);
  ~DomainSubscriber();

  [[nodiscard]] Result<DomainSample, DomainTakeError> take() noexcept;
  bool has_data() noexcept { return port_->has_data(); }
  bool wait(std::chrono::nanoseconds timeout) noexcept { return port_->wait(timeout); }

  SubscriberPort& port() noexcept { return *port_; }
  memory::domain::DomainBackend& backend() noexcept { return *backend_; }
  const memory::domain::DomainSpec& domain() const noexcept { return backend_->spec(); }
  // Copies made into this subscriber's domain of publisher slot p's messages, by every process
  // (0 before the first take from it).
  std::uint64_t domain_copies(std::uint32_t publisher_slot) const noexcept;
  // The domain's index in publisher slot p's table (registration order; host = 0), or -1.
  int domain_index(std::uint32_t publisher_slot) const noexcept;

 private:
  DomainSubscriber() = default;
  struct TableRef {
    std::uint32_t generation = 0;
    std::shared_ptr<detail::ReaderRegistration> reader;
    std::uint32_t domain = 0;
  };
  TableRef* table_for(std::uint32_t slot, std::uint32_t generation);

  std::shared_ptr<Topic> topic_;
  std::unique_ptr<SubscriberPort> port_;
  std::shared_ptr<memory::domain::DomainBackend> backend_;
  std::array<TableRef, MAX_PUBLISHERS> tables_{};
};

}  // namespace baton::topic
