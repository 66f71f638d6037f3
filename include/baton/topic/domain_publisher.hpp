// A publisher that can borrow its message directly in a memory domain and publish the
// device-resident bytes, alongside the PublisherPort (which it wraps and does not change).
//
// In a domain that *is* host memory (host; OpenCL on a host-unified device) the loan is the
// publisher's shm chunk seen by the device: no copy anywhere. In a copying domain (staging,
// opencl:N:sc, CUDA on a discrete GPU) the loan is a slot of the domain's pool; publishing records
// it as the message's copy in that domain, so subscribers in the same domain share it, and the
// host bytes are written only when a host reader first needs them (or at once when subscribers
// that do not know about domains are attached).
//
// A message may start `payload_offset` bytes into its chunk (ChunkControl::payload_offset, e.g. a
// ROS 2 CDR sample at 4 so its arrays are element-aligned): the loan then covers the chunk from
// its start, payload_offset + size bytes, with the same layout in the domain as in the host
// chunk, so an offset into the message is the same in both; copies move those bytes whole.
//
// Not thread-safe: one thread at a time per publisher.
#pragma once

#include <memory>

#include "baton/memory/domain/domain_backend.hpp"
#include "baton/memory/domain/domain_table.hpp"
#include "baton/topic/publisher_port.hpp"

namespace baton::topic {

class DomainPublisher;

// A writable loan in the publisher's domain. Move-only; destroyed unpublished, it is returned.
class DeviceLoan {
 public:
  DeviceLoan() = default;
  ~DeviceLoan() { reset(); }
  DeviceLoan(DeviceLoan&& o) noexcept { *this = std::move(o); }
  DeviceLoan& operator=(DeviceLoan&& o) noexcept;
  DeviceLoan(const DeviceLoan&) = delete;

  // Where to write: cl_mem (`native`), CUDA device pointer (`device`) or host pointer (`host`).
  // It starts at the chunk's start: the message is at payload_offset() into it.
  const memory::domain::DeviceView& view() const noexcept { return view_; }
  // The message's size as loaned (the view holds payload_offset() + capacity() bytes).
  std::uint64_t capacity() const noexcept { return capacity_; }
  std::uint64_t payload_offset() const noexcept { return payload_offset_; }
  // The host chunk behind the loan (same layout as view()). In a domain that is host memory it
  // *is* the loan; in a copying domain it is what host readers get, written from the domain at
  // publish (or write_host()); DomainPublisher::upload() copies parts of it into the domain.
  std::byte* host_chunk() const noexcept { return chunk_.data; }
  bool valid() const noexcept { return owner_ != nullptr; }

 private:
  friend class DomainPublisher;
  void reset() noexcept;
  DomainPublisher* owner_ = nullptr;
  ChunkLoan chunk_;
  memory::domain::DeviceView view_;
  memory::domain::CopyPin pin_;
  bool has_pin_ = false;
  bool host_written_ = false;  // write_host() copied the domain bytes into the chunk already
  std::uint64_t capacity_ = 0;
  std::uint64_t payload_offset_ = 0;
};

class DomainPublisher {
 public:
  static Result<std::unique_ptr<DomainPublisher>, Error<PublisherCreateError>> create(
      std::shared_ptr<Topic> topic, const PublisherOptions& options,
      const memory::domain::DomainSpec& domain);
  ~DomainPublisher();  // outstanding loans must be gone first

  // A loan for a message of `size` bytes placed `payload_offset` bytes into its chunk.
  [[nodiscard]] Result<DeviceLoan, LoanError> loan(std::uint64_t size,
                                                   std::uint64_t payload_offset = 0) noexcept;
  // Publishes the first `size` bytes of the message (from the loan's payload offset); consumes
  // the loan.
  [[nodiscard]] Status<PublishError> publish(DeviceLoan&& loan, std::uint64_t size) noexcept;
  // Copies bytes [offset, offset + n) of the loan's host chunk into its domain memory (offsets
  // from the chunk's start, as view()): for parts the CPU wrote, e.g. a message's small fields.
  // Nothing to do where the domain is host memory. False if out of the loan or the copy failed.
  [[nodiscard]] bool upload(DeviceLoan& loan, std::uint64_t offset, std::uint64_t n) noexcept;
  // Writes the loan's first payload_offset + `size` bytes from the domain into its host chunk
  // now (publish then does not copy them again): for a caller that needs the host bytes before
  // publishing, e.g. to send them over a network. False if too large or the copy failed.
  [[nodiscard]] bool write_host(DeviceLoan& loan, std::uint64_t size) noexcept;

  PublisherPort& port() noexcept { return *port_; }
  memory::domain::DomainBackend& backend() noexcept { return *backend_; }
  memory::domain::DomainTable& table() noexcept { return *table_; }
  std::uint32_t domain_index() const noexcept { return domain_; }

 private:
  friend class DeviceLoan;
  DomainPublisher() = default;
  void discard(DeviceLoan& loan) noexcept;

  std::unique_ptr<PublisherPort> port_;
  std::shared_ptr<memory::domain::DomainBackend> backend_;
  std::shared_ptr<memory::domain::DomainTable> table_;
  std::uint32_t domain_ = 0;
};

}  // namespace baton::topic
