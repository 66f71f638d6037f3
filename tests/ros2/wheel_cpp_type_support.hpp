// A ROS type's C++ type support from the PyPI wheels in .venv-ros: the rosidl_typesupport_cpp
// dispatcher that rclcpp (and an rcl program with C++ messages) hands to the rmw, loaded with
// dlopen. The dispatcher finds the package's rosidl_typesupport_introspection_cpp library through
// LD_LIBRARY_PATH (test::WheelLibraryPath).
#pragma once

#include <dlfcn.h>
#include <rosidl_runtime_c/message_type_support_struct.h>
#include <rosidl_runtime_c/service_type_support_struct.h>

#include <string>

#include "ros2_test_env.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2::test {

// `package/msg/name` (kind "msg") or `package/srv/name` (kind "srv").
class WheelCppTypeSupport {
 public:
  WheelCppTypeSupport(const std::string& package, const std::string& name,
                      const std::string& kind = "msg") {
    const auto lib = ros_venv() / "lib";
    void* intro =
        open_with_dependencies(lib, "lib" + package + "__rosidl_typesupport_introspection_cpp.so");
    void* dispatch = open_with_dependencies(lib, "lib" + package + "__rosidl_typesupport_cpp.so");
    if (intro == nullptr || dispatch == nullptr) return;
    const std::string stem = package + "__" + kind + "__" + name;
    const std::string what = kind == "msg" ? "message" : "service";
    void* get =
        ::dlsym(dispatch,
                ("rosidl_typesupport_cpp__get_" + what + "_type_support_handle__" + stem).c_str());
    if (get == nullptr) return;
    if (kind == "msg") {
      message_ = reinterpret_cast<const rosidl_message_type_support_t* (*)()>(get)();
    } else {
      service_ = reinterpret_cast<const rosidl_service_type_support_t* (*)()>(get)();
    }
  }
  bool loaded() const { return message_ != nullptr || service_ != nullptr; }
  const rosidl_message_type_support_t* message() const { return message_; }
  const rosidl_service_type_support_t* service() const { return service_; }

 private:
  const rosidl_message_type_support_t* message_ = nullptr;
  const rosidl_service_type_support_t* service_ = nullptr;
};

}  // namespace baton::ros2::test
