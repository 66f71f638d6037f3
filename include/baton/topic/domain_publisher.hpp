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
  const memory::domain::DeviceView& view() const noexcept { return view_; }
  std::uint64_t capacity() const noexcept { return capacity_; }
  bool valid() const noexcept { return owner_ != nullptr; }

 private:
  friend class DomainPublisher;
  void reset() noexcept;
  DomainPublisher* owner_ = nullptr;
  ChunkLoan chunk_;
  memory::domain::DeviceView view_;
  memory::domain::CopyPin pin_;
  bool has_pin_ = false;
  std::uint64_t capacity_ = 0;
};

class DomainPublisher {
 public:
  static Result<std::unique_ptr<DomainPublisher>, Error<PublisherCreateError>> create(
      std::shared_ptr<Topic> topic, const PublisherOptions& options,
      const memory::domain::DomainSpec& domain);
  ~DomainPublisher();  // outstanding loans must be gone first

  [[nodiscard]] Result<DeviceLoan, LoanError> loan(std::uint64_t size) noexcept;
  // Publishes the first `size` bytes of the loan; consumes it.
  [[nodiscard]] Status<PublishError> publish(DeviceLoan&& loan, std::uint64_t size) noexcept;

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
