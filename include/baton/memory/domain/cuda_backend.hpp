// The CUDA domain ("cuda:<n>"), on the driver API loaded at run time (dlopen "libcuda.so.1"):
// baton has no build-time dependency on CUDA, and a machine without a driver simply reports the
// domain Unavailable ("no CUDA driver found").
//
//   Pools: VMM allocations (cuMemCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), exported
//   as a file descriptor (cuMemExportToShareableHandle) that an FdServer hands to importers over
//   a Unix socket (SCM_RIGHTS); devices without VMM fd export fall back to cuMemAlloc +
//   cuIpcGetMemHandle (the legacy 64-byte handle sits in the shared export blob).
//   Zero copy: on integrated (Jetson-class, CU_DEVICE_ATTRIBUTE_INTEGRATED) devices the host
//   shared memory is cuMemHostRegister'ed and used through its device pointer; no copy at all.
//   Models: SC cuMemAlloc + cuMemcpy, UM cuMemAllocManaged, ZC pinned mapped host memory
//   (cuMemHostAlloc DEVICEMAP) or registered host memory.
//   Copies to / from shared memory: the chunk range is cuMemHostRegister'ed on its first copy and
//   the registration reused (detail/host_registrations.hpp: capped, unregistered before its
//   segment is unmapped, pageable fallback), so a take runs at pinned speed (~4x on an H200).
//
// Ran on a discrete GPU (NVIDIA H200, driver 580 / CUDA 13.0; tests/accel/cuda_*_test.cpp and
// baton-bench-accel --domain cuda:0, BENCHMARKS.md): VMM and legacy cuIpc pools across processes,
// NVRTC kernels, SC / UM / ZC buffers, wrap_host on shm, cuda:0 topic endpoints. Never run: the
// integrated (Jetson) zero-copy path. baton's CI has no GPU: the tests skip there with "no CUDA
// driver / device found" when libcuda is missing or cuInit fails.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/memory/domain/detail/cuda_driver_api.hpp"
#include "baton/memory/domain/detail/host_registrations.hpp"
#include "baton/memory/domain/domain_backend.hpp"

namespace baton::memory::domain {

// Whether a CUDA driver and devices are present, and why not.
struct CudaProbe {
  bool driver_loaded = false;  // libcuda.so.1 found
  bool initialised = false;    // cuInit(0) succeeded
  int driver_version = 0;      // e.g. 12040
  std::vector<DeviceInfo> devices;
  std::string problem;  // empty when usable
};

class CudaBackend : public DomainBackend {
 public:
  static Result<std::shared_ptr<CudaBackend>, Error<DomainError>> open(const DomainSpec& spec);
  static CudaProbe probe();
  ~CudaBackend() override;

  bool zero_copy_from_host() const noexcept override {
    return info_.host_unified && !spec_.force_copy;
  }
  bool can_export() const noexcept override { return info_.ipc; }

  Result<DomainPool, Error<DomainError>> create_pool(std::uint64_t bytes,
                                                     const std::string& name) override;
  Result<PoolExport, Error<DomainError>> export_pool(const DomainPool& pool) override;
  Result<DomainPool, Error<DomainError>> import_pool(const std::string& name, std::uint64_t bytes,
                                                     const PoolExport& exported) override;
  Status<DomainError> copy_from_host(const DomainPool& dst, std::uint64_t offset, const void* src,
                                     std::uint64_t n) override;
  Status<DomainError> copy_to_host(void* dst, const DomainPool& src, std::uint64_t offset,
                                   std::uint64_t n) override;
  Result<DeviceView, Error<DomainError>> view(const DomainPool& pool, std::uint64_t offset,
                                              std::uint64_t n) override;
  // cuMemHostRegister's the pages around `host` (once per range) and returns the device pointer.
  Result<DeviceView, Error<DomainError>> wrap_host(std::byte* host, std::uint64_t n) override;
  Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> kernel_buffer(std::uint64_t n,
                                                                          CommModel m) override;

  // Loads a PTX module (e.g. from NvrtcCompiler; once per distinct text) and finds `kernel` in it.
  Result<detail::CUfunction, Error<DomainError>> load_kernel(const std::string& ptx,
                                                             const std::string& kernel);
  // Queues `f` over `threads` threads (1-D, blocks of 256) on the default stream with
  // cuLaunchKernel's `args` (pointers to each argument); returns without waiting.
  Status<Error<DomainError>> launch(detail::CUfunction f, std::uint32_t threads, void** args);
  // Waits for everything queued in this backend's context; a fault a kernel hit is reported here.
  Status<Error<DomainError>> synchronize();
  // The page-locked host ranges copies and views use, and the cap on copies' share of them.
  detail::RegistrationStats registrations() const { return pins_->stats(); }
  void set_registration_cap(std::uint64_t bytes) { pins_->set_cap(bytes); }
  const detail::CudaDriverApi& api() const noexcept { return *api_; }
  detail::CUcontext context() const noexcept { return context_; }

 protected:
  bool copy_within(const DomainPool& dst, std::uint64_t dst_offset, const DomainPool& src,
                   std::uint64_t src_offset, std::uint64_t n) override;

 private:
  explicit CudaBackend(DomainSpec spec) : DomainBackend(spec) {}
  friend class CudaKernelBuffer;
  void counted(std::uint64_t n) noexcept { count_copy(n); }
  std::string status(detail::CUresult r) const;
  void make_current() const;

  const detail::CudaDriverApi* api_ = nullptr;
  detail::CUdevice device_ = 0;
  detail::CUcontext context_ = nullptr;
  bool vmm_fd_ = false;                              // VMM allocations exportable as POSIX fds
  std::mutex mutex_;                                 // modules_
  std::map<std::string, detail::CUmodule> modules_;  // by PTX text
  std::unique_ptr<detail::HostRegistrations> pins_;  // host ranges page-locked for copies / views
};

}  // namespace baton::memory::domain
