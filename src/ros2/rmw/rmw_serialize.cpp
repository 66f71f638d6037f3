// rmw_baton_cpp: rmw_serialize / rmw_deserialize, the CDR that also travels through baton's
// shared memory (introspection_cdr.hpp).
#include <rcutils/types/uint8_array.h>
#include <rmw/rmw.h>

#include "introspection_cdr.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

extern "C" {

rmw_ret_t rmw_serialize(const void* ros_message, const rosidl_message_type_support_t* type_support,
                        rmw_serialized_message_t* serialized_message) {
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  auto type = resolve_message_type(type_support);
  if (!type) {
    set_error(__func__, type.error());
    return RMW_RET_ERROR;
  }
  auto size = introspection_encoded_size(type->members, ros_message);
  if (!size) {
    set_error(__func__, size.error().detail);
    return RMW_RET_ERROR;
  }
  if (serialized_message->buffer_capacity < *size &&
      rcutils_uint8_array_resize(serialized_message, *size) != RCUTILS_RET_OK) {
    set_error(__func__, "out of memory for " + std::to_string(*size) + " bytes");
    return RMW_RET_BAD_ALLOC;
  }
  auto used = introspection_encode(type->members, ros_message,
                                   std::span<uint8_t>(serialized_message->buffer, *size));
  if (!used) {
    set_error(__func__, used.error().detail);
    return RMW_RET_ERROR;
  }
  serialized_message->buffer_length = *used;
  return RMW_RET_OK;
}

rmw_ret_t rmw_deserialize(const rmw_serialized_message_t* serialized_message,
                          const rosidl_message_type_support_t* type_support, void* ros_message) {
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  auto type = resolve_message_type(type_support);
  if (!type) {
    set_error(__func__, type.error());
    return RMW_RET_ERROR;
  }
  if (serialized_message->buffer == nullptr && serialized_message->buffer_length != 0) {
    set_error(__func__, "serialized message has a length but no buffer");
    return RMW_RET_INVALID_ARGUMENT;
  }
  auto st = introspection_decode(
      type->members,
      std::span<const uint8_t>(serialized_message->buffer, serialized_message->buffer_length),
      ros_message);
  if (!st) {
    set_error(__func__, st.error().detail);
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_ret_t rmw_get_serialized_message_size(const rosidl_message_type_support_t* type_support,
                                          const rosidl_runtime_c__Sequence__bound* message_bounds,
                                          size_t* size) {
  (void)type_support;
  (void)message_bounds;
  (void)size;
  set_error(__func__, "not supported by rmw_baton_cpp (nor by rmw_fastrtps_cpp)");
  return RMW_RET_UNSUPPORTED;
}

}  // extern "C"
