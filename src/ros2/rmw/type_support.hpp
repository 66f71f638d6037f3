// From the type support rcl hands over to what the rmw needs: the introspection members the CDR
// walker runs on, the ROS type name and the baton TypeInfo (name + RIHS01 hash) that guards the
// baton topic. Both kinds of type support are served: C (rosidl_typesupport_introspection_c, what
// rclpy and rclc use) is tried first, then C++ (rosidl_typesupport_introspection_cpp, what rclcpp
// uses); the resolved type keeps which one it is. The TypeInfo depends only on the ROS name and
// hash, so C and C++ endpoints of one type share a topic.
#pragma once

#include <rosidl_runtime_c/message_type_support_struct.h>
#include <rosidl_runtime_c/service_type_support_struct.h>
#include <rosidl_runtime_c/type_hash.h>

#include <memory>
#include <span>
#include <string>

#include "baton/common/result.hpp"
#include "baton/topic/type_info.hpp"
#include "introspection_type.hpp"
#include "loan_layout.hpp"

namespace baton::ros2::rmw {

struct MessageType {
  IntrospectionType members;  // C or C++ (members.language())
  std::string name;           // "std_msgs/msg/String"
  rosidl_type_hash_t hash{};  // RIHS01 (version 0 when the type support has none)
  topic::TypeInfo info;       // guards the baton topic: name + the RIHS01 bytes
  // Whether (and how) it can be loaned; never null once resolved.
  std::shared_ptr<const LoanLayout> loan;
};

struct ServiceType {
  IntrospectionType request, response;  // both of the service type support's language
  std::string name;                     // "rcl_interfaces/srv/GetParameters"
  rosidl_type_hash_t hash{};
  // RIHS01 of <Name>_Request / <Name>_Response (version 0 when unknown): the type hashes other
  // RMWs announce in the USER_DATA of the rq/ and rr/ DDS endpoints.
  rosidl_type_hash_t request_hash{}, response_hash{};
  topic::TypeInfo info;           // for the graph: the service type
  topic::TypeInfo request_info;   // guards "<service>/_request"
  topic::TypeInfo response_info;  // guards "<service>/_response/<client id>"
};

Result<MessageType, std::string> resolve_message_type(const rosidl_message_type_support_t* ts);
// Just the introspection members of `ts` (empty if it has none): cheap enough for a hot path.
IntrospectionType introspection_members(const rosidl_message_type_support_t* ts);
Result<ServiceType, std::string> resolve_service_type(const rosidl_service_type_support_t* ts);

// The TypeInfo of a ROS type: its name and, when known (version 1), the RIHS01 hash bytes;
// otherwise a hash of the name.
topic::TypeInfo type_info_of(const std::string& name, const rosidl_type_hash_t& hash);

}  // namespace baton::ros2::rmw
