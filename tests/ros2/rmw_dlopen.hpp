// rmw_baton_cpp loaded as rmw_implementation loads an RMW (dlopen), its functions looked up by
// name: tests call it exactly as rcl would, without linking it. Needs the rmw headers
// (BATON_HAVE_RMW_HEADERS) for the function types.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rcutils/strdup.h>
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>

namespace baton::ros2::test {

// The library's entry points (and librmw's helpers, found through its dependencies).
// RTLD_NODELETE: the library stays mapped after dlclose, as an RMW does under rcl (loaded once,
// never unloaded). Unmapping it would also hide its function-local statics from LeakSanitizer,
// which then reports everything they own as leaked.
class Rmw {
 public:
  Rmw() : handle_(::dlopen(BATON_RMW_LIB, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {}
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

namespace baton::ros2::test {

// Sets the enclave rmw_init requires as rcl does by default ("/", allocated with the options'
// allocator: rmw_init_options_fini frees it).
inline void set_default_enclave(const Rmw& rmw, rmw_init_options_t& options) {
  RMW_FN(rmw, rcutils_strdup);
  options.enclave = rcutils_strdup("/", options.allocator);
}

// One rmw context with one node, as rcl_init + rcl_node_init make them.
struct RmwContext {
  const Rmw& rmw;
  rmw_context_t context{};
  rmw_init_options_t options{};
  rmw_node_t* node = nullptr;
  RmwContext(const RmwContext&) = delete;
  RmwContext& operator=(const RmwContext&) = delete;

  // Domain 0 and rcl's defaults, or `domain_id` with discovery `range` (as ROS_DOMAIN_ID and
  // ROS_AUTOMATIC_DISCOVERY_RANGE would make them).
  RmwContext(const Rmw& r, const char* node_name, size_t domain_id = RMW_DEFAULT_DOMAIN_ID,
             rmw_automatic_discovery_range_t range = RMW_AUTOMATIC_DISCOVERY_RANGE_NOT_SET)
      : rmw(r) {
    RMW_FN(rmw, rmw_get_zero_initialized_init_options);
    RMW_FN(rmw, rmw_get_zero_initialized_context);
    RMW_FN(rmw, rmw_init_options_init);
    RMW_FN(rmw, rmw_init);
    RMW_FN(rmw, rmw_create_node);
    RMW_FN(rmw, rcutils_get_default_allocator);
    options = rmw_get_zero_initialized_init_options();
    context = rmw_get_zero_initialized_context();
    EXPECT_EQ(rmw_init_options_init(&options, rcutils_get_default_allocator()), RMW_RET_OK);
    set_default_enclave(rmw, options);
    options.domain_id = domain_id;
    options.discovery_options.automatic_discovery_range = range;
    EXPECT_EQ(rmw_init(&options, &context), RMW_RET_OK);
    node = rmw_create_node(&context, node_name, "/");
    EXPECT_NE(node, nullptr);
  }
  ~RmwContext() {
    RMW_FN(rmw, rmw_destroy_node);
    RMW_FN(rmw, rmw_shutdown);
    RMW_FN(rmw, rmw_context_fini);
    RMW_FN(rmw, rmw_init_options_fini);
    if (node != nullptr) {
      EXPECT_EQ(rmw_destroy_node(node), RMW_RET_OK);
    }
    EXPECT_EQ(rmw_shutdown(&context), RMW_RET_OK);
    EXPECT_EQ(rmw_context_fini(&context), RMW_RET_OK);
    EXPECT_EQ(rmw_init_options_fini(&options), RMW_RET_OK);
  }
};

}  // namespace baton::ros2::test
