// How a C++ type becomes a baton service type: a struct holding a Request and a Response, both
// plain (trivially copyable), registered under its ROS name.
//
//   struct AddTwoInts {
//     struct Request { std::int64_t a, b; };
//     struct Response { std::int64_t sum; };
//   };
//   BATON_SERVICE(AddTwoInts, "example_interfaces/srv/AddTwoInts");
//
// The request topic's type is "<name>_Request", the response topics' "<name>_Response" (ROS 2's
// naming), each hashed with the payload's size, alignment and the wire version, so a client and
// a service built from different struct layouts are refused when they attach.
#pragma once

#include <string>
#include <type_traits>

#include "baton/api/detail/service_wire.hpp"
#include "baton/topic/type_info.hpp"

namespace baton {

template <typename S>
struct ServiceTraits;  // specialised by BATON_SERVICE

template <typename S>
concept ServiceType = requires {
  typename S::Request;
  typename S::Response;
  ServiceTraits<S>::name();
}
&&std::is_trivially_copyable_v<typename S::Request>&&
    std::is_trivially_copyable_v<typename S::Response>;

namespace detail {
template <typename T>
std::string wire_layout_facts() {
  return "size=" + std::to_string(sizeof(T)) + ";align=" + std::to_string(alignof(T)) +
         ";wire=" + std::to_string(SERVICE_WIRE_VERSION);
}
}  // namespace detail

template <ServiceType S>
topic::TypeInfo request_type_info_of() {
  return topic::TypeInfo::from_name(std::string(ServiceTraits<S>::name()) + "_Request",
                                    detail::wire_layout_facts<typename S::Request>());
}

template <ServiceType S>
topic::TypeInfo response_type_info_of() {
  return topic::TypeInfo::from_name(std::string(ServiceTraits<S>::name()) + "_Response",
                                    detail::wire_layout_facts<typename S::Response>());
}

}  // namespace baton

#define BATON_SERVICE(Type, Name)                        \
  template <>                                            \
  struct baton::ServiceTraits<Type> {                    \
    static constexpr const char* name() { return Name; } \
  }
