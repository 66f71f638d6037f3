// From the type support rcl hands over to what the rmw needs: the introspection members the CDR
// walker runs on, the ROS type name and the baton TypeInfo (name + RIHS01 hash) that guards the
// baton topic. Only C type supports are handled (rclpy's); a C++ (rclcpp) type support is
// refused with an error naming what is missing.
#pragma once

#include <rosidl_runtime_c/message_type_support_struct.h>
#include <rosidl_runtime_c/service_type_support_struct.h>
#include <rosidl_runtime_c/type_hash.h>
#include <rosidl_typesupport_introspection_c/message_introspection.h>
#include <rosidl_typesupport_introspection_c/service_introspection.h>

#include <memory>
#include <span>
#include <string>

#include "baton/common/result.hpp"
#include "baton/topic/type_info.hpp"
#include "loan_layout.hpp"

namespace baton::ros2::rmw {

struct MessageType {
  const rosidl_typesupport_introspection_c__MessageMembers* members = nullptr;
  std::string name;           // "std_msgs/msg/String"
  rosidl_type_hash_t hash{};  // RIHS01 (version 0 when the type support has none)
  topic::TypeInfo info;       // guards the baton topic: name + the RIHS01 bytes
  // Whether (and how) it can be loaned; never null once resolved.
  std::shared_ptr<const LoanLayout> loan;
};

struct ServiceType {
  const rosidl_typesupport_introspection_c__MessageMembers* request = nullptr;
  const rosidl_typesupport_introspection_c__MessageMembers* response = nullptr;
  std::string name;  // "rcl_interfaces/srv/GetParameters"
  rosidl_type_hash_t hash{};
  // RIHS01 of <Name>_Request / <Name>_Response (version 0 when unknown): the type hashes other
  // RMWs announce in the USER_DATA of the rq/ and rr/ DDS endpoints.
  rosidl_type_hash_t request_hash{}, response_hash{};
  topic::TypeInfo info;           // for the graph: the service type
  topic::TypeInfo request_info;   // guards "<service>/_request"
  topic::TypeInfo response_info;  // guards "<service>/_response/<client id>"
};

Result<MessageType, std::string> resolve_message_type(const rosidl_message_type_support_t* ts);
// Just the introspection members of `ts` (null if it has none): cheap enough for a hot path.
const rosidl_typesupport_introspection_c__MessageMembers* introspection_members(
    const rosidl_message_type_support_t* ts);
Result<ServiceType, std::string> resolve_service_type(const rosidl_service_type_support_t* ts);

// The TypeInfo of a ROS type: its name and, when known (version 1), the RIHS01 hash bytes;
// otherwise a hash of the name.
topic::TypeInfo type_info_of(const std::string& name, const rosidl_type_hash_t& hash);

}  // namespace baton::ros2::rmw
