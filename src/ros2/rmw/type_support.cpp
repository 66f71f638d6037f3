// Type support resolution: see type_support.hpp.
#include "type_support.hpp"

#include <rcutils/error_handling.h>
#include <rosidl_typesupport_introspection_c/identifier.h>
#include <rosidl_typesupport_introspection_c/service_introspection.h>

#include <algorithm>
#include <cstring>
#include <rosidl_typesupport_introspection_cpp/identifier.hpp>
#include <rosidl_typesupport_introspection_cpp/service_introspection.hpp>

#include "../rpc_shm.hpp"

namespace baton::ros2::rmw {
namespace {

// The introspection type support behind `ts` and its language. rcl's type supports are
// dispatchers (rosidl_typesupport_c for rclpy, rosidl_typesupport_cpp for rclcpp): ask for the C
// introspection one first, then the C++ one. A failed lookup leaves an rcutils error behind;
// clear it, the caller reports its own.
template <typename Ts>
struct Found {
  const Ts* intro = nullptr;
  TypeSupportLanguage language = TypeSupportLanguage::C;
};
template <typename Ts, typename Get>
Found<Ts> introspection_of(const Ts* ts, Get get) {
  if (const Ts* c = get(ts, rosidl_typesupport_introspection_c__identifier); c != nullptr)
    return {c, TypeSupportLanguage::C};
  rcutils_reset_error();
  if (const Ts* cpp = get(ts, rosidl_typesupport_introspection_cpp::typesupport_identifier);
      cpp != nullptr)
    return {cpp, TypeSupportLanguage::Cpp};
  rcutils_reset_error();
  return {};
}

IntrospectionType message_members(const Found<rosidl_message_type_support_t>& found) {
  if (found.intro == nullptr || found.intro->data == nullptr) return {};
  if (found.language == TypeSupportLanguage::C)
    return IntrospectionType(static_cast<const CLayout::Members*>(found.intro->data));
  return IntrospectionType(static_cast<const CppLayout::Members*>(found.intro->data));
}

std::string identifier_of(const char* id) { return id != nullptr ? id : "?"; }

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

IntrospectionType introspection_members(const rosidl_message_type_support_t* ts) {
  if (ts == nullptr) return {};
  return message_members(introspection_of(ts, get_message_typesupport_handle));
}

Result<MessageType, std::string> resolve_message_type(const rosidl_message_type_support_t* ts) {
  if (ts == nullptr) return unexpected(std::string("type support is null"));
  const auto found = introspection_of(ts, get_message_typesupport_handle);
  MessageType t;
  t.members = message_members(found);
  if (!t.members)
    return unexpected("type support '" + identifier_of(ts->typesupport_identifier) +
                      "' offers neither rosidl_typesupport_introspection_c nor "
                      "rosidl_typesupport_introspection_cpp (is the package's introspection "
                      "library on the library path?)");
  t.name = t.members.name();
  t.hash = message_hash(ts, found.intro);
  t.info = type_info_of(t.name, t.hash);
  t.loan = loan_layout_of(t.members);
  return t;
}

Result<ServiceType, std::string> resolve_service_type(const rosidl_service_type_support_t* ts) {
  if (ts == nullptr) return unexpected(std::string("service type support is null"));
  const auto found = introspection_of(ts, get_service_typesupport_handle);
  const auto* intro = found.intro;
  if (intro == nullptr || intro->data == nullptr)
    return unexpected("service type support '" + identifier_of(ts->typesupport_identifier) +
                      "' offers neither rosidl_typesupport_introspection_c nor "
                      "rosidl_typesupport_introspection_cpp (is the package's introspection "
                      "library on the library path?)");
  ServiceType t;
  // The C and C++ ServiceMembers have the same fields.
  auto read = [&](const auto* members) {
    t.request = IntrospectionType(members->request_members_);
    t.response = IntrospectionType(members->response_members_);
    t.name = interface_name(members->service_namespace_, members->service_name_);
  };
  if (found.language == TypeSupportLanguage::C)
    read(static_cast<const rosidl_typesupport_introspection_c__ServiceMembers*>(intro->data));
  else
    read(static_cast<const rosidl_typesupport_introspection_cpp::ServiceMembers*>(intro->data));
  if (!t.request || !t.response)
    return unexpected(std::string("service introspection lacks request or response members"));
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
