// How one introspection member is laid out (kind, primitive size, stride in memory, array kind):
// the one classification of field types that both the CDR walker (introspection_cdr.cpp) and the
// loan layout (loan_layout.cpp) read, for either layout (introspection_layout.hpp: C structs or
// C++ classes; their type ids are the same).
#pragma once

#include <cstdint>

#include "baton/ros2/type_description.hpp"
#include "introspection_layout.hpp"

namespace baton::ros2::rmw {

enum class FieldKind : uint8_t { Primitive, Bool, String, WString, Nested, Unsupported };

template <typename L>
struct FieldShape {
  FieldKind kind = FieldKind::Unsupported;
  uint32_t size = 0;    // CDR size of one primitive (= its size in memory); 0 otherwise
  uint64_t stride = 0;  // size of one element in memory (for arrays)
  ArrayKind array = ArrayKind::None;
  uint32_t array_size = 0;
  const typename L::Members* nested = nullptr;
};

// A nested member's description, of the same layout as its parent (null if it has none).
template <typename L>
const typename L::Members* nested_members(const typename L::Member& m) {
  if (m.members_ == nullptr || m.members_->data == nullptr) return nullptr;
  return static_cast<const typename L::Members*>(m.members_->data);
}

template <typename L>
FieldShape<L> shape_of(const typename L::Member& m) {
  FieldShape<L> s;
  switch (m.type_id_) {
    case rosidl_typesupport_introspection_c__ROS_TYPE_BOOLEAN:
      s.kind = FieldKind::Bool;
      s.size = 1;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_CHAR:
    case rosidl_typesupport_introspection_c__ROS_TYPE_OCTET:
    case rosidl_typesupport_introspection_c__ROS_TYPE_UINT8:
    case rosidl_typesupport_introspection_c__ROS_TYPE_INT8:
      s.kind = FieldKind::Primitive;
      s.size = 1;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_WCHAR:
    case rosidl_typesupport_introspection_c__ROS_TYPE_UINT16:
    case rosidl_typesupport_introspection_c__ROS_TYPE_INT16:
      s.kind = FieldKind::Primitive;
      s.size = 2;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_FLOAT:
    case rosidl_typesupport_introspection_c__ROS_TYPE_UINT32:
    case rosidl_typesupport_introspection_c__ROS_TYPE_INT32:
      s.kind = FieldKind::Primitive;
      s.size = 4;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_DOUBLE:
    case rosidl_typesupport_introspection_c__ROS_TYPE_UINT64:
    case rosidl_typesupport_introspection_c__ROS_TYPE_INT64:
      s.kind = FieldKind::Primitive;
      s.size = 8;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_STRING:
      s.kind = FieldKind::String;
      s.stride = L::STRING_SIZE;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_WSTRING:
      s.kind = FieldKind::WString;
      s.stride = L::WSTRING_SIZE;
      break;
    case rosidl_typesupport_introspection_c__ROS_TYPE_MESSAGE:
      s.nested = nested_members<L>(m);
      s.kind = s.nested != nullptr ? FieldKind::Nested : FieldKind::Unsupported;
      if (s.nested != nullptr) s.stride = s.nested->size_of_;
      break;
    default:  // long double: no ROS 2 RMW puts it on the wire the same way; refuse it
      s.kind = FieldKind::Unsupported;
  }
  if (s.size != 0) s.stride = s.size;
  if (m.is_array_) {
    s.array = m.is_upper_bound_   ? ArrayKind::Bounded
              : m.array_size_ > 0 ? ArrayKind::Fixed
                                  : ArrayKind::Unbounded;
    s.array_size = static_cast<uint32_t>(m.array_size_);
  }
  return s;
}

}  // namespace baton::ros2::rmw
