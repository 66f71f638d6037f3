// A message type's identity, checked when an endpoint attaches to a topic: the name (ROS style,
// "pkg/msg/Name") and a 32-byte hash (RIHS01 for ROS types; for plain C++ types a hash of the
// name, size and alignment). Two endpoints with the same name but different hashes are refused.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace baton::topic {

struct TypeInfo {
  std::string name;
  std::array<std::uint8_t, 32> hash{};

  bool operator==(const TypeInfo&) const = default;

  // A hash derived from a name plus any layout facts (size, alignment, version) the caller adds.
  static TypeInfo from_name(std::string_view name, std::string_view layout_facts = {});
  std::string hash_hex() const;
};

}  // namespace baton::topic
