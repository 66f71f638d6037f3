// ROS 2 names of DDS topics and types: the reverse of dds_topic_name / dds_type_name, as
// rmw_cyclonedds_cpp and rmw_fastrtps_cpp demangle what DDS discovery reports:
//
//   "rt/chatter"                 -> topic "/chatter"
//   "rq/add_two_intsRequest"     -> service "/add_two_ints", request (servers read, clients write)
//   "rr/add_two_intsReply"       -> service "/add_two_ints", reply (servers write, clients read)
//   anything else                -> not a ROS name ("ros_discovery_info", a bare DDS topic)
//   "std_msgs::msg::dds_::String_"                       -> "std_msgs/msg/String"
//   "example_interfaces::srv::dds_::AddTwoInts_Request_" -> "example_interfaces/srv/AddTwoInts"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace baton::ros2 {

enum class DdsTopicKind : uint8_t { Topic, ServiceRequest, ServiceReply, NotRos };

struct RosName {
  DdsTopicKind kind = DdsTopicKind::NotRos;
  std::string name;  // "/chatter", "/add_two_ints"; empty when NotRos
  bool operator==(const RosName&) const = default;
};

// The ROS topic or service a DDS topic carries (rmw_dds_common's _demangle_ros_topic_from_topic /
// _demangle_service_{request,reply}_from_topic: "rq/" names must end in "Request", "rr/" in
// "Reply").
RosName ros_name_of(std::string_view dds_topic);

// "pkg::msg::dds_::Name_" -> "pkg/msg/Name"; any other text is returned as is
// (_demangle_if_ros_type).
std::string ros_type_of(std::string_view dds_type);

// "pkg::srv::dds_::Name_Request_" / "..._Response_" -> "pkg/srv/Name"; "" when the type is not a
// service part (_demangle_service_type_only).
std::string ros_service_type_of(std::string_view dds_type);

}  // namespace baton::ros2
