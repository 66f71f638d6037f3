#include "baton/memory/domain/domain_registry.hpp"

#include <map>
#include <mutex>

#include "baton/memory/domain/cuda_backend.hpp"
#include "baton/memory/domain/host_backend.hpp"
#include "baton/memory/domain/staging_backend.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#endif

namespace baton::memory::domain {

bool opencl_compiled_in() noexcept { return BATON_HAVE_OPENCL != 0; }

Result<std::shared_ptr<DomainBackend>, Error<DomainError>> open_domain(const DomainSpec& spec) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<DomainBackend>> open;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = spec.str();
  if (auto it = open.find(key); it != open.end()) return it->second;
  std::shared_ptr<DomainBackend> b;
  switch (spec.kind) {
    case DomainKind::Host:
      b = HostBackend::open();
      break;
    case DomainKind::Staging:
      b = StagingBackend::open();
      break;
    case DomainKind::OpenCl: {
#if BATON_HAVE_OPENCL
      auto r = OpenClBackend::open(spec);
      if (!r) return unexpected(r.error());
      b = *r;
#else
      return unexpected(Error<DomainError>{DomainError::Unavailable,
                                           "baton was built without OpenCL (no ICD loader found)"});
#endif
      break;
    }
    case DomainKind::Cuda: {
      auto r = CudaBackend::open(spec);
      if (!r) return unexpected(r.error());
      b = *r;
      break;
    }
  }
  open.emplace(key, b);
  return b;
}

Result<std::shared_ptr<DomainBackend>, Error<DomainError>> open_domain(std::string_view name) {
  auto spec = DomainSpec::parse(name);
  if (!spec) {
    return unexpected(Error<DomainError>{
        DomainError::InvalidSpec,
        "'" + std::string(name) + "' is not host, staging, opencl:<n>[:sc] or cuda:<n>"});
  }
  return open_domain(*spec);
}

}  // namespace baton::memory::domain
