// One message type as an introspection type support describes it: rclpy's C structs
// (rosidl_typesupport_introspection_c) or rclcpp's C++ classes
// (rosidl_typesupport_introspection_cpp). A small value (a pointer and which of the two it is) that
// the rmw's endpoints keep and hand to the CDR walker (introspection_cdr.hpp) and the loan layout
// (loan_layout.hpp), which dispatch on language() to the matching layout policy
// (introspection_layout.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "introspection_layout.hpp"

namespace baton::ros2::rmw {

enum class TypeSupportLanguage : uint8_t {
  C,    // rosidl_typesupport_introspection_c: rclpy, rclc
  Cpp,  // rosidl_typesupport_introspection_cpp: rclcpp, rcl programs with C++ messages
};

class IntrospectionType {
 public:
  IntrospectionType() = default;
  explicit IntrospectionType(const CLayout::Members* members)
      : members_(members), language_(TypeSupportLanguage::C) {}
  explicit IntrospectionType(const CppLayout::Members* members)
      : members_(members), language_(TypeSupportLanguage::Cpp) {}

  explicit operator bool() const { return members_ != nullptr; }
  bool operator==(const IntrospectionType&) const = default;
  TypeSupportLanguage language() const { return language_; }
  // The description in its own layout; null when the type is of the other language (or empty).
  const CLayout::Members* c() const {
    return language_ == TypeSupportLanguage::C ? static_cast<const CLayout::Members*>(members_)
                                               : nullptr;
  }
  const CppLayout::Members* cpp() const {
    return language_ == TypeSupportLanguage::Cpp ? static_cast<const CppLayout::Members*>(members_)
                                                 : nullptr;
  }

  // "std_msgs/msg/String" (C namespaces read "std_msgs__msg", C++ ones "std_msgs::msg").
  std::string name() const;
  // The size of the struct / class in memory (its tail padding included).
  uint64_t size_of() const;
  // Makes a valid message with every field initialised (the type's init_function with
  // ROSIDL_RUNTIME_C_MSG_INIT_ALL, for C++ a placement new) in `memory` (size_of() bytes,
  // aligned for the type). False if it could not (a C++ constructor threw, no init function):
  // nothing is to be finalised then. `defaults_only`: only fields with a default value are set
  // (INIT_DEFAULTS_ONLY); the others keep the bytes `memory` holds (a loan, see
  // rmw_borrow_loaned_message).
  bool init(void* memory, bool defaults_only = false) const;
  // Releases what init() (or a decode) made the message own; the memory itself is the caller's.
  void fini(void* message) const;

 private:
  const void* members_ = nullptr;
  TypeSupportLanguage language_ = TypeSupportLanguage::C;
};

// "std_msgs/msg/String" from an introspection namespace ("std_msgs__msg" or "std_msgs::msg") and
// name (null: "").
std::string interface_name(const char* namespace_, const char* name);

}  // namespace baton::ros2::rmw
