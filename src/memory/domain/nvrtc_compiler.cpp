#include "baton/memory/domain/nvrtc_compiler.hpp"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>

namespace baton::memory::domain {

using E = Error<DomainError>;

struct NvrtcCompiler::Api {
  using nvrtcProgram = struct _nvrtcProgram*;
  int (*nvrtcVersion)(int*, int*);
  const char* (*nvrtcGetErrorString)(int);
  int (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                            const char* const*);
  int (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  int (*nvrtcGetPTXSize)(nvrtcProgram, std::size_t*);
  int (*nvrtcGetPTX)(nvrtcProgram, char*);
  int (*nvrtcGetProgramLogSize)(nvrtcProgram, std::size_t*);
  int (*nvrtcGetProgramLog)(nvrtcProgram, char*);
  int (*nvrtcDestroyProgram)(nvrtcProgram*);
};

Result<std::shared_ptr<NvrtcCompiler>, Error<DomainError>> NvrtcCompiler::load(
    const std::vector<std::string>& venv_roots) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("BATON_NVRTC_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  candidates.emplace_back("libnvrtc.so.12");
  candidates.emplace_back("libnvrtc.so");
  for (const auto& root : venv_roots) {
    glob_t g{};
    const std::string pattern =
        root + "/.venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*";
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      for (std::size_t i = 0; i < g.gl_pathc; ++i) {
        const std::string p = g.gl_pathv[i];
        if (p.find("builtins") == std::string::npos && p.find("alt") == std::string::npos) {
          candidates.push_back(p);
        }
      }
    }
    ::globfree(&g);
  }
  std::string tried;
  for (const auto& path : candidates) {
    // libnvrtc dlopens libnvrtc-builtins by name, relying on its own $ORIGIN; under sanitizers
    // (dlopen interceptors) that lookup fails. Loading the builtins from the same folder first
    // makes the later lookup find them already resident.
    if (const auto slash = path.rfind('/'); slash != std::string::npos) {
      glob_t b{};
      const std::string builtins = path.substr(0, slash) + "/libnvrtc-builtins.so*";
      if (::glob(builtins.c_str(), 0, nullptr, &b) == 0 && b.gl_pathc > 0) {
        ::dlopen(b.gl_pathv[0], RTLD_NOW | RTLD_GLOBAL);  // kept for the process lifetime
      }
      ::globfree(&b);
    }
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      tried += "\n  " + path + ": " + ::dlerror();
      continue;
    }
    std::shared_ptr<NvrtcCompiler> c(new NvrtcCompiler());
    c->handle_ = h;
    c->path_ = path;
    c->api_ = std::make_unique<Api>();
    bool ok = true;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      ok = ok && fn != nullptr;
    };
    Api& a = *c->api_;
    sym(a.nvrtcVersion, "nvrtcVersion");
    sym(a.nvrtcGetErrorString, "nvrtcGetErrorString");
    sym(a.nvrtcCreateProgram, "nvrtcCreateProgram");
    sym(a.nvrtcCompileProgram, "nvrtcCompileProgram");
    sym(a.nvrtcGetPTXSize, "nvrtcGetPTXSize");
    sym(a.nvrtcGetPTX, "nvrtcGetPTX");
    sym(a.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
    sym(a.nvrtcGetProgramLog, "nvrtcGetProgramLog");
    sym(a.nvrtcDestroyProgram, "nvrtcDestroyProgram");
    if (!ok) {
      tried += "\n  " + path + ": missing NVRTC symbols";
      ::dlclose(h);  // not NVRTC after all: nothing of it ran, safe to unload
      continue;
    }
    a.nvrtcVersion(&c->major_, &c->minor_);
    return c;
  }
  return unexpected(E{DomainError::Unavailable,
                      "NVRTC not found (run scripts/install-cuda-wheels.sh); tried:" + tried});
}

// NVRTC is never unloaded: its runtime keeps process-wide allocations that unloading would
// orphan (LeakSanitizer reports them), and reloading it costs more than keeping it.
NvrtcCompiler::~NvrtcCompiler() = default;

Result<std::string, Error<DomainError>> NvrtcCompiler::compile_to_ptx(
    const std::string& source, const std::string& name,
    const std::vector<std::string>& options) const {
  Api::nvrtcProgram prog = nullptr;
  int rc = api_->nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (rc != 0) {
    return unexpected(E{DomainError::CompileFailed,
                        std::string("nvrtcCreateProgram: ") + api_->nvrtcGetErrorString(rc)});
  }
  std::vector<const char*> opts;
  for (const auto& o : options) opts.push_back(o.c_str());
  rc = api_->nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  std::size_t log_size = 0;
  api_->nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) api_->nvrtcGetProgramLog(prog, log.data());
  if (rc != 0) {
    api_->nvrtcDestroyProgram(&prog);
    return unexpected(
        E{DomainError::CompileFailed, name + ": " + api_->nvrtcGetErrorString(rc) + "\n" + log});
  }
  std::size_t ptx_size = 0;
  api_->nvrtcGetPTXSize(prog, &ptx_size);
  std::string ptx(ptx_size, '\0');
  api_->nvrtcGetPTX(prog, ptx.data());
  api_->nvrtcDestroyProgram(&prog);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

}  // namespace baton::memory::domain
