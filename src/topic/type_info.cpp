#include "baton/topic/type_info.hpp"

#include <cstdio>

namespace baton::topic {
namespace {

// Four independent FNV-1a lanes fill 32 bytes; this is an identity check, not cryptography.
std::uint64_t fnv1a(std::string_view s, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

TypeInfo TypeInfo::from_name(std::string_view name, std::string_view layout_facts) {
  TypeInfo t;
  t.name = std::string(name);
  std::string all = std::string(name) + '\0' + std::string(layout_facts);
  for (int lane = 0; lane < 4; ++lane) {
    std::uint64_t h = fnv1a(all, static_cast<std::uint64_t>(lane) + 1);
    for (int b = 0; b < 8; ++b) t.hash[lane * 8 + b] = static_cast<std::uint8_t>(h >> (8 * b));
  }
  return t;
}

std::string TypeInfo::hash_hex() const {
  std::string out;
  char buf[3];
  for (auto b : hash) {
    std::snprintf(buf, sizeof(buf), "%02x", b);
    out += buf;
  }
  return out;
}

}  // namespace baton::topic
