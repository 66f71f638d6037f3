// The host domain: host shared memory is where messages are born, so it never copies a
// message in. Its pools are plain anonymous host memory (page-aligned); every model degenerates
// to "the CPU works on host memory".
#pragma once

#include <memory>

#include "baton/memory/domain/domain_backend.hpp"

namespace baton::memory::domain {

class HostBackend : public DomainBackend {
 public:
  static std::shared_ptr<HostBackend> open();

  bool zero_copy_from_host() const noexcept override { return true; }
  bool can_export() const noexcept override { return false; }
  Result<DomainPool, Error<DomainError>> create_pool(std::uint64_t bytes,
                                                     const std::string& name) override;
  Status<DomainError> copy_from_host(const DomainPool& dst, std::uint64_t offset, const void* src,
                                     std::uint64_t n) override;
  Status<DomainError> copy_to_host(void* dst, const DomainPool& src, std::uint64_t offset,
                                   std::uint64_t n) override;
  Result<DeviceView, Error<DomainError>> view(const DomainPool& pool, std::uint64_t offset,
                                              std::uint64_t n) override;
  Result<DeviceView, Error<DomainError>> wrap_host(std::byte* host, std::uint64_t n) override;
  Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> kernel_buffer(std::uint64_t n,
                                                                          CommModel m) override;

 protected:
  explicit HostBackend(DomainSpec spec);
};

}  // namespace baton::memory::domain
