// Helpers for the CUDA tests: open "cuda:0" or skip with the reason (CI has no GPU), load the
// bundled kernels or skip when no NVRTC is found, and device memory the test owns.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baton/memory/domain/cuda_backend.hpp"
#include "baton/memory/domain/cuda_kernels.hpp"
#include "baton/memory/domain/domain_registry.hpp"

namespace baton::testing {

// The process's CUDA backend for `name`, or nullptr with the reason in `why`.
inline std::shared_ptr<memory::domain::CudaBackend> cuda_or_null(std::string* why,
                                                                 const std::string& name) {
  auto b = memory::domain::open_domain(name);
  if (!b) {
    *why = b.error().detail;
    return nullptr;
  }
  return std::dynamic_pointer_cast<memory::domain::CudaBackend>(*b);
}

#define BATON_CUDA_OR_SKIP(var)                                    \
  std::string var##_why;                                           \
  auto var = ::baton::testing::cuda_or_null(&var##_why, "cuda:0"); \
  if (!var) GTEST_SKIP() << "no CUDA driver / device found: " << var##_why;

// The bundled kernels in `backend`'s context; skips when no NVRTC is found, fails when it or the
// driver's JIT rejects them (that is a defect on a machine that has both).
#define BATON_CUDA_KERNELS_OR_SKIP(var, backend)                                                  \
  auto var##_loaded = ::baton::memory::domain::load_bundled_kernels(backend, {BATON_SOURCE_DIR}); \
  if (!var##_loaded &&                                                                            \
      var##_loaded.error().code == ::baton::memory::domain::DomainError::Unavailable) {           \
    GTEST_SKIP() << "NVRTC not available: " << var##_loaded.error().detail;                       \
  }                                                                                               \
  ASSERT_TRUE(var##_loaded) << var##_loaded.error().detail;                                       \
  const ::baton::memory::domain::CudaBundledKernels& var = *var##_loaded;

// cuMemAlloc'ed device bytes owned by a test; read and written with the driver directly so the
// backend's copy counters only count what baton itself copied.
class DeviceBytes {
 public:
  DeviceBytes(memory::domain::CudaBackend& b, std::size_t n) : b_(b), n_(n) {
    b_.api().cuCtxSetCurrent(b_.context());
    ok_ = b_.api().cuMemAlloc(&ptr_, n) == memory::domain::detail::CUDA_SUCCESS;
  }
  ~DeviceBytes() {
    if (ok_) b_.api().cuMemFree(ptr_);
  }
  DeviceBytes(const DeviceBytes&) = delete;
  bool ok() const { return ok_; }
  memory::domain::detail::CUdeviceptr ptr() const { return ptr_; }
  bool write(const void* src, std::size_t n) {
    b_.api().cuCtxSetCurrent(b_.context());
    return b_.api().cuMemcpyHtoD(ptr_, src, n) == memory::domain::detail::CUDA_SUCCESS;
  }
  std::vector<unsigned char> read() const { return read_at(b_, ptr_, n_); }
  // `n` bytes at any device address (a pool, a loan, a view) without counting a baton copy.
  static std::vector<unsigned char> read_at(memory::domain::CudaBackend& b,
                                            memory::domain::detail::CUdeviceptr p, std::size_t n) {
    std::vector<unsigned char> out(n);
    b.api().cuCtxSetCurrent(b.context());
    if (b.api().cuMemcpyDtoH(out.data(), p, n) != memory::domain::detail::CUDA_SUCCESS) out.clear();
    return out;
  }

 private:
  memory::domain::CudaBackend& b_;
  std::size_t n_;
  memory::domain::detail::CUdeviceptr ptr_ = 0;
  bool ok_ = false;
};

// Runs transform (out[i] = in[i] * 3 + 1 for i < n) and waits for it.
inline ::testing::AssertionResult run_transform(memory::domain::CudaBackend& b,
                                                const memory::domain::CudaBundledKernels& k,
                                                std::uint64_t in, std::uint64_t out, unsigned n) {
  void* args[] = {&in, &out, &n};
  if (auto s = b.launch(k.transform, n, args); !s) {
    return ::testing::AssertionFailure() << s.error().detail;
  }
  if (auto s = b.synchronize(); !s) return ::testing::AssertionFailure() << s.error().detail;
  return ::testing::AssertionSuccess();
}

}  // namespace baton::testing
