// A ROS message type's C type support and message functions, loaded from the PyPI wheels'
// libraries in .venv-ros (as rcl would get them from a generated package): what the rmw tests
// hand to rmw_baton_cpp, loaded with dlopen.
#pragma once

#include <dlfcn.h>
#include <rosidl_runtime_c/message_type_support_struct.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ros2_test_env.hpp"

namespace baton::ros2::test {

// dlopen of `dir/name`, first loading (from `dir`, RTLD_GLOBAL) each dependency the loader
// reports missing: the wheels' libraries carry no RPATH, and this process started without their
// LD_LIBRARY_PATH. Kept loaded for the process's life.
inline void* open_with_dependencies(const std::filesystem::path& dir, const std::string& name,
                                    int depth = 0) {
  for (int attempt = 0; attempt < 64 && depth < 16; ++attempt) {
    if (void* h = ::dlopen((dir / name).c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    const std::string err = ::dlerror();
    const auto at = err.find(": cannot open shared object file");
    if (at == std::string::npos) return nullptr;
    if (open_with_dependencies(dir, err.substr(0, at), depth + 1) == nullptr) return nullptr;
  }
  return nullptr;
}

// rosidl_typesupport_c finds a package's introspection library through LD_LIBRARY_PATH (the
// wheels set it from Python; a C++ process must do it itself). Restores the old value on exit.
class WheelLibraryPath {
 public:
  WheelLibraryPath() {
    const char* old = std::getenv("LD_LIBRARY_PATH");
    had_ = old != nullptr;
    saved_ = had_ ? old : "";
    const std::string lib = (ros_venv() / "lib").string();
    ::setenv("LD_LIBRARY_PATH", (lib + (had_ ? ":" + saved_ : "")).c_str(), 1);
  }
  ~WheelLibraryPath() {
    if (had_) {
      ::setenv("LD_LIBRARY_PATH", saved_.c_str(), 1);
    } else {
      ::unsetenv("LD_LIBRARY_PATH");
    }
  }
  WheelLibraryPath(const WheelLibraryPath&) = delete;
  WheelLibraryPath& operator=(const WheelLibraryPath&) = delete;

 private:
  std::string saved_;
  bool had_ = false;
};

// `package/msg/name` from the wheels: the rosidl_typesupport_c dispatcher rcl hands to an rmw,
// the introspection_c type support behind it, and the generated create / destroy functions.
class WheelMessageType {
 public:
  WheelMessageType(const std::string& package, const std::string& name) {
    const auto lib = ros_venv() / "lib";
    const std::string stem = package + "__msg__" + name;
    // The introspection library too: rosidl_typesupport_c's dispatch dlopens it by path.
    void* intro_lib =
        open_with_dependencies(lib, "lib" + package + "__rosidl_typesupport_introspection_c.so");
    void* ts_lib = open_with_dependencies(lib, "lib" + package + "__rosidl_typesupport_c.so");
    void* gen_lib = open_with_dependencies(lib, "lib" + package + "__rosidl_generator_c.so");
    if (intro_lib == nullptr || ts_lib == nullptr || gen_lib == nullptr) return;
    using GetTs = const rosidl_message_type_support_t*();
    auto* get = reinterpret_cast<GetTs*>(::dlsym(
        ts_lib, ("rosidl_typesupport_c__get_message_type_support_handle__" + stem).c_str()));
    auto* get_intro = reinterpret_cast<GetTs*>(::dlsym(
        intro_lib,
        ("rosidl_typesupport_introspection_c__get_message_type_support_handle__" + stem).c_str()));
    create_ = reinterpret_cast<void* (*)()>(::dlsym(gen_lib, (stem + "__create").c_str()));
    destroy_ = reinterpret_cast<void (*)(void*)>(::dlsym(gen_lib, (stem + "__destroy").c_str()));
    if (get != nullptr) ts_ = get();
    if (get_intro != nullptr) intro_ = get_intro();
  }
  bool loaded() const {
    return ts_ != nullptr && intro_ != nullptr && create_ != nullptr && destroy_ != nullptr;
  }
  const rosidl_message_type_support_t* type_support() const { return ts_; }
  // The introspection_c type support (its `data` is the MessageMembers).
  const rosidl_message_type_support_t* introspection() const { return intro_; }
  void* create() const { return create_(); }
  void destroy(void* m) const { destroy_(m); }

 private:
  const rosidl_message_type_support_t* ts_ = nullptr;
  const rosidl_message_type_support_t* intro_ = nullptr;
  void* (*create_)() = nullptr;
  void (*destroy_)(void*) = nullptr;
};

}  // namespace baton::ros2::test
