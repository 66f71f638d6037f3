// The 4K test image both rclpy_native_peer.py and the C++ wire tests build: 3840x2160 rgb8,
// data[i] = (7 i + 13) mod 256, and its SHA-256 as the peer prints it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "baton/ros2/type_hash.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2::test {

constexpr uint32_t W4K = 3840, H4K = 2160;

inline std::vector<uint8_t> pattern_4k() {
  std::vector<uint8_t> d(size_t{W4K} * H4K * 3);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i * 7 + 13);
  return d;
}

inline std::string sha256_hex(const std::vector<uint8_t>& d) {
  return hex(sha256(std::string_view(reinterpret_cast<const char*>(d.data()), d.size())));
}

}  // namespace baton::ros2::test
