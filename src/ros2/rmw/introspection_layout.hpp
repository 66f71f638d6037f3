// The two in-memory layouts of a ROS message that rmw_baton_cpp walks: the C structs described by
// rosidl_typesupport_introspection_c (rclpy, rclc) and the C++ classes described by
// rosidl_typesupport_introspection_cpp (rclcpp, rcl programs in C++). Both describe their members
// with the same fields (type ids of equal values, offsets, array kinds, function pointers); only
// strings and sequences lie differently in memory, and a layout policy says how:
//
//   field           CLayout                                  CppLayout
//   string          rosidl_runtime_c__String {data,size,cap}  std::string
//   wstring         rosidl_runtime_c__U16String               std::u16string
//   T[N]            inline                                    std::array<T, N> (inline)
//   T[], T[<=N]     {T* data, size_t size, size_t capacity}   std::vector<T>, BoundedVector<T, N>
//                                                             (contiguous: get_function(field, 0))
//   bool[], <=N     as T[]                                    std::vector<bool> (BoundedVector):
//                                                             no contiguous data, element by
//                                                             element (fetch / assign_function)
//   nested message  inline                                    inline
//
// The CDR walker (introspection_cdr.cpp) and the loan layout (loan_layout.cpp) are written once,
// as templates over these policies. C++ calls that may throw (allocation, a bound) are caught
// here and reported as false: nothing throws through the rmw's C interface.
#pragma once

#include <rosidl_runtime_c/string.h>
#include <rosidl_runtime_c/string_functions.h>
#include <rosidl_runtime_c/u16string.h>
#include <rosidl_runtime_c/u16string_functions.h>
#include <rosidl_typesupport_introspection_c/field_types.h>
#include <rosidl_typesupport_introspection_c/message_introspection.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <rosidl_typesupport_introspection_cpp/field_types.hpp>
#include <rosidl_typesupport_introspection_cpp/message_introspection.hpp>
#include <string>
#include <string_view>

namespace baton::ros2::rmw {

// What a layout says of one sequence: its element count and, when the elements are contiguous,
// where they start (null when empty, or for a C++ std::vector<bool>).
struct SequenceElements {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

// The generic layout of every rosidl C sequence (rosidl_runtime_c__<T>__Sequence).
struct CSequence {
  void* data;
  size_t size;
  size_t capacity;
};

struct CLayout {
  using Members = rosidl_typesupport_introspection_c__MessageMembers;
  using Member = rosidl_typesupport_introspection_c__MessageMember;
  static constexpr const char* NAME = "C";
  static constexpr uint64_t STRING_SIZE = sizeof(rosidl_runtime_c__String);
  static constexpr uint64_t WSTRING_SIZE = sizeof(rosidl_runtime_c__U16String);
  // A primitive sequence may point into the received sample (introspection_decode_view).
  static constexpr bool CAN_BORROW = true;

  static std::string_view string(const void* field) {
    const auto* s = static_cast<const rosidl_runtime_c__String*>(field);
    return {s->data != nullptr ? s->data : "", s->size};
  }
  static bool assign_string(void* field, std::string_view v) {
    // A length-0 string ("" as Fast CDR may write it) is an empty view with no data pointer,
    // which assignn refuses: give it "".
    return rosidl_runtime_c__String__assignn(static_cast<rosidl_runtime_c__String*>(field),
                                             v.data() != nullptr ? v.data() : "", v.size());
  }
  static SequenceElements wstring(const void* field) {
    const auto* s = static_cast<const rosidl_runtime_c__U16String*>(field);
    return {reinterpret_cast<const uint8_t*>(s->data), s->size};
  }
  static bool assign_wstring(void* field, const uint8_t* units, uint32_t count) {
    auto* s = static_cast<rosidl_runtime_c__U16String*>(field);
    if (!rosidl_runtime_c__U16String__resize(s, count)) return false;
    if (count != 0) std::memcpy(s->data, units, uint64_t{count} * 2);
    return true;
  }
  static SequenceElements sequence(const Member&, const void* field) {
    const auto* seq = static_cast<const CSequence*>(field);
    return {static_cast<const uint8_t*>(seq->data), seq->size};
  }
  // Resizes the sequence at `field` (the member has a resize_function) to `n` elements; `data`
  // gets where they start. False: out of memory.
  static bool resize(const Member& m, void* field, uint32_t n, uint8_t*& data) {
    if (!m.resize_function(field, n)) return false;
    data = static_cast<uint8_t*>(static_cast<CSequence*>(field)->data);
    return true;
  }
};

struct CppLayout {
  using Members = rosidl_typesupport_introspection_cpp::MessageMembers;
  using Member = rosidl_typesupport_introspection_cpp::MessageMember;
  static constexpr const char* NAME = "C++";
  static constexpr uint64_t STRING_SIZE = sizeof(std::string);
  static constexpr uint64_t WSTRING_SIZE = sizeof(std::u16string);
  // A std::vector owns its elements: it cannot point into a sample.
  static constexpr bool CAN_BORROW = false;

  static std::string_view string(const void* field) {
    return *static_cast<const std::string*>(field);
  }
  static bool assign_string(void* field, std::string_view v) {
    try {
      static_cast<std::string*>(field)->assign(v);
      return true;
    } catch (...) {
      return false;
    }
  }
  static SequenceElements wstring(const void* field) {
    const auto* s = static_cast<const std::u16string*>(field);
    return {reinterpret_cast<const uint8_t*>(s->data()), s->size()};
  }
  static bool assign_wstring(void* field, const uint8_t* units, uint32_t count) {
    try {
      auto* s = static_cast<std::u16string*>(field);
      s->resize(count);
      if (count != 0) std::memcpy(s->data(), units, uint64_t{count} * 2);
      return true;
    } catch (...) {
      return false;
    }
  }
  static SequenceElements sequence(const Member& m, const void* field) {
    SequenceElements out;
    out.size = m.size_function != nullptr ? m.size_function(field) : 0;
    if (out.size != 0 && m.get_const_function != nullptr)
      out.data = static_cast<const uint8_t*>(m.get_const_function(field, 0));
    return out;
  }
  static bool resize(const Member& m, void* field, uint32_t n, uint8_t*& data) {
    try {
      m.resize_function(field, n);
    } catch (...) {  // std::bad_alloc; std::length_error past a BoundedVector's bound
      return false;
    }
    data = n != 0 && m.get_function != nullptr ? static_cast<uint8_t*>(m.get_function(field, 0))
                                               : nullptr;
    return true;
  }
};

// The C++ field type ids are defined as the C ones; the shared classification relies on it.
static_assert(rosidl_typesupport_introspection_cpp::ROS_TYPE_BOOLEAN ==
                  rosidl_typesupport_introspection_c__ROS_TYPE_BOOLEAN &&
              rosidl_typesupport_introspection_cpp::ROS_TYPE_MESSAGE ==
                  rosidl_typesupport_introspection_c__ROS_TYPE_MESSAGE &&
              rosidl_typesupport_introspection_cpp::ROS_TYPE_WSTRING ==
                  rosidl_typesupport_introspection_c__ROS_TYPE_WSTRING &&
              rosidl_typesupport_introspection_cpp::ROS_TYPE_LONG_DOUBLE ==
                  rosidl_typesupport_introspection_c__ROS_TYPE_LONG_DOUBLE);

}  // namespace baton::ros2::rmw
