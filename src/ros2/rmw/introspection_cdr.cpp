// Walker over rosidl introspection members: see introspection_cdr.hpp.
#include "introspection_cdr.hpp"

#include <rosidl_runtime_c/string.h>
#include <rosidl_runtime_c/string_functions.h>
#include <rosidl_runtime_c/u16string.h>
#include <rosidl_runtime_c/u16string_functions.h>
#include <rosidl_typesupport_introspection_c/field_types.h>

#include <cstring>
#include <string>

#include "baton/ros2/detail/cdr_stream.hpp"
#include "introspection_shape.hpp"

namespace baton::ros2::rmw {
namespace {

using Kind = FieldKind;
using Err = Error<CdrError>;
using St = Status<Err>;
using detail::cdr_at_field;
using detail::cdr_fail;
// The CDR reader plus, for introspection_decode_view, where to list the sequences it pointed
// into the input instead of filling (null: every sequence is filled, as introspection_decode).
struct Reader : detail::CdrReader {
  std::vector<void*>* borrowed = nullptr;
};
using detail::CdrWriter;

// The generic layout of every rosidl C sequence (rosidl_runtime_c__<T>__Sequence).
struct CSequence {
  void* data;
  size_t size;
  size_t capacity;
};

Unexpected<Err> unsupported(const Member& m) {
  return cdr_fail(CdrError::TypeMismatch,
                  ": field type id " + std::to_string(m.type_id_) + " is not supported");
}

// ---------------------------------------------------------------------------------------------
// Encoding.

St encode_struct(const MessageMembers& t, const uint8_t* msg, CdrWriter& w);

St encode_one(const FieldShape& s, const Member& m, const uint8_t* p, CdrWriter& w) {
  switch (s.kind) {
    case Kind::Bool:
      if (auto st = detail::check_bools(p, 1); !st) return st;
      w.put_primitive(p, 1);
      return Ok{};
    case Kind::Primitive:
      w.put_primitive(p, s.size);
      return Ok{};
    case Kind::String: {
      const auto* str = reinterpret_cast<const rosidl_runtime_c__String*>(p);
      const std::string_view v(str->data != nullptr ? str->data : "", str->size);
      if (auto st = detail::check_string(v, static_cast<uint32_t>(m.string_upper_bound_)); !st)
        return st;
      w.put_string(v.data(), v.size());
      return Ok{};
    }
    case Kind::WString: {
      const auto* str = reinterpret_cast<const rosidl_runtime_c__U16String*>(p);
      if (auto st = detail::check_wstring(str->size, static_cast<uint32_t>(m.string_upper_bound_));
          !st)
        return st;
      w.put_wstring(str->data, str->size);
      return Ok{};
    }
    case Kind::Nested:
      return encode_struct(*s.nested, p, w);
    case Kind::Unsupported:
      break;
  }
  return unsupported(m);
}

St encode_member(const Member& m, const uint8_t* field, CdrWriter& w) {
  const FieldShape s = shape_of(m);
  if (s.kind == Kind::Unsupported) return unsupported(m);
  if (s.array == ArrayKind::None) return encode_one(s, m, field, w);
  const uint8_t* base = field;
  uint64_t n = s.array_size;
  if (s.array != ArrayKind::Fixed) {
    const auto* seq = reinterpret_cast<const CSequence*>(field);
    base = static_cast<const uint8_t*>(seq->data);
    n = seq->size;
    if (n != 0 && base == nullptr)
      return cdr_fail(CdrError::TypeMismatch,
                      ": sequence of " + std::to_string(n) + " elements has no data");
  }
  if (auto st = detail::check_array_length(s.array, s.array_size, n); !st) return st;
  if (s.array != ArrayKind::Fixed) w.put_u32(static_cast<uint32_t>(n));
  if (s.kind == Kind::Primitive || s.kind == Kind::Bool) {
    if (s.kind == Kind::Bool) {
      if (auto st = detail::check_bools(base, n); !st) return st;
    }
    w.put_primitive_array(base, n, s.size);
    return Ok{};
  }
  for (uint64_t i = 0; i < n; ++i) {
    auto st = encode_one(s, m, base + i * s.stride, w);
    if (!st) return cdr_at_field(st.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

St encode_struct(const MessageMembers& t, const uint8_t* msg, CdrWriter& w) {
  for (uint32_t i = 0; i < t.member_count_; ++i) {
    const Member& m = t.members_[i];
    auto st = encode_member(m, msg + m.offset_, w);
    if (!st) return cdr_at_field(st.error(), m.name_);
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Decoding.

// A lower bound of one encoded value of the member (alignment ignored): rejects sequence
// lengths the input cannot hold before anything is allocated.
uint64_t min_encoded_size(const MessageMembers& t, int depth);

uint64_t min_encoded_size(const Member& m, int depth) {
  const FieldShape s = shape_of(m);
  uint64_t one = s.size;
  if (s.kind == Kind::String || s.kind == Kind::WString) one = 4;
  if (s.kind == Kind::Nested) one = min_encoded_size(*s.nested, depth + 1);
  if (s.array == ArrayKind::None) return one;
  if (s.array == ArrayKind::Fixed) return one * s.array_size;
  return 4;
}

uint64_t min_encoded_size(const MessageMembers& t, int depth) {
  if (depth > 64) return 1;
  uint64_t n = 0;
  for (uint32_t i = 0; i < t.member_count_; ++i) n += min_encoded_size(t.members_[i], depth);
  return n == 0 ? 1 : n;
}

St decode_struct(const MessageMembers& t, uint8_t* msg, Reader& r, uint32_t depth);

St decode_one(const FieldShape& s, const Member& m, uint8_t* p, Reader& r, uint32_t depth) {
  switch (s.kind) {
    case Kind::Bool:
    case Kind::Primitive:
      return r.get_primitive(p, s.size, s.kind == Kind::Bool);
    case Kind::String: {
      std::string_view v;
      if (auto st = r.get_string(static_cast<uint32_t>(m.string_upper_bound_), v); !st) return st;
      auto* str = reinterpret_cast<rosidl_runtime_c__String*>(p);
      // A length-0 string ("" as Fast CDR may write it) is an empty view with no data pointer,
      // which assignn refuses: give it "".
      if (!rosidl_runtime_c__String__assignn(str, v.data() != nullptr ? v.data() : "", v.size()))
        return cdr_fail(CdrError::Internal, ": out of memory for a string");
      return Ok{};
    }
    case Kind::WString: {
      const uint8_t* units = nullptr;
      uint32_t count = 0;
      if (auto st = r.get_wstring(static_cast<uint32_t>(m.string_upper_bound_), units, count); !st)
        return st;
      auto* str = reinterpret_cast<rosidl_runtime_c__U16String*>(p);
      if (!rosidl_runtime_c__U16String__resize(str, count))
        return cdr_fail(CdrError::Internal, ": out of memory for a wstring");
      if (count != 0) std::memcpy(str->data, units, uint64_t{count} * 2);
      return Ok{};
    }
    case Kind::Nested:
      return decode_struct(*s.nested, p, r, depth + 1);
    case Kind::Unsupported:
      break;
  }
  return unsupported(m);
}

St decode_member(const Member& m, uint8_t* field, Reader& r, uint32_t depth) {
  const FieldShape s = shape_of(m);
  if (s.kind == Kind::Unsupported) return unsupported(m);
  if (s.array == ArrayKind::None) return decode_one(s, m, field, r, depth);
  uint32_t n = 0;
  if (auto st = r.get_array_length(s.array, s.array_size, n); !st) return st;
  const bool primitive = s.kind == Kind::Primitive || s.kind == Kind::Bool;
  const uint8_t* src = nullptr;
  if (primitive) {
    // Validate (and find) the elements before touching the message.
    if (auto st = r.get_primitive_array(n, s.size, s.kind == Kind::Bool, src); !st) return st;
  } else {
    const uint64_t element = s.kind == Kind::Nested ? min_encoded_size(*s.nested, 0) : 4;
    if (auto st = r.check_room(n, element); !st) return st;
  }
  uint8_t* base = field;
  // A non-bool primitive sequence whose elements sit aligned for their C type in the input is
  // pointed into it (read-only by contract of a loaned message). Bools are copied: the input is
  // shared memory, which may change after the 0/1 check, and a C bool must be 0 or 1.
  if (r.borrowed != nullptr && s.array != ArrayKind::Fixed && s.kind == Kind::Primitive && n != 0 &&
      reinterpret_cast<uintptr_t>(src) % s.size == 0) {
    if (m.resize_function == nullptr || !m.resize_function(field, 0))
      return cdr_fail(CdrError::Internal, ": sequence member has no resize function");
    *reinterpret_cast<CSequence*>(field) = CSequence{const_cast<uint8_t*>(src), n, n};
    r.borrowed->push_back(field);
    return Ok{};
  }
  if (s.array != ArrayKind::Fixed) {
    if (m.resize_function == nullptr)
      return cdr_fail(CdrError::Internal, ": sequence member has no resize function");
    if (!m.resize_function(field, n))
      return cdr_fail(CdrError::Internal, ": out of memory for " + std::to_string(n) + " elements");
    base = static_cast<uint8_t*>(reinterpret_cast<CSequence*>(field)->data);
  }
  if (primitive) {
    if (n != 0) std::memcpy(base, src, uint64_t{n} * s.size);
    return Ok{};
  }
  for (uint32_t i = 0; i < n; ++i) {
    auto st = decode_one(s, m, base + uint64_t{i} * s.stride, r, depth);
    if (!st) return cdr_at_field(st.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

St decode_struct(const MessageMembers& t, uint8_t* msg, Reader& r, uint32_t depth) {
  if (depth > r.max_depth)
    return cdr_fail(CdrError::TooDeep, ": nesting over " + std::to_string(r.max_depth));
  for (uint32_t i = 0; i < t.member_count_; ++i) {
    const Member& m = t.members_[i];
    auto st = decode_member(m, msg + m.offset_, r, depth);
    if (!st) return cdr_at_field(st.error(), m.name_);
  }
  return Ok{};
}

}  // namespace

std::string interface_name(const char* namespace_, const char* name) {
  std::string ns = namespace_ != nullptr ? namespace_ : "";
  for (size_t at = ns.find("__"); at != std::string::npos; at = ns.find("__", at + 1))
    ns.replace(at, 2, "/");
  return ns + "/" + (name != nullptr ? name : "");
}

std::string full_type_name(const MessageMembers& type) {
  return interface_name(type.message_namespace_, type.message_name_);
}

Result<uint64_t, Err> introspection_encoded_size(const MessageMembers& type, const void* msg) {
  CdrWriter w;
  auto st = encode_struct(type, static_cast<const uint8_t*>(msg), w);
  if (!st) return cdr_at_field(st.error(), full_type_name(type));
  return w.pos + 4;
}

Result<uint64_t, Err> introspection_encode(const MessageMembers& type, const void* msg,
                                           std::span<uint8_t> out) {
  auto size = introspection_encoded_size(type, msg);
  if (!size) return unexpected(size.error());
  if (*size > out.size())
    return cdr_fail(CdrError::OversizeMessage, full_type_name(type) + ": needs " +
                                                   std::to_string(*size) + " bytes, buffer has " +
                                                   std::to_string(out.size()));
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  CdrWriter w;
  w.out = out.data() + 4;
  auto st = encode_struct(type, static_cast<const uint8_t*>(msg), w);
  if (!st) return cdr_at_field(st.error(), full_type_name(type));
  return *size;
}

namespace {

Status<Err> decode_with(const MessageMembers& type, std::span<const uint8_t> bytes, void* msg,
                        const DecodeLimits& limits, std::vector<void*>* borrowed) {
  const std::string name = full_type_name(type);
  Reader r;
  if (auto st = detail::open_cdr(bytes, limits, name, r); !st) return st;
  r.borrowed = borrowed;
  auto st = decode_struct(type, static_cast<uint8_t*>(msg), r, 0);
  if (!st) return cdr_at_field(st.error(), name);
  return Ok{};
}

}  // namespace

Status<Err> introspection_decode(const MessageMembers& type, std::span<const uint8_t> bytes,
                                 void* msg, const DecodeLimits& limits) {
  return decode_with(type, bytes, msg, limits, nullptr);
}

Status<Err> introspection_decode_view(const MessageMembers& type, std::span<const uint8_t> bytes,
                                      void* msg, std::vector<void*>& borrowed,
                                      const DecodeLimits& limits) {
  return decode_with(type, bytes, msg, limits, &borrowed);
}

void unborrow(const std::vector<void*>& borrowed) {
  for (void* field : borrowed) *static_cast<CSequence*>(field) = CSequence{nullptr, 0, 0};
}

}  // namespace baton::ros2::rmw
