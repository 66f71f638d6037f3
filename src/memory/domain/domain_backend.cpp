#include "baton/memory/domain/domain_backend.hpp"

#include <cstdlib>
#include <memory>

namespace baton::memory::domain {

Result<PoolExport, Error<DomainError>> DomainBackend::export_pool(const DomainPool&) {
  return unexpected(
      Error<DomainError>{DomainError::Unsupported, spec_.str() + ": pools cannot be exported"});
}

Result<DomainPool, Error<DomainError>> DomainBackend::import_pool(const std::string& name,
                                                                  std::uint64_t,
                                                                  const PoolExport&) {
  return unexpected(Error<DomainError>{DomainError::Unsupported,
                                       spec_.str() + ": pool '" + name + "' cannot be imported"});
}

bool DomainBackend::copy_within(const DomainPool&, std::uint64_t, const DomainPool&, std::uint64_t,
                                std::uint64_t) {
  return false;
}

Status<DomainError> DomainBackend::copy(const DomainPool& dst, std::uint64_t dst_offset,
                                        DomainBackend& src_domain, const DomainPool& src,
                                        std::uint64_t src_offset, std::uint64_t n) {
  if (!in_range(dst, dst_offset, n) || !in_range(src, src_offset, n)) {
    return unexpected(DomainError::OutOfRange);
  }
  if (&src_domain == this && copy_within(dst, dst_offset, src, src_offset, n)) return Ok{};
  if (src.host != nullptr) return copy_from_host(dst, dst_offset, src.host + src_offset, n);
  if (dst.host != nullptr)
    return src_domain.copy_to_host(dst.host + dst_offset, src, src_offset, n);
  // No direct path: bounce through host memory.
  std::unique_ptr<std::byte[]> bounce(new (std::nothrow) std::byte[n]);
  if (!bounce) return unexpected(DomainError::OutOfMemory);
  if (auto s = src_domain.copy_to_host(bounce.get(), src, src_offset, n); !s) return s;
  return copy_from_host(dst, dst_offset, bounce.get(), n);
}

}  // namespace baton::memory::domain
