// The CDR (XCDR1, little-endian) rules in one place, shared by the two codecs that need them:
// the Value codec driven by a MessageDescription (cdr.cpp) and the walker over rosidl
// introspection members inside rmw_baton_cpp (src/ros2/rmw/introspection_cdr.cpp). Not API.
//
// Rules (verified against rclpy on rmw_fastrtps_cpp, see docs/design/ros2.md, "CDR"):
//   - alignment of a primitive = its size, measured from the first byte after the 4-byte header;
//   - string: uint32 length including the NUL, the bytes, the NUL; a length of 0 is read as "";
//   - wstring: uint32 count of UTF-16 code units, then the units (aligned to 2 if any);
//   - T[] / T[<=N]: uint32 count, then the elements; T[N]: the elements only;
//   - an array of primitives is aligned only when it has elements (as Fast CDR does).
// The reader treats its input as hostile: every length is checked against the bytes that remain,
// the declared bound and DecodeLimits before anything is allocated or copied.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "baton/common/result.hpp"
#include "baton/ros2/cdr_error.hpp"
#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {
struct DecodeLimits;
}

namespace baton::ros2::detail {

using CdrErr = Error<CdrError>;
using CdrStatus = Status<CdrErr>;

inline Unexpected<CdrErr> cdr_fail(CdrError code, std::string detail) {
  return unexpected(CdrErr{code, std::move(detail)});
}

// Prefixes the failing field to an error travelling up ("header.stamp.sec: ...").
inline Unexpected<CdrErr> cdr_at_field(CdrErr e, const std::string& name) {
  const bool joined = e.detail.empty() || e.detail[0] == '[' || e.detail[0] == ':';
  e.detail = name + (joined ? "" : ".") + e.detail;
  return unexpected(std::move(e));
}

// ---------------------------------------------------------------------------------------------
// Encoding. With out == nullptr the writer only counts (the sizing pass).

struct CdrWriter {
  uint8_t* out = nullptr;      // first byte after the encapsulation header; nullptr: count only
  uint64_t pos = 0;            // offset from `out` (the CDR alignment origin)
  uint8_t* padding = nullptr;  // optional: 1 marks an alignment byte (same indexing as out)

  void align(uint32_t n) {
    const uint64_t aligned = (pos + n - 1) & ~uint64_t{n - 1};
    if (out != nullptr && aligned > pos) std::memset(out + pos, 0, aligned - pos);
    if (padding != nullptr && aligned > pos) std::memset(padding + pos, 1, aligned - pos);
    pos = aligned;
  }
  void put(const void* p, uint64_t n) {
    if (out != nullptr && n > 0) std::memcpy(out + pos, p, n);
    pos += n;
  }
  void put_u32(uint32_t v) {
    align(4);
    put(&v, 4);
  }
  // One primitive of `size` bytes (1, 2, 4 or 8), aligned to its size.
  void put_primitive(const void* p, uint32_t size) {
    align(size);
    put(p, size);
  }
  // The elements of a primitive array or sequence (the count, if any, is written by the caller).
  void put_primitive_array(const void* p, uint64_t count, uint32_t elem_size) {
    if (count == 0) return;  // Fast CDR aligns an array only when it has elements
    align(elem_size);
    put(p, count * elem_size);
  }
  // A string already checked by check_string().
  void put_string(const char* s, uint64_t len) {
    put_u32(static_cast<uint32_t>(len + 1));
    put(s, len);
    const uint8_t nul = 0;
    put(&nul, 1);
  }
  // A wstring already checked by check_wstring().
  void put_wstring(const void* units, uint64_t count) {
    put_u32(static_cast<uint32_t>(count));
    if (count == 0) return;
    align(2);
    put(units, count * 2);
  }
};

// Encoding checks: what no RMW could put on the wire.
inline CdrStatus check_string(std::string_view s, uint32_t bound) {
  if (bound != 0 && s.size() > bound)
    return cdr_fail(CdrError::OversizeString,
                    ": " + std::to_string(s.size()) + " bytes > bound " + std::to_string(bound));
  if (s.find('\0') != std::string_view::npos)
    return cdr_fail(CdrError::BadString, ": embedded NUL (would be cut by every RMW)");
  if (s.size() >= UINT32_MAX) return cdr_fail(CdrError::OversizeString, ": over 4 GiB");
  return Ok{};
}
inline CdrStatus check_wstring(uint64_t units, uint32_t bound) {
  if (bound != 0 && units > bound)
    return cdr_fail(CdrError::OversizeString,
                    ": " + std::to_string(units) + " code units > bound " + std::to_string(bound));
  if (units >= UINT32_MAX) return cdr_fail(CdrError::OversizeString, ": over 4 Gi units");
  return Ok{};
}
// `n` elements for an array of kind `kind` declared with `array_size` (N of T[N] / T[<=N]).
inline CdrStatus check_array_length(ArrayKind kind, uint32_t array_size, uint64_t n) {
  if (kind == ArrayKind::Fixed && n != array_size)
    return cdr_fail(CdrError::TypeMismatch, ": array needs " + std::to_string(array_size) +
                                                " elements, value has " + std::to_string(n));
  if (kind == ArrayKind::Bounded && n > array_size)
    return cdr_fail(CdrError::OversizeSequence,
                    ": " + std::to_string(n) + " elements > bound " + std::to_string(array_size));
  if (n > UINT32_MAX) return cdr_fail(CdrError::OversizeSequence, ": over 2^32 elements");
  return Ok{};
}
// Every byte of a bool array is 0 or 1 (encode and decode).
inline CdrStatus check_bools(const uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] > 1) return cdr_fail(CdrError::BadBool, ": byte " + std::to_string(p[i]));
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Decoding.

struct CdrReader {
  const uint8_t* in = nullptr;  // first byte after the encapsulation header
  uint64_t size = 0;
  uint64_t pos = 0;
  uint64_t max_string_bytes = 0;
  uint32_t max_sequence_elements = 0;
  uint32_t max_depth = 0;  // nesting of messages

  uint64_t left() const { return size - pos; }
  Unexpected<CdrErr> truncated(uint64_t need) const {
    return cdr_fail(CdrError::Truncated, ": needs " + std::to_string(need) + " bytes at offset " +
                                             std::to_string(pos) + ", " +
                                             std::to_string(size - pos) + " left");
  }
  CdrStatus align(uint32_t n) {
    const uint64_t aligned = (pos + n - 1) & ~uint64_t{n - 1};
    if (aligned > size) return truncated(aligned - pos);
    pos = aligned;
    return Ok{};
  }
  CdrStatus get(void* dst, uint64_t n) {
    if (n > left()) return truncated(n);
    if (n > 0) std::memcpy(dst, in + pos, n);
    pos += n;
    return Ok{};
  }
  CdrStatus get_u32(uint32_t& v) {
    if (auto s = align(4); !s) return s;
    return get(&v, 4);
  }
  // One primitive of `size` bytes; a bool must be 0 or 1.
  CdrStatus get_primitive(void* dst, uint32_t size, bool is_bool) {
    if (auto s = align(size); !s) return s;
    if (auto s = get(dst, size); !s) return s;
    if (is_bool) return check_bools(static_cast<const uint8_t*>(dst), 1);
    return Ok{};
  }
  // A string, returned as a view into the input (valid as long as the input).
  CdrStatus get_string(uint32_t bound, std::string_view& out) {
    uint32_t len = 0;
    if (auto s = get_u32(len); !s) return s;
    out = {};
    if (len == 0) return Ok{};  // Fast CDR writes and accepts 0 for "": be as lenient
    if (len > max_string_bytes)
      return cdr_fail(CdrError::OversizeString, ": length " + std::to_string(len) + " > limit " +
                                                    std::to_string(max_string_bytes));
    if (bound != 0 && len - 1 > bound)
      return cdr_fail(CdrError::OversizeString,
                      ": length " + std::to_string(len - 1) + " > bound " + std::to_string(bound));
    if (len > left()) return truncated(len);
    if (in[pos + len - 1] != 0) return cdr_fail(CdrError::BadString, ": no terminating NUL");
    out = std::string_view(reinterpret_cast<const char*>(in + pos), len - 1);
    pos += len;
    return Ok{};
  }
  // A wstring: `count` code units at `units` (unaligned pointer into the input; memcpy them).
  CdrStatus get_wstring(uint32_t bound, const uint8_t*& units, uint32_t& count) {
    if (auto s = get_u32(count); !s) return s;
    units = nullptr;
    if (uint64_t{count} * 2 > max_string_bytes || (bound != 0 && count > bound))
      return cdr_fail(CdrError::OversizeString, ": wstring length " + std::to_string(count));
    if (count == 0) return Ok{};
    if (auto s = align(2); !s) return s;
    if (uint64_t{count} * 2 > left()) return truncated(uint64_t{count} * 2);
    units = in + pos;
    pos += uint64_t{count} * 2;
    return Ok{};
  }
  // The element count of an array of kind `kind` (read for sequences, N for T[N]), checked
  // against the bound and the limit.
  CdrStatus get_array_length(ArrayKind kind, uint32_t array_size, uint32_t& n) {
    n = array_size;
    if (kind == ArrayKind::Fixed) return Ok{};
    if (auto s = get_u32(n); !s) return s;
    if (kind == ArrayKind::Bounded && n > array_size)
      return cdr_fail(CdrError::OversizeSequence,
                      ": length " + std::to_string(n) + " > bound " + std::to_string(array_size));
    if (n > max_sequence_elements)
      return cdr_fail(CdrError::OversizeSequence, ": length " + std::to_string(n) + " > limit " +
                                                      std::to_string(max_sequence_elements));
    return Ok{};
  }
  // The elements of a primitive array: `n` of `elem_size` bytes at `p` (unaligned pointer into
  // the input). Bools are checked.
  CdrStatus get_primitive_array(uint32_t n, uint32_t elem_size, bool is_bool, const uint8_t*& p) {
    p = nullptr;
    if (n == 0) return Ok{};
    if (auto s = align(elem_size); !s) return s;
    const uint64_t bytes = uint64_t{n} * elem_size;
    if (bytes > left()) return truncated(bytes);
    p = in + pos;
    if (is_bool) {
      if (auto s = check_bools(p, bytes); !s) return s;
    }
    pos += bytes;
    return Ok{};
  }
  // Before allocating `n` non-primitive elements: can the rest of the input hold them, at
  // `min_element_bytes` each (a lower bound of one element's encoding)?
  CdrStatus check_room(uint32_t n, uint64_t min_element_bytes) const {
    const uint64_t need = uint64_t{n} * min_element_bytes;
    if (need > left()) return truncated(need);
    return Ok{};
  }
};

// Checks the 4-byte encapsulation header and the overall size; on success `reader` reads the
// value after it. `type_name` names the type in errors.
CdrStatus open_cdr(std::span<const uint8_t> bytes, const DecodeLimits& limits,
                   const std::string& type_name, CdrReader& reader);

}  // namespace baton::ros2::detail
