// ROS 1 builtins time / duration as two-field descriptions (builtin_types.hpp).
#include "builtin_types.hpp"

#include "baton/ros1/message_type.hpp"

namespace baton::ros1::detail {
namespace {

ros2::MessageDescription make(std::string_view name, ros2::BaseType word) {
  ros2::MessageDescription d;
  d.interface = "msg";
  d.name = std::string(name);
  for (const char* field : {"secs", "nsecs"}) {
    ros2::FieldDescription f;
    f.name = field;
    f.type = word;
    d.fields.push_back(std::move(f));
  }
  return d;
}

}  // namespace

const ros2::MessageDescription& time_description() {
  static const ros2::MessageDescription d = make(TIME_TYPE, ros2::BaseType::UInt32);
  return d;
}

const ros2::MessageDescription& duration_description() {
  static const ros2::MessageDescription d = make(DURATION_TYPE, ros2::BaseType::Int32);
  return d;
}

}  // namespace baton::ros1::detail
