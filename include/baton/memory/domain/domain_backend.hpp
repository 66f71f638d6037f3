// One interface for every memory domain (host, staging, OpenCL, CUDA): pools in the domain,
// copies to / from host and between domains, export / import across processes, kernel-ready
// views, and kernel I/O buffers under the SC / UM / ZC models of comm_model.hpp.
//
// A backend is per process and per device, shared (std::shared_ptr) by everything using that
// domain; open one through domain_registry.hpp. Backends are thread-safe unless noted.
// Failure guarantee: an error leaves the backend and its pools unchanged.
//
// Ownership: a DomainPool *owns* its allocation (freed when the last copy of the handle goes);
// a DeviceView *borrows* the bytes of a pool or of host memory and is valid until released
// with release_view() (it may own a small native wrapper, e.g. a cl_mem sub-buffer).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/common/result.hpp"
#include "baton/memory/domain/comm_model.hpp"
#include "baton/memory/domain/domain_error.hpp"
#include "baton/memory/domain/domain_spec.hpp"

namespace baton::memory::domain {

// What a device can do, as reported by its driver.
struct DeviceInfo {
  std::string name;
  std::string platform;
  std::string version;
  std::uint64_t global_mem_bytes = 0;
  std::uint32_t compute_units = 0;
  std::uint32_t base_align_bytes = 64;  // alignment a host pointer needs for zero-copy wrapping
  bool is_cpu = false;                  // the "device" is the host CPU (PoCL pthread)
  bool host_unified = false;   // device memory is host memory (CL_DEVICE_HOST_UNIFIED_MEMORY,
                               // CU_DEVICE_ATTRIBUTE_INTEGRATED): host chunks serve as-is
  bool svm_coarse = false;     // OpenCL coarse-grain SVM / CUDA managed memory
  bool svm_fine = false;       // fine-grain SVM / concurrent managed access: no map / unmap
  bool ipc = false;            // device allocations can be exported to other processes
  bool host_register = false;  // host memory can be pinned and mapped for the device (ZC)

  bool supports(CommModel m) const noexcept {
    switch (m) {
      case CommModel::SC:
        return true;
      case CommModel::UM:
        return svm_coarse || svm_fine;
      case CommModel::ZC:
        return host_unified || host_register;
    }
    return false;
  }
};

// A region of memory in a domain that message copies are placed in.
struct DomainPool {
  std::shared_ptr<void> impl;  // backend state (the allocation); freed with the last handle
  std::uint64_t bytes = 0;
  std::byte* host = nullptr;  // CPU-addressable view, when there is one (staging, unified)
  std::uint64_t device = 0;   // device address (CUdeviceptr) when there is one
  void* native = nullptr;     // native object (cl_mem) when there is one
  bool valid() const noexcept { return impl != nullptr; }
};

// What another process needs to import a pool: a small blob stored in shared memory
// (e.g. a cuIpcMemHandle) and, for CUDA VMM, a POSIX file descriptor passed over a Unix socket.
struct PoolExport {
  std::uint8_t blob[64] = {};
  int fd = -1;
};

// Bytes in a domain as a kernel (or the CPU) reaches them.
struct DeviceView {
  std::byte* host = nullptr;  // non-null if the CPU may address the bytes
  std::uint64_t device = 0;   // CUdeviceptr (cuda)
  void* native = nullptr;     // cl_mem (opencl); owned by the view, freed by release_view
  std::uint64_t size = 0;
  bool owns_native = false;
  bool svm = false;  // `host` is an SVM pointer: pass it with clSetKernelArgSVMPointer
};

// Copies made by one backend in this process (a copy is one call moving bytes between memories).
struct CopyStats {
  std::atomic<std::uint64_t> copies{0};
  std::atomic<std::uint64_t> bytes{0};
};

// A kernel's input / output buffer under one communication model.
//   SC: a host buffer and a device buffer; begin_device copies in, end_device copies out.
//   UM: one SVM / managed allocation; coarse-grain devices map it around host access.
//   ZC: a host buffer the device uses in place; mapped around host access.
// Call begin_host / end_host around CPU access and begin_device / end_device around a kernel.
class KernelBuffer {
 public:
  virtual ~KernelBuffer() = default;
  CommModel model() const noexcept { return model_; }
  std::uint64_t size() const noexcept { return size_; }
  virtual std::byte* begin_host(Access a) = 0;
  virtual void end_host() = 0;
  virtual DeviceView begin_device(Access a) = 0;
  virtual void end_device(Access a) = 0;

 protected:
  KernelBuffer(CommModel m, std::uint64_t n) : model_(m), size_(n) {}
  CommModel model_;
  std::uint64_t size_;
};

class DomainBackend {
 public:
  virtual ~DomainBackend() = default;
  DomainBackend(const DomainBackend&) = delete;

  const DomainSpec& spec() const noexcept { return spec_; }
  const DeviceInfo& info() const noexcept { return info_; }
  // True when host shared memory itself is this domain's memory: a message needs no copy.
  virtual bool zero_copy_from_host() const noexcept = 0;
  // True when pools can be shared with other processes; otherwise copies are per process.
  virtual bool can_export() const noexcept = 0;

  // A pool of `bytes` in the domain. `name` is a unique shared-memory-safe name the backend may
  // use to export it (staging names its segment after it).
  virtual Result<DomainPool, Error<DomainError>> create_pool(std::uint64_t bytes,
                                                             const std::string& name) = 0;
  virtual Result<PoolExport, Error<DomainError>> export_pool(const DomainPool& pool);
  virtual Result<DomainPool, Error<DomainError>> import_pool(const std::string& name,
                                                             std::uint64_t bytes,
                                                             const PoolExport& exported);

  virtual Status<DomainError> copy_from_host(const DomainPool& dst, std::uint64_t offset,
                                             const void* src, std::uint64_t n) = 0;
  virtual Status<DomainError> copy_to_host(void* dst, const DomainPool& src, std::uint64_t offset,
                                           std::uint64_t n) = 0;
  // dst (this domain) <- src (in `src_domain`): direct when both are the same backend and the
  // device can, through a host bounce buffer otherwise. Counted once per leg.
  Status<DomainError> copy(const DomainPool& dst, std::uint64_t dst_offset,
                           DomainBackend& src_domain, const DomainPool& src,
                           std::uint64_t src_offset, std::uint64_t n);

  // Kernel-ready view of pool bytes (e.g. a cl_mem sub-buffer or a device pointer).
  virtual Result<DeviceView, Error<DomainError>> view(const DomainPool& pool, std::uint64_t offset,
                                                      std::uint64_t n) = 0;
  // Kernel-ready view of host memory used in place (ZC), e.g. a publisher's shm chunk.
  virtual Result<DeviceView, Error<DomainError>> wrap_host(std::byte* host, std::uint64_t n) = 0;
  virtual void release_view(DeviceView& v) noexcept { v = {}; }

  virtual Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> kernel_buffer(
      std::uint64_t n, CommModel model) = 0;

  const CopyStats& stats() const noexcept { return stats_; }

 protected:
  DomainBackend(DomainSpec spec) : spec_(spec) {}  // NOLINT
  // Direct pool-to-pool copy within this backend; false if there is no direct path.
  virtual bool copy_within(const DomainPool& dst, std::uint64_t dst_offset, const DomainPool& src,
                           std::uint64_t src_offset, std::uint64_t n);
  void count_copy(std::uint64_t n) noexcept {
    stats_.copies.fetch_add(1, std::memory_order_relaxed);
    stats_.bytes.fetch_add(n, std::memory_order_relaxed);
  }
  static bool in_range(const DomainPool& p, std::uint64_t off, std::uint64_t n) noexcept {
    return off <= p.bytes && n <= p.bytes - off;
  }

  DomainSpec spec_;
  DeviceInfo info_;
  CopyStats stats_;
};

}  // namespace baton::memory::domain
