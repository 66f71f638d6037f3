// CDR encoding of the C message structs rclpy hands to the rmw, walked through their
// rosidl_typesupport_introspection_c description (field types, offsets, array kinds). The CDR
// rules themselves live in baton/ros2/detail/cdr_stream.hpp, shared with the Value codec, so the
// bytes are those of cdr.hpp (and of Fast CDR: see include/baton/ros2/README.md).
//
// C layouts used: primitives as in C; string = rosidl_runtime_c__String {data, size, capacity};
// wstring = rosidl_runtime_c__U16String; T[N] inline; T[] and T[<=N] = {T* data, size, capacity},
// resized through the member's resize_function; nested messages inline.
#pragma once

#include <rosidl_typesupport_introspection_c/message_introspection.h>

#include <cstdint>
#include <span>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/cdr_error.hpp"

namespace baton::ros2::rmw {

using MessageMembers = rosidl_typesupport_introspection_c__MessageMembers;

// Bytes the encoding of `msg` takes, header included. Errors: as encode() in cdr.hpp (a string
// over its bound, a bool byte not 0/1, an unsupported long double field: TypeMismatch).
Result<uint64_t, Error<CdrError>> introspection_encoded_size(const MessageMembers& type,
                                                             const void* msg);

// Encodes `msg` into `out` (at least introspection_encoded_size() bytes); returns the size used.
Result<uint64_t, Error<CdrError>> introspection_encode(const MessageMembers& type, const void* msg,
                                                       std::span<uint8_t> out);

// Decodes `bytes` (header included) into `msg`, an initialised message of `type`. Trailing bytes
// are ignored (see decode() in cdr.hpp). On error `msg` is left valid (every string and sequence
// still owns a consistent buffer) but its contents are unspecified.
Status<Error<CdrError>> introspection_decode(const MessageMembers& type,
                                             std::span<const uint8_t> bytes, void* msg,
                                             const DecodeLimits& limits = {});

// introspection_decode(), except that a sequence of non-bool primitives (`uint8[] data` of an
// Image, a PointCloud2, …) whose elements lie aligned for their C type in `bytes` is not copied:
// its {data, size, capacity} point into `bytes`, and the sequence field is appended to
// `borrowed`. `bytes` must outlive the message (rmw_take_loaned_message holds the chunk), and
// before the message is finalised unborrow(borrowed) must empty those sequences, or fini would
// free memory the message does not own. On error too, `borrowed` lists what was pointed.
Status<Error<CdrError>> introspection_decode_view(const MessageMembers& type,
                                                  std::span<const uint8_t> bytes, void* msg,
                                                  std::vector<void*>& borrowed,
                                                  const DecodeLimits& limits = {});
// Resets each borrowed sequence to empty {nullptr, 0, 0} (nothing is freed).
void unborrow(const std::vector<void*>& borrowed);

// "std_msgs/msg/String" from the introspection names "std_msgs__msg" + "String" (null: "").
std::string interface_name(const char* namespace_, const char* name);
std::string full_type_name(const MessageMembers& type);

}  // namespace baton::ros2::rmw
