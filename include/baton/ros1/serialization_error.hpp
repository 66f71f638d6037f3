// Errors of ROS 1 serialization (serialization.hpp). Deserializing untrusted bytes never crashes
// and never allocates more than the input can hold: every length is checked against what is left
// before use.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::ros1 {

enum class SerializationError : uint8_t {
  // The input ends before the message does (a length or a field points past the end). The
  // message is dropped; the sender is broken or not speaking this type.
  Truncated,
  // A string or array length claims more elements than the remaining bytes can hold.
  OversizeLength,
  // The input has bytes left after the message: the sender's type differs from ours.
  TrailingBytes,
  // Nesting deeper than the type allows (only a corrupt description can cause it).
  TooDeep,
  // Serializing: the Value does not have the shape of the type (detail names the field).
  TypeMismatch,
  // Serializing: the output buffer is smaller than serialized_size().
  BufferTooSmall,
};

constexpr std::string_view to_string(SerializationError e) noexcept {
  switch (e) {
    case SerializationError::Truncated:
      return "Truncated";
    case SerializationError::OversizeLength:
      return "OversizeLength";
    case SerializationError::TrailingBytes:
      return "TrailingBytes";
    case SerializationError::TooDeep:
      return "TooDeep";
    case SerializationError::TypeMismatch:
      return "TypeMismatch";
    case SerializationError::BufferTooSmall:
      return "BufferTooSmall";
  }
  return "?";
}

}  // namespace baton::ros1
