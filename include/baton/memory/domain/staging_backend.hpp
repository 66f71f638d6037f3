// The staging domain: a host shared-memory pool separate from the publishers' chunks, so taking
// a message in it really copies (once per message, shared by every subscriber in the domain,
// in any process). It stands in for a device domain where none exists: tests and benchmarks use
// it to count copies and to exercise cross-process pool export / import, which here is by
// segment name (a CUDA domain does the same with a VMM file descriptor).
#pragma once

#include <memory>

#include "baton/memory/domain/host_backend.hpp"

namespace baton::memory::domain {

class StagingBackend : public HostBackend {
 public:
  static std::shared_ptr<StagingBackend> open();

  bool zero_copy_from_host() const noexcept override { return false; }
  bool can_export() const noexcept override { return true; }
  // A shared-memory segment named after `name`.
  Result<DomainPool, Error<DomainError>> create_pool(std::uint64_t bytes,
                                                     const std::string& name) override;
  Result<PoolExport, Error<DomainError>> export_pool(const DomainPool& pool) override;
  Result<DomainPool, Error<DomainError>> import_pool(const std::string& name, std::uint64_t bytes,
                                                     const PoolExport& exported) override;
  // Removes a pool's name (mappings stay valid).
  static void unlink_pool(const std::string& name);

 private:
  StagingBackend();
};

}  // namespace baton::memory::domain
