#include "baton/memory/domain/host_backend.hpp"

#include <sys/mman.h>

#include <cstring>

namespace baton::memory::domain {
namespace {

struct HostAllocation {
  void* base = nullptr;
  std::uint64_t bytes = 0;
  ~HostAllocation() {
    if (base != nullptr) ::munmap(base, bytes);
  }
};

// Host memory under any model: the CPU and the "kernel" (also the CPU) share it.
class HostKernelBuffer : public KernelBuffer {
 public:
  HostKernelBuffer(CommModel m, std::shared_ptr<HostAllocation> a, std::uint64_t n)
      : KernelBuffer(m, n), alloc_(std::move(a)) {}
  std::byte* begin_host(Access) override { return static_cast<std::byte*>(alloc_->base); }
  void end_host() override {}
  DeviceView begin_device(Access) override {
    return DeviceView{static_cast<std::byte*>(alloc_->base), 0, nullptr, size_, false};
  }
  void end_device(Access) override {}

 private:
  std::shared_ptr<HostAllocation> alloc_;
};

std::shared_ptr<HostAllocation> map_anonymous(std::uint64_t bytes) {
  void* p = ::mmap(nullptr, bytes == 0 ? 1 : bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto a = std::make_shared<HostAllocation>();
  a->base = p;
  a->bytes = bytes == 0 ? 1 : bytes;
  return a;
}

}  // namespace

HostBackend::HostBackend(DomainSpec spec) : DomainBackend(spec) {
  info_.name = "host";
  info_.platform = "host";
  info_.is_cpu = true;
  info_.host_unified = true;
}

std::shared_ptr<HostBackend> HostBackend::open() {
  return std::shared_ptr<HostBackend>(new HostBackend(DomainSpec::host()));
}

Result<DomainPool, Error<DomainError>> HostBackend::create_pool(std::uint64_t bytes,
                                                                const std::string&) {
  auto a = map_anonymous(bytes);
  if (!a) {
    return unexpected(Error<DomainError>{DomainError::OutOfMemory,
                                         "mmap of " + std::to_string(bytes) + " bytes failed"});
  }
  DomainPool p;
  p.host = static_cast<std::byte*>(a->base);
  p.bytes = bytes;
  p.impl = std::move(a);
  return p;
}

Status<DomainError> HostBackend::copy_from_host(const DomainPool& dst, std::uint64_t offset,
                                                const void* src, std::uint64_t n) {
  if (!in_range(dst, offset, n) || dst.host == nullptr) return unexpected(DomainError::OutOfRange);
  std::memcpy(dst.host + offset, src, n);
  count_copy(n);
  return Ok{};
}

Status<DomainError> HostBackend::copy_to_host(void* dst, const DomainPool& src,
                                              std::uint64_t offset, std::uint64_t n) {
  if (!in_range(src, offset, n) || src.host == nullptr) return unexpected(DomainError::OutOfRange);
  std::memcpy(dst, src.host + offset, n);
  count_copy(n);
  return Ok{};
}

Result<DeviceView, Error<DomainError>> HostBackend::view(const DomainPool& pool,
                                                         std::uint64_t offset, std::uint64_t n) {
  if (!in_range(pool, offset, n) || pool.host == nullptr) {
    return unexpected(Error<DomainError>{DomainError::OutOfRange, "view outside the pool"});
  }
  return DeviceView{pool.host + offset, 0, nullptr, n, false};
}

Result<DeviceView, Error<DomainError>> HostBackend::wrap_host(std::byte* host, std::uint64_t n) {
  return DeviceView{host, 0, nullptr, n, false};
}

Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> HostBackend::kernel_buffer(
    std::uint64_t n, CommModel m) {
  auto a = map_anonymous(n);
  if (!a) return unexpected(Error<DomainError>{DomainError::OutOfMemory, "mmap failed"});
  return std::unique_ptr<KernelBuffer>(new HostKernelBuffer(m, std::move(a), n));
}

}  // namespace baton::memory::domain
