// CDR (OMG XCDR1, "plain CDR") little-endian encoding of ROS 2 messages, byte-identical to what
// rclpy / rmw_fastrtps_cpp / rmw_cyclonedds_cpp put on the wire (serialize_message):
//
//   - a 4-byte encapsulation header 00 01 00 00 (CDR_LE, options 0);
//   - every primitive aligned to its own size (8-byte types to 8), measured from the first byte
//     after the header;
//   - string: uint32 length including the NUL, the bytes, NUL;
//     wstring: uint32 length in code units (no terminator), then uint16 code units
//     (unverified against rclpy: no wheel-shipped type has a wstring; see README);
//   - T[] and T[<=N]: uint32 element count then the elements; T[N]: the N elements only;
//   - nested messages: their fields in order, no header and no padding of their own.
//
// decode() treats input as hostile: each length is checked against the bytes that remain, the
// declared bounds and DecodeLimits before anything is allocated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/cdr_error.hpp"
#include "baton/ros2/dynamic_value.hpp"
#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {

inline constexpr uint8_t CDR_LE_HEADER[4] = {0x00, 0x01, 0x00, 0x00};
// Where a baton ROS 2 publisher puts a CDR sample in its chunk (ChunkControl::payload_offset).
// Chunks are 64-aligned, so at 4 the CDR body (the alignment origin, after the 4-byte header) is
// 8-aligned in memory: every primitive array lies aligned for its element type for take_view()
// readers, and a fixed-size type's struct sits where rmw_baton_cpp loans it in place.
inline constexpr uint64_t CDR_SAMPLE_OFFSET = 4;

struct DecodeLimits {
  uint64_t max_message_bytes = 1ull << 30;    // whole input, header included
  uint32_t max_string_bytes = 64u << 20;      // one string, NUL included
  uint32_t max_sequence_elements = 1u << 30;  // one sequence
  uint32_t max_depth = 64;                    // nesting of messages
};

// Where one primitive array's elements lie in an encoded sample: reported by encode_into() for
// each Value::reserved array, and by decode_locate() for every primitive array.
struct ArraySlot {
  std::string path;     // field path from the message: "data", "fields[2].name", "a.b"
  uint64_t offset = 0;  // first element, in bytes from the sample's start (header included)
  uint64_t bytes = 0;   // elements * element_size
  uint32_t element_size = 0;
};

// The slot named `path` in `slots`, or nullptr.
const ArraySlot* find_slot(const std::vector<ArraySlot>& slots, std::string_view path);

// Encodes `v` (of type `d`) with the encapsulation header. Errors: TypeMismatch (detail names the
// field path), OversizeString / OversizeSequence when a bounded field is over its bound.
// Alignment bytes are written as zeros; with `padding_mask`, it is resized to the output and each
// alignment byte marked 1 (Fast CDR leaves them uninitialised, so comparisons with rclpy's bytes
// must skip them).
Result<std::vector<uint8_t>, Error<CdrError>> encode(const MessageDescription& d, const Value& v,
                                                     std::vector<uint8_t>* padding_mask = nullptr);

// Encodes into `out` (at least encoded_size() bytes, e.g. a baton loan); returns the size used.
// Errors as encode(); `out` too small is OversizeMessage. The bytes of Value::reserved arrays
// are left as they are in `out` (the caller fills them); with `reserved`, it is set to their
// slots in encoding order (each element-aligned from the byte after the header, as CDR wants).
Result<uint64_t, Error<CdrError>> encode_into(const MessageDescription& d, const Value& v,
                                              std::span<uint8_t> out,
                                              std::vector<ArraySlot>* reserved = nullptr);

// Size encode() would produce, or an error as encode().
Result<uint64_t, Error<CdrError>> encoded_size(const MessageDescription& d, const Value& v);

// Decodes one sample (header included). Trailing bytes after the value are ignored: rclpy's
// serialize_message (rmw_fastrtps_cpp) returns the *estimated* size, up to a few uninitialised
// bytes longer than the value. Never reads out of bounds; never allocates more than the input can
// hold.
Result<Value, Error<CdrError>> decode(const MessageDescription& d, std::span<const uint8_t> bytes,
                                      const DecodeLimits& limits = {});

// decode(), except that every non-empty array of primitives is not copied: its Value has `raw`
// empty and `view` pointing at the elements inside `bytes` (checked to lie within them). The
// caller keeps `bytes` alive and unchanged as long as the Value is used (SampleView does).
// Elements are where CDR put them: aligned to their size from the byte after the header, so an
// array of 8-byte elements is 8-aligned in memory only if `bytes` starts at 4 mod 8.
Result<Value, Error<CdrError>> decode_view(const MessageDescription& d,
                                           std::span<const uint8_t> bytes,
                                           const DecodeLimits& limits = {});

// decode(), except that primitive arrays are neither copied nor viewed nor read: each is a
// Value::reserved of its element count, and `arrays` gets its slot (bounds-checked against
// `bytes` like every length). For samples whose arrays live elsewhere (in a memory domain: the
// host bytes of the arrays may be stale or absent), so a bool array's bytes are not checked
// either: whoever reads them from the domain must treat a byte > 1 as true.
Result<Value, Error<CdrError>> decode_locate(const MessageDescription& d,
                                             std::span<const uint8_t> bytes,
                                             std::vector<ArraySlot>& arrays,
                                             const DecodeLimits& limits = {});

}  // namespace baton::ros2
