#include "baton/memory/domain/cuda_kernels.hpp"

#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/nvrtc_compiler.hpp"

namespace baton::memory::domain {

Result<CudaBundledKernels, Error<DomainError>> load_bundled_kernels(
    CudaBackend& backend, const std::vector<std::string>& venv_roots) {
  auto nvrtc = NvrtcCompiler::load(venv_roots);
  if (!nvrtc) return unexpected(nvrtc.error());
  auto ptx = (*nvrtc)->compile_to_ptx(kernels::CUDA_SOURCE, "baton_kernels.cu");
  if (!ptx) return unexpected(ptx.error());
  CudaBundledKernels k;
  k.nvrtc_path = (*nvrtc)->library_path();
  k.ptx_bytes = ptx->size();
  for (auto [fn, name] :
       {std::pair{&k.transform, "transform"}, std::pair{&k.cache_reduce, "cache_reduce"},
        std::pair{&k.concurrent_step, "concurrent_step"}}) {
    auto f = backend.load_kernel(*ptx, name);
    if (!f) return unexpected(f.error());
    *fn = *f;
  }
  return k;
}

}  // namespace baton::memory::domain
