// The lifecycle word a removable segment keeps in its header (protocol: segment_lifecycle.hpp).
// Part of the layouts that embed it (TopicHeader, RegistryHeader): changing this encoding means
// bumping their layout versions.
#pragma once

#include <cstdint>

namespace baton::shm {

// | bits   | field                                                   |
// |  0..7  | LifecycleState                                          |
// |  8..31 | zero                                                    |
// | 32..63 | pid of the closer while Closing / Closed; 0 while Open  |
enum class LifecycleState : std::uint8_t { Open = 0, Closing = 1, Closed = 2 };

constexpr std::uint64_t lifecycle_word(LifecycleState s, std::uint32_t pid) {
  return (static_cast<std::uint64_t>(pid) << 32) | static_cast<std::uint8_t>(s);
}
constexpr LifecycleState lifecycle_state(std::uint64_t w) {
  return static_cast<LifecycleState>(w & 0xFF);
}
constexpr std::uint32_t lifecycle_pid(std::uint64_t w) {
  return static_cast<std::uint32_t>(w >> 32);
}

}  // namespace baton::shm
