// Errors of CDR encoding / decoding (cdr.hpp). Decoding untrusted bytes never crashes: every
// length is checked against the remaining input and the configured limits before use.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::ros2 {

enum class CdrError : uint8_t {
  // The 4-byte encapsulation header is not 00 01 (CDR, little-endian) + 2 option bytes; big-endian
  // and XCDR2 are not supported. The sample is dropped.
  BadEncapsulation,
  // The input ends before the value does (a length points past the end). The sample is dropped.
  Truncated,
  // A string's length exceeds its declared bound or DecodeLimits::max_string_bytes.
  OversizeString,
  // A sequence's length exceeds its declared bound or DecodeLimits::max_sequence_elements.
  OversizeSequence,
  // The input (or the value being encoded) is larger than DecodeLimits::max_message_bytes.
  OversizeMessage,
  // A string lacks its terminating NUL or has a zero length field.
  BadString,
  // A bool byte is neither 0 nor 1.
  BadBool,
  // Nesting deeper than DecodeLimits::max_depth.
  TooDeep,
  // Encoding: the Value does not have the shape of the type (field count, element size, ...).
  TypeMismatch,
  // Anything else; detail says what.
  Internal,
};

constexpr std::string_view to_string(CdrError e) noexcept {
  switch (e) {
    case CdrError::BadEncapsulation:
      return "BadEncapsulation";
    case CdrError::Truncated:
      return "Truncated";
    case CdrError::OversizeString:
      return "OversizeString";
    case CdrError::OversizeSequence:
      return "OversizeSequence";
    case CdrError::OversizeMessage:
      return "OversizeMessage";
    case CdrError::BadString:
      return "BadString";
    case CdrError::BadBool:
      return "BadBool";
    case CdrError::TooDeep:
      return "TooDeep";
    case CdrError::TypeMismatch:
      return "TypeMismatch";
    case CdrError::Internal:
      return "Internal";
  }
  return "?";
}

}  // namespace baton::ros2
