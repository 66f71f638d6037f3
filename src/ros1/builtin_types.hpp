// Private to baton_ros1: the descriptions standing for ROS 1's builtin `time` and `duration`
// (see message_type.hpp): {uint32 secs, uint32 nsecs} and {int32 secs, int32 nsecs}.
#pragma once

#include "baton/ros2/type_description.hpp"

namespace baton::ros1::detail {

const ros2::MessageDescription& time_description();
const ros2::MessageDescription& duration_description();

}  // namespace baton::ros1::detail
