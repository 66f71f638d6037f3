// CDR encoding of the messages rcl hands to the rmw, walked through their introspection
// description (field types, offsets, array kinds): rclpy's C structs
// (rosidl_typesupport_introspection_c) and rclcpp's C++ classes
// (rosidl_typesupport_introspection_cpp), one walker over the two layout policies of
// introspection_layout.hpp. The CDR rules themselves live in src/ros2/cdr_stream.hpp,
// shared with the Value codec, so the bytes are those of cdr.hpp (and of Fast CDR: see
// docs/design/ros2.md, "CDR") whichever language the message is in.
//
// Sequences are resized through the member's resize_function; a C++ std::vector<bool> (no
// contiguous data) is read and written element by element (fetch / assign_function).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/cdr_error.hpp"
#include "introspection_type.hpp"

namespace baton::ros2::rmw {

// Bytes the encoding of `msg` takes, header included. Errors: as encode() in cdr.hpp (a string
// over its bound, a bool byte not 0/1, an unsupported long double field: TypeMismatch).
Result<uint64_t, Error<CdrError>> introspection_encoded_size(const IntrospectionType& type,
                                                             const void* msg);

// Encodes `msg` into `out` (at least introspection_encoded_size() bytes); returns the size used.
Result<uint64_t, Error<CdrError>> introspection_encode(const IntrospectionType& type,
                                                       const void* msg, std::span<uint8_t> out);

// Decodes `bytes` (header included) into `msg`, an initialised message of `type`. Trailing bytes
// are ignored (see decode() in cdr.hpp). Every length is checked against the input, its bound and
// `limits` before anything is allocated. On error `msg` is left valid (every string and sequence
// still owns a consistent buffer; a C++ message is a valid object) but its contents are
// unspecified.
Status<Error<CdrError>> introspection_decode(const IntrospectionType& type,
                                             std::span<const uint8_t> bytes, void* msg,
                                             const DecodeLimits& limits = {});

// introspection_decode(), except that a sequence of non-bool primitives (`uint8[] data` of an
// Image, a PointCloud2, …) whose elements lie aligned for their C type in `bytes` is not copied:
// its {data, size, capacity} point into `bytes`, and the sequence field is appended to
// `borrowed`. `bytes` must outlive the message (rmw_take_loaned_message holds the chunk), and
// before the message is finalised unborrow(borrowed) must empty those sequences, or fini would
// free memory the message does not own. On error too, `borrowed` lists what was pointed.
// C messages only (a std::vector owns its elements): a C++ type is refused (Internal).
Status<Error<CdrError>> introspection_decode_view(const IntrospectionType& type,
                                                  std::span<const uint8_t> bytes, void* msg,
                                                  std::vector<void*>& borrowed,
                                                  const DecodeLimits& limits = {});
// Resets each borrowed sequence to empty {nullptr, 0, 0} (nothing is freed).
void unborrow(const std::vector<void*>& borrowed);

}  // namespace baton::ros2::rmw
