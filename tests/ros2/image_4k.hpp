// The 4K test image both rclpy_native_peer.py and the C++ wire tests build: 3840x2160 rgb8,
// data[i] = (7 i + 13) mod 256, and its SHA-256 as the peer prints it.
#pragma once

#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "baton/ros2/dynamic_value.hpp"
#include "baton/ros2/type_description.hpp"
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

// A camera-like 4K stream (issue 17): 30 images at 10 Hz (3 s) over reliable keep-last-10 QoS, of
// which at least 95 % must arrive intact. The
// image's header.stamp.sec carries its sequence number.
constexpr int kCameraHz = 10;
constexpr int kCameraImages = 30;
constexpr int kCameraMinDelivered = 29;

inline void set_image_seq(Value& image, const MessageDescription& image_t, int32_t seq) {
  image.at(image_t, "header").items[0].items[0] = Value::of<int32_t>(seq);  // header.stamp.sec
}
inline int32_t image_seq(const Value& image, const MessageDescription& image_t) {
  return image.at(image_t, "header").items[0].items[0].as<int32_t>();
}

// The sequence numbers of the 4K test images an rclpy `image-listen` peer printed as intact
// ("image 3840 2160 rgb8 11520 24883200 bytes=equal frame=<frame> seq=<n>": the peer compared
// every byte with pattern_4k()).
inline std::set<int> intact_images(const std::string& listener_output, const std::string& frame) {
  const std::string intact =
      "image 3840 2160 rgb8 11520 24883200 bytes=equal frame=" + frame + " seq=";
  std::set<int> seqs;
  std::istringstream lines(listener_output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(intact, 0) == 0) seqs.insert(std::stoi(line.substr(intact.size())));
  return seqs;
}

}  // namespace baton::ros2::test
