// The ROS 2 benchmarks' common start: where the ROS share directory is, and the
// sensor_msgs/msg/Image description loaded from it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "baton/ros2/type_registry.hpp"

namespace baton::bench {

// $BATON_ROS_VENV/share, else .venv-ros/share (the --share default).
inline std::string default_ros_share() {
  const char* venv = std::getenv("BATON_ROS_VENV");
  return std::string(venv != nullptr ? venv : ".venv-ros") + "/share";
}

// sensor_msgs/msg/Image from `share`, or nullptr after saying why on stderr.
inline const ros2::MessageDescription* load_image_type(ros2::TypeRegistry& reg,
                                                       const std::string& share) {
  reg.add_share_root(share);
  auto t = reg.message("sensor_msgs/msg/Image");
  if (!t) {
    std::fprintf(stderr, "sensor_msgs/msg/Image not found under %s: %s\n", share.c_str(),
                 t.error().detail.c_str());
    return nullptr;
  }
  return *t;
}

}  // namespace baton::bench
