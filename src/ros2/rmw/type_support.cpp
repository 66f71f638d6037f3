// Type support resolution: see type_support.hpp.
#include "type_support.hpp"

#include <rcutils/error_handling.h>
#include <rosidl_typesupport_introspection_c/identifier.h>

#include <algorithm>
#include <cstring>

#include "../rpc_shm.hpp"
#include "introspection_cdr.hpp"

namespace baton::ros2::rmw {
namespace {

// rcl's type supports are dispatchers (rosidl_typesupport_c): ask for the introspection one.
// A failed lookup leaves an rcutils error behind; clear it, the caller reports its own.
template <typename Ts, typename Get>
const Ts* introspection_of(const Ts* ts, Get get) {
  const Ts* found = get(ts, rosidl_typesupport_introspection_c__identifier);
  if (found == nullptr) rcutils_reset_error();
  return found;
}

// The RIHS01 of a message type support (the dispatcher's, else the introspection one's); version
// 0 when neither has one.
rosidl_type_hash_t message_hash(const rosidl_message_type_support_t* ts,
                                const rosidl_message_type_support_t* intro) {
  const rosidl_type_hash_t* h = nullptr;
  if (ts != nullptr && ts->get_type_hash_func != nullptr) h = ts->get_type_hash_func(ts);
  if (h == nullptr && intro != nullptr && intro->get_type_hash_func != nullptr)
    h = intro->get_type_hash_func(intro);
  return h != nullptr ? *h : rosidl_type_hash_t{};
}

// The request / response type support of a service: the dispatcher's, else the introspection
// one's (either may leave it null).
const rosidl_message_type_support_t* part_of(const rosidl_service_type_support_t* ts,
                                             const rosidl_service_type_support_t* intro,
                                             bool request) {
  for (const auto* s : {ts, intro}) {
    const auto* m = request ? s->request_typesupport : s->response_typesupport;
    if (m != nullptr) return m;
  }
  return nullptr;
}

}  // namespace

topic::TypeInfo type_info_of(const std::string& name, const rosidl_type_hash_t& hash) {
  if (hash.version != 1) return topic::TypeInfo::from_name(name, "no RIHS01");
  topic::TypeInfo info;
  info.name = name;
  std::memcpy(info.hash.data(), hash.value, info.hash.size());
  return info;
}

const rosidl_typesupport_introspection_c__MessageMembers* introspection_members(
    const rosidl_message_type_support_t* ts) {
  if (ts == nullptr) return nullptr;
  const auto* intro = introspection_of(ts, get_message_typesupport_handle);
  if (intro == nullptr) return nullptr;
  return static_cast<const rosidl_typesupport_introspection_c__MessageMembers*>(intro->data);
}

Result<MessageType, std::string> resolve_message_type(const rosidl_message_type_support_t* ts) {
  if (ts == nullptr) return unexpected(std::string("type support is null"));
  const auto* intro = introspection_of(ts, get_message_typesupport_handle);
  if (intro == nullptr || intro->data == nullptr)
    return unexpected(std::string("type support '") +
                      (ts->typesupport_identifier ? ts->typesupport_identifier : "?") +
                      "' offers no rosidl_typesupport_introspection_c (rmw_baton_cpp serves C "
                      "type supports, as rclpy uses; C++ type supports are not supported yet)");
  MessageType t;
  t.members = static_cast<const rosidl_typesupport_introspection_c__MessageMembers*>(intro->data);
  t.name = full_type_name(*t.members);
  t.hash = message_hash(ts, intro);
  t.info = type_info_of(t.name, t.hash);
  t.loan = loan_layout_of(*t.members);
  return t;
}

Result<ServiceType, std::string> resolve_service_type(const rosidl_service_type_support_t* ts) {
  if (ts == nullptr) return unexpected(std::string("service type support is null"));
  const auto* intro = introspection_of(ts, get_service_typesupport_handle);
  if (intro == nullptr || intro->data == nullptr)
    return unexpected(std::string("service type support '") +
                      (ts->typesupport_identifier ? ts->typesupport_identifier : "?") +
                      "' offers no rosidl_typesupport_introspection_c (C++ type supports are not "
                      "supported yet)");
  const auto* members =
      static_cast<const rosidl_typesupport_introspection_c__ServiceMembers*>(intro->data);
  if (members->request_members_ == nullptr || members->response_members_ == nullptr)
    return unexpected(std::string("service introspection lacks request or response members"));
  ServiceType t;
  t.request = members->request_members_;
  t.response = members->response_members_;
  t.name = interface_name(members->service_namespace_, members->service_name_);
  const rosidl_type_hash_t* h = nullptr;
  if (ts->get_type_hash_func != nullptr) h = ts->get_type_hash_func(ts);
  if (h == nullptr && intro->get_type_hash_func != nullptr) h = intro->get_type_hash_func(intro);
  if (h != nullptr) t.hash = *h;
  t.request_hash = message_hash(part_of(ts, intro, true), nullptr);
  t.response_hash = message_hash(part_of(ts, intro, false), nullptr);
  t.info = type_info_of(t.name, t.hash);
  // The request / response topics carry [ServiceMessageHeader][CDR]: not the plain message, so
  // their TypeInfo differs from a topic of type <Name>_Request.
  std::array<uint8_t, 32> hash{};
  std::copy(std::begin(t.hash.value), std::end(t.hash.value), hash.begin());
  t.request_info = detail::service_topic_type(t.name, "_Request", hash);
  t.response_info = detail::service_topic_type(t.name, "_Response", hash);
  return t;
}

}  // namespace baton::ros2::rmw
