// The rmw contract of init options, contexts and nodes as rmw/init_options.h, rmw/init.h and
// rmw/rmw.h document it (their \remark and \return lines), and that a process whose contexts are
// gone leaves no segment in /dev/shm. rmw_baton_cpp is called through dlopen, as rcl calls it.
#include <dirent.h>
#include <gtest/gtest.h>
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "baton/shm/naming.hpp"
#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;

class RmwBatonContractInit : public test::RmwLocalTest {
 protected:
  // Options made by rmw_init_options_init with the enclave rcl sets.
  rmw_init_options_t initialized_options() {
    RMW_FN(rmw_, rmw_init_options_init);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rmw_init_options_t options{};
    EXPECT_EQ(rmw_init_options_init(&options, rcutils_get_default_allocator()), RMW_RET_OK);
    test::set_default_enclave(rmw_, options);
    return options;
  }
  void fini(rmw_init_options_t& options) {
    RMW_FN(rmw_, rmw_init_options_fini);
    EXPECT_EQ(rmw_init_options_fini(&options), RMW_RET_OK);
  }
};

TEST_F(RmwBatonContractInit, init_options_init_with_a_null_options_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init_options_init);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  EXPECT_EQ(rmw_init_options_init(nullptr, rcutils_get_default_allocator()),
            RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
}

TEST_F(RmwBatonContractInit, init_options_init_with_an_invalid_allocator_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init_options_init);
  rmw_init_options_t options{};
  EXPECT_EQ(rmw_init_options_init(&options, rcutils_allocator_t{}), RMW_RET_INVALID_ARGUMENT);
  EXPECT_EQ(options.implementation_identifier, nullptr);  // left zero-initialized
  EXPECT_NE(test::take_error(rmw_).find("allocator"), std::string::npos);
}

TEST_F(RmwBatonContractInit, init_options_init_on_initialized_options_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init_options_init);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  rmw_init_options_t options = initialized_options();
  EXPECT_EQ(rmw_init_options_init(&options, rcutils_get_default_allocator()),
            RMW_RET_INVALID_ARGUMENT);
  EXPECT_NE(test::take_error(rmw_).find("already initialized"), std::string::npos);
  fini(options);
}

TEST_F(RmwBatonContractInit, init_options_copy_into_initialized_options_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init_options_copy);
  rmw_init_options_t src = initialized_options();
  rmw_init_options_t dst = initialized_options();
  EXPECT_EQ(rmw_init_options_copy(&src, &dst), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  fini(src);
  fini(dst);
}

TEST_F(RmwBatonContractInit, init_options_copy_copies_the_enclave_and_the_domain) {
  RMW_FN(rmw_, rmw_init_options_copy);
  rmw_init_options_t src = initialized_options();
  src.domain_id = 42;
  rmw_init_options_t dst{};
  ASSERT_EQ(rmw_init_options_copy(&src, &dst), RMW_RET_OK);
  EXPECT_EQ(dst.domain_id, 42u);
  ASSERT_NE(dst.enclave, nullptr);
  EXPECT_NE(dst.enclave, src.enclave);  // a copy: each is finalized on its own
  EXPECT_STREQ(dst.enclave, "/");
  fini(src);
  fini(dst);
}

// init.h / init_options.h: zero-initialized options or a zero-initialized context (never
// initialized) are RMW_RET_INVALID_ARGUMENT, not another implementation's; outputs stay zero.
TEST_F(RmwBatonContractInit, zero_initialized_options_or_context_return_invalid_argument) {
  RMW_FN(rmw_, rmw_init_options_copy);
  RMW_FN(rmw_, rmw_init_options_fini);
  RMW_FN(rmw_, rmw_init);
  RMW_FN(rmw_, rmw_shutdown);
  RMW_FN(rmw_, rmw_context_fini);
  rmw_init_options_t options{}, copy{};
  rmw_context_t context{};
  const std::pair<const char*, rmw_ret_t> calls[] = {
      {"rmw_init_options_copy", rmw_init_options_copy(&options, &copy)},
      {"rmw_init_options_fini", rmw_init_options_fini(&options)},
      {"rmw_init", rmw_init(&options, &context)},
      {"rmw_shutdown", rmw_shutdown(&context)},
      {"rmw_context_fini", rmw_context_fini(&context)},
  };
  for (const auto& [function, ret] : calls) EXPECT_EQ(ret, RMW_RET_INVALID_ARGUMENT) << function;
  EXPECT_EQ(copy.implementation_identifier, nullptr);
  EXPECT_EQ(context.implementation_identifier, nullptr);
  test::take_error(rmw_);
}

TEST_F(RmwBatonContractInit, init_without_an_enclave_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init);
  RMW_FN(rmw_, rmw_init_options_init);
  RMW_FN(rmw_, rmw_init_options_fini);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  rmw_init_options_t options{};
  ASSERT_EQ(rmw_init_options_init(&options, rcutils_get_default_allocator()), RMW_RET_OK);
  rmw_context_t context{};
  EXPECT_EQ(rmw_init(&options, &context), RMW_RET_INVALID_ARGUMENT);
  EXPECT_EQ(context.implementation_identifier, nullptr);
  EXPECT_NE(test::take_error(rmw_).find("enclave"), std::string::npos);
  EXPECT_EQ(rmw_init_options_fini(&options), RMW_RET_OK);
}

TEST_F(RmwBatonContractInit, init_with_an_initialized_context_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_init);
  RmwContext c(rmw_, "initialized");
  rmw_init_options_t options = initialized_options();
  EXPECT_EQ(rmw_init(&options, &c.context), RMW_RET_INVALID_ARGUMENT);
  EXPECT_NE(test::take_error(rmw_).find("already initialized"), std::string::npos);
  fini(options);
}

TEST_F(RmwBatonContractInit, shutdown_twice_is_a_no_op_that_returns_ok) {
  RMW_FN(rmw_, rmw_shutdown);
  RmwContext c(rmw_, "twice");
  EXPECT_EQ(rmw_shutdown(&c.context), RMW_RET_OK);
  // (the fixture's destructor shuts it down a second time, and must get OK too)
}

TEST_F(RmwBatonContractInit, context_fini_before_shutdown_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_context_fini);
  RmwContext c(rmw_, "not_shut_down");
  EXPECT_EQ(rmw_context_fini(&c.context), RMW_RET_INVALID_ARGUMENT);
  EXPECT_NE(test::take_error(rmw_).find("shut down"), std::string::npos);
  EXPECT_EQ(c.context.implementation_identifier, std::string_view("rmw_baton_cpp"));  // unchanged
}

TEST_F(RmwBatonContractInit,
       create_node_with_an_invalid_name_or_namespace_returns_null_and_says_why) {
  RMW_FN(rmw_, rmw_create_node);
  RmwContext c(rmw_, "valid");
  struct Bad {
    const char* name;
    const char* namespace_;
    std::string error;
  };
  std::vector<Bad> bad;
  for (const char* name : {"", "1starts_with_a_digit", "has space", "has/slash"})
    bad.push_back({name, "/", "node name '" + std::string(name) + "' is invalid"});
  for (const char* ns : {"", "relative", "/trailing/", "/a//b", "/1digit"})
    bad.push_back({"n", ns, "node namespace '" + std::string(ns) + "' is invalid"});
  for (const Bad& b : bad) {
    EXPECT_EQ(rmw_create_node(&c.context, b.name, b.namespace_), nullptr) << b.error;
    EXPECT_NE(test::take_error(rmw_).find(b.error), std::string::npos) << b.error;
  }
}

TEST_F(RmwBatonContractInit, create_node_with_a_null_name_or_namespace_returns_null) {
  RMW_FN(rmw_, rmw_create_node);
  RmwContext c(rmw_, "valid");
  EXPECT_EQ(rmw_create_node(&c.context, nullptr, "/"), nullptr);
  EXPECT_NE(test::take_error(rmw_).find("node name is null"), std::string::npos);
  EXPECT_EQ(rmw_create_node(&c.context, "n", nullptr), nullptr);
  EXPECT_NE(test::take_error(rmw_).find("node namespace is null"), std::string::npos);
}

// The functions that return a handle (null on error) when given another implementation's
// context or node: null, and the error names the function and the foreign identifier.
TEST_F(RmwBatonContractInit, handle_makers_given_another_implementations_handle_return_null) {
  RMW_FN(rmw_, rmw_create_node);
  RMW_FN(rmw_, rmw_create_guard_condition);
  RMW_FN(rmw_, rmw_create_wait_set);
  RMW_FN(rmw_, rmw_node_get_graph_guard_condition);
  RmwContext c(rmw_, "valid");
  rmw_context_t context = c.context;
  context.implementation_identifier = "rmw_not_baton";
  rmw_node_t node = *c.node;
  node.implementation_identifier = "rmw_not_baton";
  auto expect_refused = [&](const void* made, const char* function) {
    EXPECT_EQ(made, nullptr) << function;
    const std::string error = test::take_error(rmw_);
    EXPECT_NE(error.find(function), std::string::npos) << error;
    EXPECT_NE(error.find("another rmw implementation (rmw_not_baton)"), std::string::npos) << error;
  };
  expect_refused(rmw_create_node(&context, "n", "/"), "rmw_create_node");
  expect_refused(rmw_create_guard_condition(&context), "rmw_create_guard_condition");
  expect_refused(rmw_create_wait_set(&context, 1), "rmw_create_wait_set");
  expect_refused(rmw_node_get_graph_guard_condition(&node), "rmw_node_get_graph_guard_condition");
  RMW_FN(rmw_, rmw_create_publisher);
  RMW_FN(rmw_, rmw_get_default_publisher_options);
  const rmw_publisher_options_t options = rmw_get_default_publisher_options();
  expect_refused(rmw_create_publisher(&node, point_.type_support(), topic_.c_str(),
                                      &rmw_qos_profile_default, &options),
                 "rmw_create_publisher");
}

// This process's segments in /dev/shm, sorted: its namespace (test_main.cpp) and the per-domain
// ones derived from it (src/ros2/rmw/domain.hpp). Tests compare against what existed when they
// started, since tests run before them in the same process (the whole binary at once) may have
// left segments of their own, e.g. those of a child they killed.
std::vector<std::string> own_segments() {
  const char* ns = std::getenv("BATON_NAMESPACE");
  const std::string prefix = "baton." + std::to_string(::getuid()) + "." +
                             shm::escape_name(ns != nullptr ? ns : "default");
  std::vector<std::string> out;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (dirent* e = ::readdir(d)) {
      const std::string_view name(e->d_name);
      if (name.starts_with(prefix + ".") || name.starts_with(prefix + "-")) out.emplace_back(name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(RmwBatonContractInit, no_segment_is_left_once_every_context_is_finalized) {
  const std::vector<std::string> before = own_segments();
  {
    RMW_FN(rmw_, rmw_publish);
    RmwContext a(rmw_, "a");
    RmwContext b(rmw_, "b");
    const rmw_qos_profile_t qos = test::test_qos(true, 4);
    rmw_publisher_t* pub =
        test::create_publisher(rmw_, a, point_.type_support(), topic_.c_str(), qos);
    rmw_subscription_t* sub =
        test::create_subscription(rmw_, b, point_.type_support(), topic_.c_str(), qos);
    ASSERT_NE(pub, nullptr);
    ASSERT_NE(sub, nullptr);
    void* msg = point_.create();
    EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK);
    point_.destroy(msg);
    EXPECT_GT(own_segments().size(), before.size());  // the topic, the graph registry
    test::destroy(rmw_, b, sub);
    test::destroy(rmw_, a, pub);
  }
  EXPECT_EQ(own_segments(), before);
}

// What is allocated while one lives is not reported by LeakSanitizer (a no-op without it).
struct LeaksIgnored {
#if defined(__SANITIZE_ADDRESS__)
  LeaksIgnored() { __lsan_disable(); }
  ~LeaksIgnored() { __lsan_enable(); }
#endif
};

// rmw.h leaves destroying a node whose endpoints are alive to the caller, and client libraries
// do it (rclpy never destroys a node's ~/get_type_description service; ROS 2's own rmw tests
// leave a client behind): the shared memory of such endpoints still goes with the context.
TEST_F(RmwBatonContractInit, services_and_clients_outliving_their_node_leave_no_segment) {
  const std::vector<std::string> before = own_segments();
  const rosidl_service_type_support_t* ts = test::get_parameters_type_support();
  ASSERT_NE(ts, nullptr) << ::dlerror();
  {
    RMW_FN(rmw_, rmw_create_service);
    RMW_FN(rmw_, rmw_create_client);
    // The two handles are leaked on purpose (the caller never destroys them): not a finding.
    const LeaksIgnored leaks_ignored;
    RmwContext a(rmw_, "leaky");
    const std::string name = topic_ + "_service";
    EXPECT_NE(rmw_create_service(a.node, ts, name.c_str(), &rmw_qos_profile_services_default),
              nullptr);
    EXPECT_NE(rmw_create_client(a.node, ts, name.c_str(), &rmw_qos_profile_services_default),
              nullptr);
    EXPECT_GT(own_segments().size(), before.size());  // request/response topics, graph registry
  }  // node destroyed with both alive, then the context
  EXPECT_EQ(own_segments(), before);
}

}  // namespace
}  // namespace baton::ros2
