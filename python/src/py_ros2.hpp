// ROS 2 messages for Python: decoding the CDR bytes of a topic of a ROS 2 type (as baton's ros2
// layer and rclpy write them) into a dict, for `baton topic echo`. Types come from
// AMENT_PREFIX_PATH through ros2::TypeRegistry, as the ros2 CLI finds them.
#pragma once

#include <nanobind/nanobind.h>

#include <mutex>
#include <string>
#include <string_view>

#include "baton/ros2/type_registry.hpp"

namespace baton::py {
void bind_ros2(nanobind::module_& m);

// The process's ROS 2 types (AMENT_PREFIX_PATH), loaded on demand under `mutex`; never destroyed,
// because the descriptions it hands out (and a DDS participant's) are borrowed from it.
struct Ros2Types {
  std::mutex mutex;
  ros2::TypeRegistry types;
  Ros2Types() { types.add_ament_prefix_path(); }
};
Ros2Types& ros2_types();

// The description of ROS 2 type `type_name`; raises baton.errors.<error_kind>Error naming the
// type and why it was not found.
const ros2::MessageDescription& ros2_message_type(const std::string& type_name,
                                                  std::string_view error_kind);
}  // namespace baton::py
