// ROS 1 serialization of a baton::ros2::Value (the dynamic message form baton's ROS layers
// share) for a ROS 1 MessageType's description: little-endian, no alignment, a uint32 length
// before each string and each variable-length array, none before fixed arrays, time / duration
// as two 32-bit words. What roscpp's and rospy's generated code write, driven by the .msg file.
//
// Values use the shapes of dynamic_value.hpp; time and duration fields are nested values of two
// scalars {secs, nsecs} (message_type.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/serialization_error.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros1 {

// Bytes serialize() would write, or TypeMismatch (detail: the field path).
Result<uint64_t, Error<SerializationError>> serialized_size(const ros2::MessageDescription& d,
                                                            const ros2::Value& v);

// Writes `v` into `out`; returns the bytes written. Errors: TypeMismatch, BufferTooSmall. On error
// `out` may be partly written.
Result<uint64_t, Error<SerializationError>> serialize_into(const ros2::MessageDescription& d,
                                                           const ros2::Value& v,
                                                           std::span<uint8_t> out);

Result<std::vector<uint8_t>, Error<SerializationError>> serialize(const ros2::MessageDescription& d,
                                                                  const ros2::Value& v);

enum class DecodeMode : uint8_t {
  Copy,  // every array is copied into the Value
  // Arrays of primitives are not copied: Value::view points into `bytes`, which the caller keeps
  // alive and unchanged while the Value is used (a 4K image's 24 MB stay where they arrived).
  View,
};

// Decodes exactly one message filling all of `bytes`. Errors: Truncated, OversizeLength,
// TrailingBytes, TooDeep (detail: the field path and the offending numbers).
Result<ros2::Value, Error<SerializationError>> deserialize(const ros2::MessageDescription& d,
                                                           std::span<const uint8_t> bytes,
                                                           DecodeMode mode = DecodeMode::Copy);

}  // namespace baton::ros1
