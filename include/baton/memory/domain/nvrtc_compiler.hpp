// CUDA kernels compiled at run time with NVRTC, loaded with dlopen: from $BATON_NVRTC_LIBRARY,
// then the loader's search path ("libnvrtc.so.12"), then the pip wheel nvidia-cuda-nvrtc-cu12 in
// a virtualenv (<dir>/.venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib) for each directory
// given (scripts/install-cuda-wheels.sh installs it into the repository's .venv). NVRTC needs
// no GPU: it turns CUDA C++ into PTX, which the driver JIT-compiles when a module is loaded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/memory/domain/domain_error.hpp"

namespace baton::memory::domain {

class NvrtcCompiler {
 public:
  // Unavailable (with every path tried in the detail) if no libnvrtc can be loaded.
  static Result<std::shared_ptr<NvrtcCompiler>, Error<DomainError>> load(
      const std::vector<std::string>& venv_roots = {});
  ~NvrtcCompiler();

  // CUDA C++ -> PTX text; CompileFailed carries NVRTC's log.
  Result<std::string, Error<DomainError>> compile_to_ptx(
      const std::string& source, const std::string& name,
      const std::vector<std::string>& options = {}) const;
  const std::string& library_path() const noexcept { return path_; }
  int version() const noexcept { return major_ * 1000 + minor_ * 10; }  // e.g. 12040

 private:
  NvrtcCompiler() = default;
  struct Api;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  std::string path_;
  int major_ = 0;
  int minor_ = 0;
};

}  // namespace baton::memory::domain
