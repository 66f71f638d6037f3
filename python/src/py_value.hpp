// baton's dynamic message form (ros2::Value, shared by the ROS 2 and ROS 1 layers) to and from
// Python: a message is a dict of its fields, nested messages are dicts, arrays of strings and
// messages are lists. What arrays of primitives become depends on ValueStyle.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <vector>

#include "baton/ros2/dynamic_value.hpp"
#include "py_util.hpp"

namespace baton::py {

// How arrays of bytes (uint8 / char / byte elements) become Python objects.
enum class ByteArrays {
  List,   // a list of ints (ros2 topic echo's form)
  Bytes,  // bytes, copied (rospy's form)
  // A read-only memoryview of the bytes where they lie (a sample in shared memory): no copy. The
  // views made are appended to ValueStyle::views, so their maker can release them once the
  // bytes go away.
  View,
};

struct ValueStyle {
  ByteArrays byte_arrays = ByteArrays::List;
  std::vector<nb::object>* views = nullptr;  // ByteArrays::View: where the memoryviews go
  const char* error_kind = "Ros2Decode";     // the baton.errors code raised on a bad Value
};

// `v` (of type `d`) as a dict of fields.
nb::object value_to_python(const ros2::MessageDescription& d, const ros2::Value& v,
                           const ValueStyle& style);

// The Value of type `d` that `obj` describes: a mapping of field names (or an object with the
// fields as attributes, like a rospy message); fields left out keep their defaults (zero / empty,
// fixed arrays at their length). Arrays of primitives may be any buffer (bytes, numpy) of the
// element size, which the Value then views instead of copying: `keep` holds those buffers and
// must outlive the Value. Raises TypeMismatchError naming the field on a wrong shape or range.
ros2::Value value_from_python(const ros2::MessageDescription& d, nb::handle obj,
                              std::vector<std::unique_ptr<HostBuffer>>& keep);

}  // namespace baton::py
