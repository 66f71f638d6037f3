// Names of memory domains: "host", "opencl:<dev>", "cuda:<dev>", plus two variants that force a
// real copy: "opencl:<dev>:sc" (OpenCL standard copy even on a host-unified device) and
// "staging" (a host shared-memory pool that really copies; for tests and benchmarks).
//
// A domain is where a message's bytes live; a backend (domain_backend.hpp) moves bytes into and
// out of it. Two endpoints in the same domain share a copy; across domains, bytes are copied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace baton::memory::domain {

enum class DomainKind : std::uint8_t {
  Host = 0,     // Host memory: the publisher's shared-memory chunks themselves.
  Staging = 1,  // A separate host shared-memory pool; a copy is made (test / benchmark domain).
  OpenCl = 2,   // An OpenCL device (any ICD; PoCL here).
  Cuda = 3,     // A CUDA device, driver API loaded at run time.
};

constexpr std::string_view to_string(DomainKind k) noexcept {
  switch (k) {
    case DomainKind::Host:
      return "host";
    case DomainKind::Staging:
      return "staging";
    case DomainKind::OpenCl:
      return "opencl";
    case DomainKind::Cuda:
      return "cuda";
  }
  return "unknown";
}

struct DomainSpec {
  DomainKind kind = DomainKind::Host;
  std::uint32_t device = 0;
  bool force_copy = false;  // ":sc": never use the device's view of host memory

  // Parses "host", "staging", "opencl:0", "opencl:0:sc", "cuda:1"; nullopt if malformed.
  static std::optional<DomainSpec> parse(std::string_view text);
  static DomainSpec host() { return {}; }
  // The canonical text form ("opencl:0:sc").
  std::string str() const;
  bool operator==(const DomainSpec&) const = default;
};

}  // namespace baton::memory::domain
