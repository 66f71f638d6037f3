// A ROS 1 message type as TCPROS needs it: its fields, its genmsg md5sum and its full definition.
//
// Ownership: a MessageType is owned by the ros1::TypeRegistry that loaded it and is valid until
// that registry is destroyed; it is immutable once returned, so any thread may read it.
#pragma once

#include <string>
#include <string_view>

#include "baton/ros2/type_description.hpp"

namespace baton::ros1 {

// How ROS 1's builtin `time` and `duration` appear in a description: a field of type Nested whose
// nested_type_name is "time" / "duration" and whose nested description has the two 32-bit
// fields secs and nsecs (uint32 for time, int32 for duration), so a Value holds them as a nested
// message of two scalars and the wire form (8 bytes, no alignment) falls out of the general rule.
inline constexpr std::string_view TIME_TYPE = "time";
inline constexpr std::string_view DURATION_TYPE = "duration";

struct MessageType {
  std::string name;  // "sensor_msgs/Image" (ROS 1 spelling: no "/msg/")
  // The fields (parsed by baton::ros2::parse_message; see type_registry.hpp for how ROS 1's
  // builtins are mapped). Borrowed from the registry.
  const ros2::MessageDescription* description = nullptr;
  std::string md5sum;      // 32 hex digits, as genmsg's compute_md5 gives
  std::string definition;  // the connection header's message_definition (genmsg full text)
  std::string text;        // the .msg file as read
};

}  // namespace baton::ros1
