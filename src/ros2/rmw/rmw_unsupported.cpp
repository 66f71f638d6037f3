// rmw_baton_cpp: the entry points it does not implement (yet), each returning RMW_RET_UNSUPPORTED
// with an error naming the function and why, plus QoS compatibility (rmw_dds_common's rules).
//
// Every one must still be defined here: under LD_PRELOAD a missing rmw_* symbol would fall
// through to rmw_fastrtps_cpp with baton's handles (see include/baton/ros2/README.md).
// rclpy copes with UNSUPPORTED for network flow endpoints and dynamic messages.
// Loans live in rmw_publisher.cpp / rmw_subscription.cpp, events in rmw_event.cpp, listener
// callbacks in rmw_callbacks.cpp, content filters in rmw_content_filter.cpp.
#include <rmw/dynamic_message_type_support.h>
#include <rmw/event.h>
#include <rmw/get_network_flow_endpoints.h>
#include <rmw/rmw.h>

#include <rmw_dds_common/qos.hpp>

#include "rmw_impl.hpp"

using baton::ros2::rmw::set_error;

namespace {

rmw_ret_t unsupported(const char* function, const char* why) {
  set_error(function, std::string("not supported by rmw_baton_cpp: ") + why);
  return RMW_RET_UNSUPPORTED;
}

constexpr const char* NO_DYNAMIC = "dynamic message type support is not implemented";

}  // namespace

extern "C" {

// --- network flows, pre-allocation -----------------------------------------

rmw_ret_t rmw_publisher_get_network_flow_endpoints(
    const rmw_publisher_t* publisher, rcutils_allocator_t* allocator,
    rmw_network_flow_endpoint_array_t* network_flow_endpoint_array) {
  (void)publisher, (void)allocator, (void)network_flow_endpoint_array;
  return unsupported(__func__, "shared memory has no network flow");
}

rmw_ret_t rmw_subscription_get_network_flow_endpoints(
    const rmw_subscription_t* subscription, rcutils_allocator_t* allocator,
    rmw_network_flow_endpoint_array_t* network_flow_endpoint_array) {
  (void)subscription, (void)allocator, (void)network_flow_endpoint_array;
  return unsupported(__func__, "shared memory has no network flow");
}

rmw_ret_t rmw_init_publisher_allocation(const rosidl_message_type_support_t* type_support,
                                        const rosidl_runtime_c__Sequence__bound* message_bounds,
                                        rmw_publisher_allocation_t* allocation) {
  (void)type_support, (void)message_bounds, (void)allocation;
  return unsupported(__func__, "pre-allocation is not needed (loans come from baton's pool)");
}

rmw_ret_t rmw_fini_publisher_allocation(rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  return unsupported(__func__, "pre-allocation is not needed");
}

rmw_ret_t rmw_init_subscription_allocation(const rosidl_message_type_support_t* type_support,
                                           const rosidl_runtime_c__Sequence__bound* message_bounds,
                                           rmw_subscription_allocation_t* allocation) {
  (void)type_support, (void)message_bounds, (void)allocation;
  return unsupported(__func__, "pre-allocation is not needed");
}

rmw_ret_t rmw_fini_subscription_allocation(rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  return unsupported(__func__, "pre-allocation is not needed");
}

// --- dynamic messages -----------------------------------------------------------------------

rmw_ret_t rmw_take_dynamic_message(const rmw_subscription_t* subscription,
                                   rosidl_dynamic_typesupport_dynamic_data_t* dynamic_message,
                                   bool* taken, rmw_subscription_allocation_t* allocation) {
  (void)subscription, (void)dynamic_message, (void)allocation;
  if (taken != nullptr) *taken = false;
  return unsupported(__func__, NO_DYNAMIC);
}

rmw_ret_t rmw_take_dynamic_message_with_info(
    const rmw_subscription_t* subscription,
    rosidl_dynamic_typesupport_dynamic_data_t* dynamic_message, bool* taken,
    rmw_message_info_t* message_info, rmw_subscription_allocation_t* allocation) {
  (void)subscription, (void)dynamic_message, (void)message_info, (void)allocation;
  if (taken != nullptr) *taken = false;
  return unsupported(__func__, NO_DYNAMIC);
}

rmw_ret_t rmw_serialization_support_init(
    const char* serialization_lib_name, rcutils_allocator_t* allocator,
    rosidl_dynamic_typesupport_serialization_support_t* serialization_support) {
  (void)serialization_lib_name, (void)allocator, (void)serialization_support;
  return unsupported(__func__, NO_DYNAMIC);
}

// --- QoS compatibility ----------------------------------------------------------------------

rmw_ret_t rmw_qos_profile_check_compatible(const rmw_qos_profile_t publisher_profile,
                                           const rmw_qos_profile_t subscription_profile,
                                           rmw_qos_compatibility_type_t* compatibility,
                                           char* reason, size_t reason_size) {
  // The DDS rules every ROS 2 RMW reports (baton delivers more combinations, e.g. best-effort
  // publisher to reliable subscription, but tools expect the DDS verdict).
  return rmw_dds_common::qos_profile_check_compatible(publisher_profile, subscription_profile,
                                                      compatibility, reason, reason_size);
}

}  // extern "C"
