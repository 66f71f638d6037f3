// What the conversion tests share: every message type of std_msgs, geometry_msgs and sensor_msgs
// present in both the ROS 2 wheels and Debian's ROS 1 packages, random ROS 2 values of a type,
// and an independent oracle for the conversion: the ROS 2 Value mapped field by field onto the
// ROS 1 type's Value (by name, Header.seq inserted, time / duration as their two words), which
// baton's ROS 1 serializer (itself checked against genpy, tests/ros1/type_registry_test.cpp) then
// writes.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "baton/ros1/type_registry.hpp"
#include "baton/ros2/dynamic_value.hpp"
#include "baton/ros2/type_registry.hpp"
#include "ros2/ros2_test_env.hpp"

namespace baton::bridge::test {

inline const std::vector<std::string>& common_packages() {
  static const std::vector<std::string> p = {"std_msgs", "geometry_msgs", "sensor_msgs"};
  return p;
}

// "pkg/msg/Name" of every .msg of the common packages that both generations have.
inline std::vector<std::string> paired_type_names() {
  std::vector<std::string> out;
  for (const auto& pkg : common_packages()) {
    const auto dir = ros2::test::ros_venv() / "share" / pkg / "msg";
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() != ".msg") continue;
      const std::string name = e.path().stem().string();
      if (std::filesystem::exists("/usr/share/" + pkg + "/msg/" + name + ".msg"))
        out.push_back(pkg + "/msg/" + name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A random value of `d`: every primitive random (bools 0 / 1, floats finite, time / duration
// nanosec < 10^9), strings of 0..8 printable bytes
// (within their bound), sequences of 0..3 elements (within their bound), fixed arrays full.
inline ros2::Value random_value(const ros2::MessageDescription& d, std::mt19937_64& rng) {
  using ros2::ArrayKind;
  using ros2::BaseType;
  auto text = [&](uint32_t bound) {
    uint32_t n = static_cast<uint32_t>(rng() % 9);
    if (bound != 0) n = std::min(n, bound);
    std::string s;
    for (uint32_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + rng() % 26));
    return s;
  };
  // Floats are finite numbers (a NaN's payload need not survive Python's float32 round trip).
  auto primitive_bytes = [&](BaseType t, uint64_t count) {
    std::vector<uint8_t> raw(count * ros2::primitive_size(t));
    for (auto& b : raw) b = static_cast<uint8_t>(rng());
    for (uint64_t i = 0; i < count; ++i) {
      const double x = static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000) / 64;
      if (t == BaseType::Float64) std::memcpy(raw.data() + i * 8, &x, 8);
      if (t == BaseType::Float32) {
        const float f = static_cast<float>(x);
        std::memcpy(raw.data() + i * 4, &f, 4);
      }
    }
    if (t == BaseType::Bool)
      for (auto& b : raw) b &= 1;
    return raw;
  };
  ros2::Value v;
  for (const auto& f : d.fields) {
    uint64_t n = 1;
    if (f.array == ArrayKind::Fixed) n = f.array_size;
    if (f.array == ArrayKind::Unbounded) n = rng() % 4;
    if (f.array == ArrayKind::Bounded) n = rng() % (std::min<uint32_t>(f.array_size, 3) + 1);
    ros2::Value field;
    if (ros2::is_primitive(f.type)) {
      field.raw = primitive_bytes(f.type, n);
    } else if (f.array == ArrayKind::None) {
      field = f.type == BaseType::String ? ros2::Value::of_string(text(f.string_bound))
                                         : random_value(*f.nested, rng);
    } else {
      for (uint64_t i = 0; i < n; ++i)
        field.items.push_back(f.type == BaseType::String
                                  ? ros2::Value::of_string(text(f.string_bound))
                                  : random_value(*f.nested, rng));
    }
    v.items.push_back(std::move(field));
  }
  // A valid stamp: nanosec below one second (genpy normalizes others when it reads them).
  if (d.package == "builtin_interfaces" && v.items.size() == 2)
    v.items[1] = ros2::Value::of<uint32_t>(static_cast<uint32_t>(rng() % 1000000000));
  return v;
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The oracle: `v` (of ROS 2 type `a`) as a Value of ROS 1 type `b`. Fields by name (case aside:
// CameraInfo's D / d), ROS 1 Header.seq = `seq` in the top-level header and 0 deeper, time /
// duration's two scalars as they are; a ROS 2 placeholder member dropped.
inline ros2::Value to_ros1_value(const ros2::MessageDescription& a,
                                 const ros2::MessageDescription& b, const ros2::Value& v,
                                 uint32_t seq, int depth = 0) {
  ros2::Value out;
  for (const auto& f1 : b.fields) {
    if (b.package == "std_msgs" && b.name == "Header" && f1.name == "seq") {
      out.items.push_back(ros2::Value::of<uint32_t>(depth == 1 ? seq : 0));
      continue;
    }
    int i = -1;
    for (size_t k = 0; k < a.fields.size(); ++k)
      if (lower(a.fields[k].name) == lower(f1.name)) i = static_cast<int>(k);
    const auto& f2 = a.fields.at(static_cast<size_t>(i));
    const ros2::Value& x = v.items.at(static_cast<size_t>(i));
    if (f2.type != ros2::BaseType::Nested || f1.nested_type_name == "time" ||
        f1.nested_type_name == "duration") {
      out.items.push_back(x);  // primitives, strings; time / duration: {sec, nanosec} as words
      continue;
    }
    if (f2.array == ros2::ArrayKind::None) {
      out.items.push_back(to_ros1_value(*f2.nested, *f1.nested, x, seq, depth + 1));
      continue;
    }
    ros2::Value arr;
    for (const auto& e : x.items)
      arr.items.push_back(to_ros1_value(*f2.nested, *f1.nested, e, seq, depth + 2));
    out.items.push_back(std::move(arr));
  }
  return out;
}

}  // namespace baton::bridge::test
