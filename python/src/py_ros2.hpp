// ROS 2 messages for Python: decoding the CDR bytes of a topic of a ROS 2 type (as baton's ros2
// layer and rclpy write them) into a dict, for `baton topic echo`. Types come from
// AMENT_PREFIX_PATH through ros2::TypeRegistry, as the ros2 CLI finds them.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_ros2(nanobind::module_& m);
}  // namespace baton::py
