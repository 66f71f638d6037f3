// Helpers of the rmw_baton_cpp tests that call it through dlopen: endpoints with the wheels'
// type supports, waiting as rcl does, the error string, and where a pointer lives.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rmw/event.h>
#include <rmw/qos_profiles.h>
#include <rmw/rmw.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "rmw_dlopen.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2::test {

// Sets `name` for the scope (the old value comes back after it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) saved_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), saved_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, saved_;
  bool had_ = false;
};

// The QoS of the tests' endpoints: `reliable` or best effort, keep last `depth`, volatile.
inline rmw_qos_profile_t test_qos(bool reliable, size_t depth) {
  rmw_qos_profile_t q = rmw_qos_profile_default;
  q.reliability =
      reliable ? RMW_QOS_POLICY_RELIABILITY_RELIABLE : RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT;
  q.depth = depth;
  return q;
}

inline rmw_publisher_t* create_publisher(const Rmw& rmw, RmwContext& c,
                                         const rosidl_message_type_support_t* ts, const char* topic,
                                         const rmw_qos_profile_t& qos) {
  RMW_FN(rmw, rmw_create_publisher);
  RMW_FN(rmw, rmw_get_default_publisher_options);
  const rmw_publisher_options_t options = rmw_get_default_publisher_options();
  return rmw_create_publisher(c.node, ts, topic, &qos, &options);
}

inline rmw_subscription_t* create_subscription(const Rmw& rmw, RmwContext& c,
                                               const rosidl_message_type_support_t* ts,
                                               const char* topic, const rmw_qos_profile_t& qos) {
  RMW_FN(rmw, rmw_create_subscription);
  RMW_FN(rmw, rmw_get_default_subscription_options);
  const rmw_subscription_options_t options = rmw_get_default_subscription_options();
  return rmw_create_subscription(c.node, ts, topic, &qos, &options);
}

// Destroys what create_publisher / create_subscription made (rcl does so before the context
// goes; rmw_context_fini does not, and the topic's segments would stay in /dev/shm).
inline void destroy(const Rmw& rmw, RmwContext& c, rmw_publisher_t* pub) {
  RMW_FN(rmw, rmw_destroy_publisher);
  if (pub != nullptr) {
    EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
  }
}
inline void destroy(const Rmw& rmw, RmwContext& c, rmw_subscription_t* sub) {
  RMW_FN(rmw, rmw_destroy_subscription);
  if (sub != nullptr) {
    EXPECT_EQ(rmw_destroy_subscription(c.node, sub), RMW_RET_OK);
  }
}

// rmw_wait on one subscription, as rcl does (the array holds the handle's `data`); true if it
// was ready within `timeout_s`.
inline bool wait_for_subscription(const Rmw& rmw, RmwContext& c, const rmw_subscription_t* sub,
                                  uint64_t timeout_s) {
  RMW_FN(rmw, rmw_create_wait_set);
  RMW_FN(rmw, rmw_destroy_wait_set);
  RMW_FN(rmw, rmw_wait);
  rmw_wait_set_t* ws = rmw_create_wait_set(&c.context, 1);
  void* entries[1] = {sub->data};
  rmw_subscriptions_t subs{1, entries};
  rmw_time_t timeout{timeout_s, 0};
  const rmw_ret_t ret = rmw_wait(&subs, nullptr, nullptr, nullptr, nullptr, ws, &timeout);
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
  return ret == RMW_RET_OK && entries[0] != nullptr;
}

// rmw_wait on one event, as rcl does (the array holds the rmw_event_t*): true if it was ready
// within `timeout_s`.
inline bool wait_for_event(const Rmw& rmw, RmwContext& c, rmw_event_t* event, uint64_t timeout_s) {
  RMW_FN(rmw, rmw_create_wait_set);
  RMW_FN(rmw, rmw_destroy_wait_set);
  RMW_FN(rmw, rmw_wait);
  rmw_wait_set_t* ws = rmw_create_wait_set(&c.context, 1);
  void* entries[1] = {event};
  rmw_events_t events{1, entries};
  rmw_time_t timeout{timeout_s, 0};
  const rmw_ret_t ret = rmw_wait(nullptr, nullptr, nullptr, nullptr, &events, ws, &timeout);
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
  EXPECT_EQ(ret, entries[0] != nullptr ? RMW_RET_OK : RMW_RET_TIMEOUT);
  return entries[0] != nullptr;
}

// rmw_take_event into a `Status` (rmw/events_statuses), expecting it taken.
template <typename Status>
Status take_event(const Rmw& rmw, rmw_event_t* event) {
  RMW_FN(rmw, rmw_take_event);
  Status s{};
  bool taken = false;
  EXPECT_EQ(rmw_take_event(event, &s, &taken), RMW_RET_OK);
  EXPECT_TRUE(taken);
  return s;
}

// rcl_interfaces/srv/GetParameters's C type support, as rcl hands it over; null (dlerror says
// why) if the wheels lack it.
inline const rosidl_service_type_support_t* get_parameters_type_support() {
  const auto lib = ros_venv() / "lib";
  open_with_dependencies(lib, "librcl_interfaces__rosidl_typesupport_introspection_c.so");
  void* ts = open_with_dependencies(lib, "librcl_interfaces__rosidl_typesupport_c.so");
  if (ts == nullptr) return nullptr;
  using Get = const rosidl_service_type_support_t*();
  auto* get = reinterpret_cast<Get*>(
      ::dlsym(ts,
              "rosidl_typesupport_c__get_service_type_support_handle__rcl_interfaces__srv__"
              "GetParameters"));
  return get != nullptr ? get() : nullptr;
}

// The rmw error string, then reset (what rcl would print).
inline std::string take_error(const Rmw& rmw) {
  RMW_FN(rmw, rcutils_get_error_string);
  RMW_FN(rmw, rcutils_reset_error);
  std::string s = rcutils_get_error_string().str;
  rcutils_reset_error();
  return s;
}

// Fixture of the tests that call rmw_baton_cpp through dlopen on shared memory only
// (BATON_RMW_WIRE=0: no DDS domain needed), with the wheels' geometry_msgs/Point at hand and a
// topic name of the test's own ("/<suite>/<test>").
class RmwLocalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    if (std::string_view(BATON_RMW_LIB).empty()) GTEST_SKIP() << "rmw_baton_cpp was not built";
    ASSERT_TRUE(rmw_.loaded()) << ::dlerror();
    no_wire_ = std::make_unique<ScopedEnv>("BATON_RMW_WIRE", "0");
    lib_path_ = std::make_unique<WheelLibraryPath>();
    ASSERT_TRUE(point_.loaded()) << ::dlerror();
    topic_ = "/" + baton::testing::current_test_suite() + "/" + baton::testing::current_test_name();
  }
  void TearDown() override {
    lib_path_.reset();
    no_wire_.reset();
  }

  Rmw rmw_;
  std::unique_ptr<ScopedEnv> no_wire_;
  std::unique_ptr<WheelLibraryPath> lib_path_;
  WheelMessageType point_{"geometry_msgs", "Point"};
  std::string topic_;
};

}  // namespace baton::ros2::test
