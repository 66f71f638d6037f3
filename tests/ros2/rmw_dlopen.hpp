// rmw_baton_cpp loaded as rmw_implementation loads an RMW (dlopen), its functions looked up by
// name: tests call it exactly as rcl would, without linking it. Needs the rmw headers
// (BATON_HAVE_RMW_HEADERS) for the function types.
#pragma once

#include <dlfcn.h>

namespace baton::ros2::test {

// The library's entry points (and librmw's helpers, found through its dependencies).
class Rmw {
 public:
  Rmw() : handle_(::dlopen(BATON_RMW_LIB, RTLD_NOW | RTLD_LOCAL)) {}
  ~Rmw() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  Rmw(const Rmw&) = delete;
  Rmw& operator=(const Rmw&) = delete;
  bool loaded() const { return handle_ != nullptr; }
  template <typename F>
  F* get(const char* name) const {
    return reinterpret_cast<F*>(::dlsym(handle_, name));
  }

 private:
  void* handle_;
};

}  // namespace baton::ros2::test

// `auto* name = <the function `name` of rmw>`, typed from its declaration in the rmw headers.
#define RMW_FN(rmw, name) auto* name = (rmw).get<decltype(::name)>(#name)
