#include "baton/memory/domain/domain_spec.hpp"

#include <charconv>

namespace baton::memory::domain {
namespace {

std::optional<std::uint32_t> parse_index(std::string_view s) {
  std::uint32_t v = 0;
  if (s.empty() || s.size() > 4) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<DomainSpec> DomainSpec::parse(std::string_view text) {
  if (text == "host") return DomainSpec{DomainKind::Host, 0, false};
  if (text == "staging") return DomainSpec{DomainKind::Staging, 0, true};
  DomainSpec spec;
  std::string_view rest;
  if (text.rfind("opencl:", 0) == 0) {
    spec.kind = DomainKind::OpenCl;
    rest = text.substr(7);
  } else if (text.rfind("cuda:", 0) == 0) {
    spec.kind = DomainKind::Cuda;
    rest = text.substr(5);
  } else {
    return std::nullopt;
  }
  const auto colon = rest.find(':');
  if (colon != std::string_view::npos) {
    if (rest.substr(colon + 1) != "sc") return std::nullopt;
    spec.force_copy = true;
    rest = rest.substr(0, colon);
  }
  auto index = parse_index(rest);
  if (!index) return std::nullopt;
  spec.device = *index;
  return spec;
}

std::string DomainSpec::str() const {
  switch (kind) {
    case DomainKind::Host:
      return "host";
    case DomainKind::Staging:
      return "staging";
    case DomainKind::OpenCl:
    case DomainKind::Cuda:
      return std::string(to_string(kind)) + ":" + std::to_string(device) +
             (force_copy ? ":sc" : "");
  }
  return "unknown";
}

}  // namespace baton::memory::domain
