// Errors of the memory-domain layer: one enum for every backend operation.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::memory::domain {

enum class DomainError : std::uint8_t {
  Unavailable,    // No such platform / device / driver here (e.g. no libcuda): use another domain.
  InvalidSpec,    // The domain name does not parse; see DomainSpec::parse.
  Unsupported,    // The device cannot do this (e.g. SVM, IPC export): pick another model.
  OutOfMemory,    // The device or pool has no room: release samples or raise limits.
  OutOfRange,     // An offset / size outside the pool (possibly a corrupt shared record).
  CopyFailed,     // The driver rejected a copy; the detail names its status.
  ExportFailed,   // The allocation could not be exported or imported across processes.
  CompileFailed,  // A kernel did not compile; the detail holds the build log.
  LaunchFailed,   // The driver rejected a kernel launch.
  Busy,           // Another process holds the copy lock for too long; try again.
  Internal,       // Anything else; the detail says what.
};

constexpr std::string_view to_string(DomainError e) noexcept {
  switch (e) {
    case DomainError::Unavailable:
      return "domain unavailable on this machine";
    case DomainError::InvalidSpec:
      return "invalid domain name";
    case DomainError::Unsupported:
      return "operation not supported by the device";
    case DomainError::OutOfMemory:
      return "out of device or pool memory";
    case DomainError::OutOfRange:
      return "offset or size outside the pool";
    case DomainError::CopyFailed:
      return "copy failed";
    case DomainError::ExportFailed:
      return "export or import across processes failed";
    case DomainError::CompileFailed:
      return "kernel compilation failed";
    case DomainError::LaunchFailed:
      return "kernel launch failed";
    case DomainError::Busy:
      return "copy lock busy";
    case DomainError::Internal:
      return "internal error";
  }
  return "unknown";
}

}  // namespace baton::memory::domain
