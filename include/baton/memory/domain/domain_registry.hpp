// The process's backends, one per domain, opened on first use and shared afterwards.
#pragma once

#include <memory>
#include <string_view>

#include "baton/memory/domain/domain_backend.hpp"

namespace baton::memory::domain {

// The backend for `spec`, opened once per process (thread-safe). Unavailable if the platform,
// driver or device is missing here (the detail says which).
Result<std::shared_ptr<DomainBackend>, Error<DomainError>> open_domain(const DomainSpec& spec);
// Same, from a name such as "opencl:0"; InvalidSpec if it does not parse.
Result<std::shared_ptr<DomainBackend>, Error<DomainError>> open_domain(std::string_view name);

// True if this build includes the OpenCL backend (linked against the ICD loader).
bool opencl_compiled_in() noexcept;

}  // namespace baton::memory::domain
