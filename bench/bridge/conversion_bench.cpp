// baton-bench-bridge-conversion: what one ROS 2 -> ROS 1 message conversion costs, three ways,
// measured in the same run on the same input (so only the ratios mean anything on a shared
// machine):
//
//   direct   bridge::CdrToRos1: one counting walk + one writing walk over the CDR bytes, into a
//            buffer of the exact size (what Ros1Mirror does, there into the TCPROS frame)
//   view     ros2::decode_view (a Value tree, primitive arrays left in place) +
//   ros1::serialize_into copy     ros2::decode (a Value tree, arrays copied) + ros1::serialize
//   (into a new vector):
//            the shape of ros1_bridge's path (deserialize, convert, serialize)
//
//   baton-bench-bridge-conversion [ROS2_SHARE [ROS1_SHARE]]
//     defaults: <source>/.venv-ros/share and /usr/share. Prints one line per message type:
//     median ns per message of each way and the ratios view / direct, copy / direct.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "baton/bridge/ros1_conversion.hpp"
#include "baton/ros1/serialization.hpp"
#include "baton/ros1/type_registry.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"

using namespace baton;

namespace {

// Median ns per call of `f` over 15 batches sized to take ~20 ms each.
template <typename F>
double median_ns(F&& f) {
  using clock = std::chrono::steady_clock;
  int per_batch = 1;
  for (;;) {  // size the batch
    const auto t0 = clock::now();
    for (int i = 0; i < per_batch; ++i) f();
    if (clock::now() - t0 > std::chrono::milliseconds(20) || per_batch > (1 << 24)) break;
    per_batch *= 2;
  }
  std::vector<double> ns;
  for (int b = 0; b < 15; ++b) {
    const auto t0 = clock::now();
    for (int i = 0; i < per_batch; ++i) f();
    ns.push_back(std::chrono::duration<double, std::nano>(clock::now() - t0).count() / per_batch);
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

ros2::Value image(const ros2::MessageDescription& d, uint32_t w, uint32_t h) {
  auto v = ros2::default_value(d);
  v.at(d, "header").items[1].str = "camera";
  v.at(d, "height") = ros2::Value::of<uint32_t>(h);
  v.at(d, "width") = ros2::Value::of<uint32_t>(w);
  v.at(d, "encoding") = ros2::Value::of_string("rgb8");
  v.at(d, "step") = ros2::Value::of<uint32_t>(w * 3);
  v.at(d, "data").raw.assign(size_t{w} * h * 3, 0);
  for (size_t i = 0; i < v.at(d, "data").raw.size(); ++i)
    v.at(d, "data").raw[i] = static_cast<uint8_t>(i * 7 + 13);
  return v;
}

ros2::Value joint_state(const ros2::MessageDescription& d, int joints) {
  auto v = ros2::default_value(d);
  v.at(d, "header").items[1].str = "base_link";
  std::vector<double> values(joints, 0.5);
  for (int i = 0; i < joints; ++i)
    v.at(d, "name").items.push_back(ros2::Value::of_string("joint_" + std::to_string(i)));
  for (const char* f : {"position", "velocity", "effort"})
    v.at(d, f) = ros2::Value::of_array<double>(values);
  return v;
}

ros2::Value string_msg(const ros2::MessageDescription& d) {
  auto v = ros2::default_value(d);
  v.items[0].str = "hello from a native ROS 2 publisher";
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ros2_share =
      argc > 1 ? argv[1] : std::string(BATON_SOURCE_DIR) + "/.venv-ros/share";
  const std::string ros1_share = argc > 2 ? argv[2] : "/usr/share";
  ros2::TypeRegistry two;
  two.add_share_root(ros2_share);
  ros1::TypeRegistry one;
  one.add_share_root(ros1_share);

  struct Case {
    std::string name;
    ros2::Value (*make)(const ros2::MessageDescription&);
  };
  const Case cases[] = {
      {"std_msgs/msg/String", [](const ros2::MessageDescription& d) { return string_msg(d); }},
      {"sensor_msgs/msg/JointState",
       [](const ros2::MessageDescription& d) { return joint_state(d, 50); }},
      {"sensor_msgs/msg/Image",
       [](const ros2::MessageDescription& d) { return image(d, 640, 480); }},
      {"sensor_msgs/msg/Image",
       [](const ros2::MessageDescription& d) { return image(d, 3840, 2160); }},
  };
  std::printf("%-28s %10s %12s %12s %12s %8s %8s\n", "type", "ROS 1 B", "direct ns", "view ns",
              "copy ns", "view/dir", "copy/dir");
  for (const auto& c : cases) {
    auto a = two.message(c.name);
    auto b = one.message(bridge::ros1_type_name(c.name));
    if (!a || !b) {
      std::fprintf(stderr, "%s: types not found (%s)\n", c.name.c_str(),
                   (!a ? a.error().detail : b.error().detail).c_str());
      return 1;
    }
    auto conv = bridge::CdrToRos1::create(**a, **b);
    if (!conv) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), conv.error().detail.c_str());
      return 1;
    }
    const auto value = c.make(**a);
    const auto cdr = *ros2::encode(**a, value);
    const auto& d1 = *(*b)->description;
    std::vector<uint8_t> out(*conv->converted_size(cdr));
    // The three ways must agree before they are timed.
    auto tree = conv->ros1_value(*ros2::decode(**a, cdr), 1);
    auto tree_bytes = ros1::serialize(d1, *tree);
    if (!tree_bytes || *tree_bytes != *conv->convert(cdr, 1)) {
      std::fprintf(stderr, "%s: the ways disagree\n", c.name.c_str());
      return 1;
    }
    const double direct = median_ns([&] {
      auto n = conv->converted_size(cdr);
      (void)conv->convert_into(cdr, std::span(out.data(), *n), 1);
    });
    const double view = median_ns([&] {
      auto v = ros2::decode_view(**a, cdr);
      auto r1 = conv->ros1_value(*v, 1);
      auto n = ros1::serialized_size(d1, *r1);
      (void)ros1::serialize_into(d1, *r1, std::span(out.data(), *n));
    });
    const double copy = median_ns([&] {
      auto v = ros2::decode(**a, cdr);
      auto r1 = conv->ros1_value(*v, 1);
      (void)ros1::serialize(d1, *r1);
    });
    std::printf("%-28s %10zu %12.0f %12.0f %12.0f %8.2f %8.2f\n", c.name.c_str(), out.size(),
                direct, view, copy, view / direct, copy / direct);
  }
  return 0;
}
