// How a C++ type becomes a baton message type. Plain (trivially copyable) types qualify; their
// identity is a name plus a hash of name, size and alignment, checked when an endpoint attaches.
//
//   struct Pose { double x, y, theta; };
//   BATON_MESSAGE(Pose, "demo/msg/Pose");
//
// Variable-size payloads (images, point clouds) use the raw byte API (RawPublisher) instead.
#pragma once

#include <string>
#include <type_traits>

#include "baton/topic/type_info.hpp"

namespace baton {

template <typename T>
struct MessageTraits;  // specialised by BATON_MESSAGE

template <typename T>
concept Message = std::is_trivially_copyable_v<T> && requires {
  MessageTraits<T>::name();
};

template <Message T>
topic::TypeInfo type_info_of() {
  return topic::TypeInfo::from_name(
      MessageTraits<T>::name(),
      "size=" + std::to_string(sizeof(T)) + ";align=" + std::to_string(alignof(T)));
}

}  // namespace baton

#define BATON_MESSAGE(Type, Name)                        \
  template <>                                            \
  struct baton::MessageTraits<Type> {                    \
    static constexpr const char* name() { return Name; } \
  }
