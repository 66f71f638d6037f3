// ROS 1 for Python (the `baton.ros1` package): ROS 1 message types, their serialization, the
// master's graph queries, and baton's ROS 1 node with its publishers and subscriptions
// (include/baton/ros1). A subscription's callback runs on the node's receiving threads with the
// GIL taken, as rospy's do; a sample is valid during the call only (its bytes may lie in a
// publisher's shared memory).
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_ros1(nanobind::module_& m);
}  // namespace baton::py
