// Value: a message instance whose shape is given by a MessageDescription (the CDR codec's
// in-memory form). Which member is used depends on the field it stands for:
//
//   field kind                          member used
//   primitive scalar                    raw: the value's little-endian bytes (primitive_size)
//   array / sequence of primitives      raw: the elements packed, little-endian (no padding)
//   string / wstring scalar             str (UTF-8) / wstr (UTF-16)
//   nested message                      items: one Value per field, in field order
//   array / sequence of the others      items: one Value per element
//
// Packed primitive arrays are one contiguous buffer, so a 24 MiB image is one memcpy; this is the
// seam where a later session places large arrays in a baton pool (zero-copy locally).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {

struct Value {
  std::vector<uint8_t> raw;
  std::string str;
  std::u16string wstr;
  std::vector<Value> items;

  template <typename T>
  static Value of(T v) {
    static_assert(std::is_arithmetic_v<T>);
    Value out;
    out.raw.resize(sizeof(T));
    std::memcpy(out.raw.data(), &v, sizeof(T));
    return out;
  }
  static Value of_string(std::string s) {
    Value out;
    out.str = std::move(s);
    return out;
  }
  template <typename T>
  static Value of_array(std::span<const T> v) {
    Value out;
    out.raw.resize(v.size_bytes());
    if (!v.empty()) std::memcpy(out.raw.data(), v.data(), v.size_bytes());
    return out;
  }
  // The scalar as T; T must have the field's primitive size (0 if raw is too short).
  template <typename T>
  T as() const {
    T v{};
    if (raw.size() >= sizeof(T)) std::memcpy(&v, raw.data(), sizeof(T));
    return v;
  }
  // Member `name` of a nested-message value described by `d` (aborts if there is none).
  Value& at(const MessageDescription& d, std::string_view name) {
    return items.at(static_cast<size_t>(d.field_index(name)));
  }
  const Value& at(const MessageDescription& d, std::string_view name) const {
    return items.at(static_cast<size_t>(d.field_index(name)));
  }
  bool operator==(const Value&) const = default;
};

// A value of type `d` with every field zero / empty and fixed arrays at their length.
Value default_value(const MessageDescription& d);

}  // namespace baton::ros2
