// C++ messages (the wheels' generated rclcpp classes) that the rmw_baton_cpp C++ type support
// tests send, serialize and compare: one per layout rule of rosidl_typesupport_introspection_cpp
// (std::string, std::vector, std::vector<bool>, BoundedVector, std::array, nested messages).
// Sample `i` of a kind differs from sample `j`, so a listener can tell which one it got and
// compare it whole with operator==. Used by rmw_baton_cpp_types_test.cpp (in process) and by
// rcl_cpp_peer.cpp (a separate rcl program).
#pragma once

#include <builtin_interfaces/msg/detail/time__struct.hpp>
#include <cstdint>
#include <geometry_msgs/msg/detail/point__struct.hpp>
#include <rcl_interfaces/msg/detail/parameter_descriptor__struct.hpp>
#include <rcl_interfaces/msg/detail/parameter_event__struct.hpp>
#include <rcl_interfaces/msg/detail/parameter_type__struct.hpp>
#include <rmw_dds_common/msg/detail/participant_entities_info__struct.hpp>
#include <sensor_msgs/msg/detail/camera_info__struct.hpp>
#include <sensor_msgs/msg/detail/image__struct.hpp>
#include <sensor_msgs/msg/detail/joint_state__struct.hpp>
#include <std_msgs/msg/detail/string__struct.hpp>
#include <string>

namespace baton::ros2::test::samples {

inline std_msgs::msg::String string_msg(int i) {
  std_msgs::msg::String m;
  m.data = "C++ message " + std::to_string(i);
  return m;
}

// A `width` x `height` rgb8 image whose bytes are (7 k + 13 + i) mod 256; header.stamp.sec = i.
inline sensor_msgs::msg::Image image(int i, uint32_t width, uint32_t height) {
  sensor_msgs::msg::Image m;
  m.header.stamp.sec = i;
  m.header.frame_id = "camera";
  m.width = width;
  m.height = height;
  m.encoding = "rgb8";
  m.step = width * 3;
  m.data.resize(size_t{width} * height * 3);
  for (size_t k = 0; k < m.data.size(); ++k) m.data[k] = static_cast<uint8_t>(k * 7 + 13 + i);
  return m;
}

inline sensor_msgs::msg::JointState joint_state(int i) {
  sensor_msgs::msg::JointState m;
  m.header.stamp.sec = i;
  m.header.frame_id = "arm";
  m.name = {"shoulder", "elbow", "wrist"};
  m.position = {0.5 + i, -1.25, 3.0};
  m.effort = {2.0};
  return m;
}

// Fixed arrays (std::array<double, 9 / 12>), a nested message with a bool, a double sequence.
inline sensor_msgs::msg::CameraInfo camera_info(int i) {
  sensor_msgs::msg::CameraInfo m;
  m.header.stamp.sec = i;
  m.header.frame_id = "camera";
  m.height = 2160;
  m.width = 3840;
  m.distortion_model = "plumb_bob";
  m.d = {0.1, -0.2, 0.001, 0.002, 0.0};
  for (size_t k = 0; k < m.k.size(); ++k) m.k[k] = 100.0 * i + static_cast<double>(k);
  for (size_t k = 0; k < m.r.size(); ++k) m.r[k] = k % 4 == 0 ? 1.0 : 0.0;
  for (size_t k = 0; k < m.p.size(); ++k) m.p[k] = -static_cast<double>(k) / 3.0;
  m.binning_x = 2;
  m.roi.x_offset = 10;
  m.roi.width = 640;
  m.roi.height = 480;
  m.roi.do_rectify = true;
  return m;
}

// Sequences of nested messages holding every sequence kind: bool[] (std::vector<bool>), byte[],
// int64[], float64[], string[]; bools, strings and a nested Time.
inline rcl_interfaces::msg::ParameterEvent parameter_event(int i) {
  rcl_interfaces::msg::ParameterEvent m;
  m.stamp.sec = i;
  m.stamp.nanosec = 123456789;
  m.node = "/cpp_ns/talker";
  rcl_interfaces::msg::Parameter flags;
  flags.name = "flags";
  flags.value.type = rcl_interfaces::msg::ParameterType::PARAMETER_BOOL_ARRAY;
  flags.value.bool_array_value = {true, false, true, true, false, i % 2 == 0, true};
  rcl_interfaces::msg::Parameter mixed;
  mixed.name = "mixed";
  mixed.value.bool_value = true;
  mixed.value.integer_value = -42 - i;
  mixed.value.double_value = 2.5;
  mixed.value.string_value = "text";
  mixed.value.byte_array_value = {0x00, 0xff, 0x10, static_cast<uint8_t>(i)};
  mixed.value.integer_array_value = {1, -2, 3000000000LL};
  mixed.value.double_array_value = {0.25, -8.0};
  mixed.value.string_array_value = {"a", "", "ccc"};
  m.new_parameters = {flags, mixed};
  rcl_interfaces::msg::Parameter changed;
  changed.name = "changed";
  changed.value.bool_array_value = {false};
  m.changed_parameters = {changed};
  return m;
}

// Bounded sequences (BoundedVector<FloatingPointRange, 1>, one element; IntegerRange empty).
inline rcl_interfaces::msg::ParameterDescriptor parameter_descriptor(int i) {
  rcl_interfaces::msg::ParameterDescriptor m;
  m.name = "gain";
  m.type = static_cast<uint8_t>(i % 256);
  m.description = "a bounded range";
  m.read_only = true;
  rcl_interfaces::msg::FloatingPointRange range;
  range.from_value = -1.0;
  range.to_value = 1.0 + i;
  range.step = 0.5;
  m.floating_point_range.push_back(range);
  return m;
}

// A fixed char[16] (std::array<uint8_t, 16>) in nested sequences, bounded strings (string<=256).
inline rmw_dds_common::msg::ParticipantEntitiesInfo participant_info(int i) {
  rmw_dds_common::msg::ParticipantEntitiesInfo m;
  for (size_t k = 0; k < m.gid.data.size(); ++k) m.gid.data[k] = static_cast<uint8_t>(k + i);
  rmw_dds_common::msg::NodeEntitiesInfo node;
  node.node_namespace = "/cpp_ns";
  node.node_name = "talker_" + std::to_string(i);
  node.reader_gid_seq.resize(2);
  node.reader_gid_seq[1].data[15] = 0xee;
  node.writer_gid_seq.resize(1);
  node.writer_gid_seq[0].data.fill(0x5a);
  m.node_entities_info_seq = {node, rmw_dds_common::msg::NodeEntitiesInfo()};
  return m;
}

inline geometry_msgs::msg::Point point(int i) {
  geometry_msgs::msg::Point m;
  m.x = 1.5 + i;
  m.y = -2.0;
  m.z = 1e9;
  return m;
}

}  // namespace baton::ros2::test::samples
