// The OpenCL domain ("opencl:<n>"): device n of the flattened list of every platform's devices,
// through the ICD loader, so any vendor's driver works (PoCL's CPU device here).
//
// Zero copy: on a device reporting CL_DEVICE_HOST_UNIFIED_MEMORY, host shared memory *is* device
// memory. wrap_host() then creates a CL_MEM_USE_HOST_PTR buffer on the very bytes of a
// publisher's chunk (CL_MEM_HOST_PTR == chunk address) and no copy is ever made, even for a
// subscriber in another process. "opencl:<n>:sc" forces standard copies on such a device.
//
// Limitation: OpenCL has no standard way to share a device buffer between processes, so pools of
// a copying OpenCL domain are per process (can_export() is false): on a non-unified device each
// process holding subscribers makes its own copy of a message, once, shared by its subscribers.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue: works with 1.2-only ICDs too
#endif
#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "baton/memory/domain/domain_backend.hpp"

namespace baton::memory::domain {

// Human-readable name of an OpenCL status code.
std::string cl_status_text(cl_int status);

class OpenClBackend : public DomainBackend {
 public:
  // Device `spec.device` (in list_devices() order); Unavailable if there is no platform or device.
  static Result<std::shared_ptr<OpenClBackend>, Error<DomainError>> open(const DomainSpec& spec);
  // Every device of every platform, in "opencl:<n>" order (empty without a platform).
  static std::vector<DeviceInfo> list_devices();
  ~OpenClBackend() override;

  bool zero_copy_from_host() const noexcept override {
    return info_.host_unified && !spec_.force_copy;
  }
  bool can_export() const noexcept override { return false; }

  Result<DomainPool, Error<DomainError>> create_pool(std::uint64_t bytes,
                                                     const std::string& name) override;
  Status<DomainError> copy_from_host(const DomainPool& dst, std::uint64_t offset, const void* src,
                                     std::uint64_t n) override;
  Status<DomainError> copy_to_host(void* dst, const DomainPool& src, std::uint64_t offset,
                                   std::uint64_t n) override;
  // A sub-buffer of the pool's cl_mem (offset must be a multiple of info().base_align_bytes).
  Result<DeviceView, Error<DomainError>> view(const DomainPool& pool, std::uint64_t offset,
                                              std::uint64_t n) override;
  // CL_MEM_USE_HOST_PTR over `host` (zero copy on host-unified devices).
  Result<DeviceView, Error<DomainError>> wrap_host(std::byte* host, std::uint64_t n) override;
  void release_view(DeviceView& v) noexcept override;
  Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> kernel_buffer(std::uint64_t n,
                                                                          CommModel m) override;

  // Native handles, for users launching their own kernels.
  cl_context context() const noexcept { return context_; }
  cl_command_queue queue() const noexcept { return queue_; }
  cl_device_id device() const noexcept { return device_; }
  // Builds `source` for this device; the error detail holds the build log. The caller owns the
  // program (clReleaseProgram).
  Result<cl_program, Error<DomainError>> build(const std::string& source,
                                               const std::string& options = "");

 protected:
  bool copy_within(const DomainPool& dst, std::uint64_t dst_offset, const DomainPool& src,
                   std::uint64_t src_offset, std::uint64_t n) override;

 private:
  explicit OpenClBackend(DomainSpec spec) : DomainBackend(spec) {}
  friend class OpenClKernelBuffer;
  void counted(std::uint64_t n) noexcept { count_copy(n); }

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;  // in-order; OpenCL queues are thread-safe
};

}  // namespace baton::memory::domain
