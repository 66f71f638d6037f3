// CdrToRos1: converts a ROS 2 message as CDR (XCDR1 little-endian, the bytes a baton ROS 2
// publisher puts in its loan and a DDS RMW on the wire) straight into the ROS 1 serialization of
// the counterpart ROS 1 type (little-endian, unaligned), in one walk over the CDR bytes: no
// intermediate Value tree, and a primitive array (an Image's data) is one memcpy.
//
// The pairing of the two types is decided once, at create(), from both type registries' fields
// (the ROS 2 description from the wheels' .msg files, the ROS 1 one from Debian's):
//
//   - fields pair by name, in order; sensor_msgs/CameraInfo's renamed matrices (ROS 1 D K R P,
//     ROS 2 d k r p) are the one known renaming (the same table ros1_bridge ships);
//   - ROS 1 std_msgs/Header's `uint32 seq` has no ROS 2 counterpart: convert() writes the seq it
//     is given into the message's own `header` (as rospy does) and 0 into any deeper Header;
//   - builtin_interfaces Time {int32 sec, uint32 nanosec} ↔ ROS 1 time {uint32 secs, uint32
//     nsecs}, Duration ↔ duration {int32 secs, int32 nsecs}: the two words copied as they are;
//   - 1-byte integers pair with each other (ROS 1 char = uint8, byte = int8; ROS 2 char / byte /
//     octet): the bytes are the same; every other primitive must be the same type;
//   - T[N] pairs with T[N] of the same N; T[] and T[<=N] with T[] (CDR's count checks the bound);
//     string and string<=N with string;
//   - the ROS 2 placeholder `uint8 structure_needs_at_least_one_member` of an empty message is
//     read and dropped (a ROS 1 empty message has no fields).
// Anything else (a field on one side only, a different type, wstring) is refused at create()
// with an error naming the field path.
//
// The CDR input is untrusted (shared memory a publisher may scribble, or DDS): every length is
// checked against the bytes left, its bound and the DecodeLimits before it is used, and the
// output against its room, so bad input is a CdrError naming the field, never a crash.
//
// Thread-safe: an object is immutable after create().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_description.hpp"

namespace baton::bridge {

enum class ConversionError : uint8_t {
  // The types cannot be paired (detail: the field path and why).
  Incompatible,
  // The ROS 2 type has no ROS 1 counterpart in the ROS 1 registry (detail: the names tried).
  NoCounterpart,
};

constexpr std::string_view to_string(ConversionError e) noexcept {
  switch (e) {
    case ConversionError::Incompatible:
      return "Incompatible";
    case ConversionError::NoCounterpart:
      return "NoCounterpart";
  }
  return "?";
}

// "sensor_msgs/msg/Image" -> "sensor_msgs/Image" (the ROS 1 spelling of a same-named type).
std::string ros1_type_name(std::string_view ros2_type);

class CdrToRos1 {
 public:
  static Result<CdrToRos1, Error<ConversionError>> create(const ros2::MessageDescription& ros2_type,
                                                          const ros1::MessageType& ros1_type);

  const ros2::MessageDescription& ros2_type() const noexcept { return *ros2_; }
  const ros1::MessageType& ros1_type() const noexcept { return *ros1_; }

  // Bytes the ROS 1 serialization of CDR sample `cdr` (header included) takes; checks all of it.
  Result<uint64_t, Error<ros2::CdrError>> converted_size(
      std::span<const uint8_t> cdr, const ros2::DecodeLimits& limits = {}) const;
  // Writes the ROS 1 serialization into `out`; returns the bytes written. `seq` becomes the
  // top-level header's seq. Checks the input again (shared memory may have changed since
  // converted_size) and that `out` has room: OversizeMessage if not.
  Result<uint64_t, Error<ros2::CdrError>> convert_into(std::span<const uint8_t> cdr,
                                                       std::span<uint8_t> out, uint32_t seq = 0,
                                                       const ros2::DecodeLimits& limits = {}) const;
  // converted_size + convert_into into a vector of that size.
  Result<std::vector<uint8_t>, Error<ros2::CdrError>> convert(
      std::span<const uint8_t> cdr, uint32_t seq = 0, const ros2::DecodeLimits& limits = {}) const;
  // The same pairing for a message already decoded: `v` (of the ROS 2 type) as a Value of the ROS
  // 1 type, for ros1::serialize (arrays stay views where `v` had views). TypeMismatch when `v` does
  // not have the ROS 2 type's shape.
  Result<ros2::Value, Error<ros2::CdrError>> ros1_value(const ros2::Value& v,
                                                        uint32_t seq = 0) const;
  // The other way: `v` (of the ROS 1 type, as ros1::deserialize gives it) as a Value of the ROS 2
  // type (Header.seq dropped, an empty message's placeholder made), for Publisher::publish,
  // whose encoder checks ROS 2's bounds (ROS 1 has none).
  Result<ros2::Value, Error<ros2::CdrError>> ros2_value(const ros2::Value& v) const;

  struct Plan;  // the compiled pairing (src/bridge/ros1_conversion.cpp)

 private:
  CdrToRos1(const ros2::MessageDescription& a, const ros1::MessageType& b,
            std::shared_ptr<const Plan> plan)
      : ros2_(&a), ros1_(&b), plan_(std::move(plan)) {}
  Result<uint64_t, Error<ros2::CdrError>> walk(std::span<const uint8_t> cdr, uint8_t* out,
                                               uint64_t room, uint32_t seq,
                                               const ros2::DecodeLimits& limits) const;

  const ros2::MessageDescription* ros2_;
  const ros1::MessageType* ros1_;
  std::shared_ptr<const Plan> plan_;
};

}  // namespace baton::bridge
