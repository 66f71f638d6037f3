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
// Packed primitive arrays are one contiguous buffer, so a 24 MiB image is one memcpy, or none:
// an array may instead be a `view` of bytes that lie elsewhere (in the shared-memory chunk of a
// sample taken with Subscription::take_view(), or in the caller's buffer for encode /
// Publisher::publish). Read arrays with bytes(), which gives whichever holds them.
// A third form says only how many elements an array has (Value::reserved): the two-phase
// Publisher::loan() leaves room for it to be written in place, and decode_locate() gives
// arrays this way with where they lie instead of their contents.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "baton/ros2/type_description.hpp"

namespace baton::ros2 {

struct Value {
  std::vector<uint8_t> raw;
  // A primitive array's packed bytes, not owned (used only while `raw` is empty). Whoever made
  // the view keeps the memory alive: a SampleView holds the shared-memory chunk.
  std::span<const uint8_t> view;
  std::string str;
  std::u16string wstr;
  std::vector<Value> items;
  // A primitive array given by its element count only, contents elsewhere or not yet written
  // (used only while `raw` and `view` are empty): see reserved().
  std::optional<uint64_t> reserved_count;

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
  // A primitive array of `n` elements whose bytes the encoder does not write: it leaves room
  // for them and reports where (ArraySlot, cdr.hpp), so Publisher::loan() hands that room
  // out to be filled in place (by the CPU or a device). encode() to a vector writes zeros there.
  static Value reserved(uint64_t n) {
    Value out;
    out.reserved_count = n;
    return out;
  }
  // The packed bytes of a primitive scalar or array, owned or viewed.
  std::span<const uint8_t> bytes() const {
    return raw.empty() ? view : std::span<const uint8_t>(raw);
  }
  bool is_view() const { return raw.empty() && !view.empty(); }
  // What this value holds, for an error that names it, and whether that is text only (the shape
  // of a string field's value): the encoders refuse a number or a message where a string belongs
  // instead of writing an empty string.
  const char* shape() const {
    if (reserved_count) return "a reserved array";
    if (!items.empty()) return "a message or an array of them";
    if (!bytes().empty()) return "primitive bytes";
    return "text";
  }
  bool is_text() const { return shape() == std::string_view("text"); }
  // A primitive array as elements of T (T of the field's primitive size), in place: nullopt when
  // the bytes are not aligned for T (a view lies where CDR put it; Publisher places samples
  // so that every element type is aligned) or not a whole number of T. Not for bool: a viewed
  // byte in shared memory may change after decode's 0/1 check, and a C++ bool must be 0 or 1.
  template <typename T>
  std::optional<std::span<const T>> elements() const {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
    const auto b = bytes();
    if (b.size() % sizeof(T) != 0 || reinterpret_cast<uintptr_t>(b.data()) % alignof(T) != 0)
      return std::nullopt;
    return std::span<const T>(reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T));
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
  // Equal content: an owned array equals a view of the same bytes.
  bool operator==(const Value& o) const {
    const auto a = bytes(), b = o.bytes();
    return std::equal(a.begin(), a.end(), b.begin(), b.end()) && str == o.str && wstr == o.wstr &&
           items == o.items && reserved_count == o.reserved_count;
  }
};

// A value of type `d` with every field zero / empty and fixed arrays at their length.
Value default_value(const MessageDescription& d);

}  // namespace baton::ros2
