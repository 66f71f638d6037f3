// baton's bundled CUDA kernels (kernels.hpp's CUDA_SOURCE) compiled with NVRTC and loaded into a
// CUDA backend's context, ready for CudaBackend::launch: what the CUDA tests and the accel
// benchmark run on a GPU.
#pragma once

#include <string>
#include <vector>

#include "baton/memory/domain/cuda_backend.hpp"

namespace baton::memory::domain {

struct CudaBundledKernels {
  detail::CUfunction transform = nullptr;        // (in, out, n)
  detail::CUfunction cache_reduce = nullptr;     // (m, out, rows, cols, reps)
  detail::CUfunction concurrent_step = nullptr;  // (data, n, iters)
  std::string nvrtc_path;                        // the libnvrtc that compiled them
  std::size_t ptx_bytes = 0;
};

// Unavailable when no NVRTC is found (`venv_roots` as NvrtcCompiler::load), CompileFailed when
// NVRTC or the driver's PTX JIT rejects the source.
Result<CudaBundledKernels, Error<DomainError>> load_bundled_kernels(
    CudaBackend& backend, const std::vector<std::string>& venv_roots = {});

}  // namespace baton::memory::domain
