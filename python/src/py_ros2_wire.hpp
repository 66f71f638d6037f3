// ROS 2 on the DDS wire for Python: a native ROS 2 node (its own DDS participant) whose
// publishers take messages already serialized (CDR, as a bag holds them) through a loan and
// publish them to baton subscribers in shared memory and to other RMWs' subscribers over DDS
// (include/baton/ros2/ros2_publisher.hpp). baton.bag.Player's `wire` uses it. Without CycloneDDS
// only HAVE_ROS2_WIRE = False is bound.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_ros2_wire(nanobind::module_& m);
}  // namespace baton::py
