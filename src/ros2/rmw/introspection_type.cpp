// A message type of either introspection type support: see introspection_type.hpp.
#include "introspection_type.hpp"

#include <rosidl_runtime_c/message_initialization.h>

#include <rosidl_runtime_cpp/message_initialization.hpp>

namespace baton::ros2::rmw {

std::string interface_name(const char* namespace_, const char* name) {
  std::string out;
  for (const char* p = namespace_ != nullptr ? namespace_ : ""; *p != '\0';) {
    const bool separator = (p[0] == '_' && p[1] == '_') || (p[0] == ':' && p[1] == ':');
    out += separator ? '/' : *p;
    p += separator ? 2 : 1;
  }
  return out + "/" + (name != nullptr ? name : "");
}

std::string IntrospectionType::name() const {
  if (const auto* t = c()) return interface_name(t->message_namespace_, t->message_name_);
  if (const auto* t = cpp()) return interface_name(t->message_namespace_, t->message_name_);
  return "?";
}

uint64_t IntrospectionType::size_of() const {
  if (const auto* t = c()) return t->size_of_;
  if (const auto* t = cpp()) return t->size_of_;
  return 0;
}

bool IntrospectionType::init(void* memory, bool defaults_only) const {
  if (const auto* t = c()) {
    if (t->init_function == nullptr) return false;
    t->init_function(memory, defaults_only ? ROSIDL_RUNTIME_C_MSG_INIT_DEFAULTS_ONLY
                                           : ROSIDL_RUNTIME_C_MSG_INIT_ALL);
    return true;
  }
  if (const auto* t = cpp()) {
    if (t->init_function == nullptr) return false;
    try {
      t->init_function(memory, defaults_only
                                   ? rosidl_runtime_cpp::MessageInitialization::DEFAULTS_ONLY
                                   : rosidl_runtime_cpp::MessageInitialization::ALL);
      return true;
    } catch (...) {  // std::bad_alloc from a member's constructor: nothing was constructed
      return false;
    }
  }
  return false;
}

void IntrospectionType::fini(void* message) const {
  if (const auto* t = c(); t != nullptr && t->fini_function != nullptr) t->fini_function(message);
  if (const auto* t = cpp(); t != nullptr && t->fini_function != nullptr) t->fini_function(message);
}

}  // namespace baton::ros2::rmw
