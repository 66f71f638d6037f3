// Walker over rosidl introspection members: see introspection_cdr.hpp. Written once over the
// layout policies of introspection_layout.hpp (L = CLayout or CppLayout).
#include "introspection_cdr.hpp"

#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "../cdr_stream.hpp"
#include "../huge_page_hint.hpp"
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

template <typename L>
Unexpected<Err> unsupported(const typename L::Member& m) {
  return cdr_fail(CdrError::TypeMismatch,
                  ": field type id " + std::to_string(m.type_id_) + " is not supported");
}

// ---------------------------------------------------------------------------------------------
// Encoding.

template <typename L>
St encode_struct(const typename L::Members& t, const uint8_t* msg, CdrWriter& w);

template <typename L>
St encode_one(const FieldShape<L>& s, const typename L::Member& m, const uint8_t* p, CdrWriter& w) {
  switch (s.kind) {
    case Kind::Bool:
      if (auto st = detail::check_bools(p, 1); !st) return st;
      w.put_primitive(p, 1);
      return Ok{};
    case Kind::Primitive:
      w.put_primitive(p, s.size);
      return Ok{};
    case Kind::String: {
      const std::string_view v = L::string(p);
      if (auto st = detail::check_string(v, static_cast<uint32_t>(m.string_upper_bound_)); !st)
        return st;
      w.put_string(v.data(), v.size());
      return Ok{};
    }
    case Kind::WString: {
      const SequenceElements units = L::wstring(p);
      if (auto st = detail::check_wstring(units.size, static_cast<uint32_t>(m.string_upper_bound_));
          !st)
        return st;
      w.put_wstring(units.data, units.size);
      return Ok{};
    }
    case Kind::Nested:
      return encode_struct<L>(*s.nested, p, w);
    case Kind::Unsupported:
      break;
  }
  return unsupported<L>(m);
}

// A bool sequence without contiguous data (C++ std::vector<bool>): one byte per element, read
// through the member's fetch_function (0 or 1 by construction).
template <typename L>
St encode_fetched_bools(const typename L::Member& m, const uint8_t* field, uint64_t n,
                        CdrWriter& w) {
  if (m.fetch_function == nullptr)
    return cdr_fail(CdrError::TypeMismatch, ": bool sequence has neither data nor fetch function");
  for (uint64_t i = 0; i < n; ++i) {
    bool b = false;
    m.fetch_function(field, i, &b);
    const uint8_t v = b ? 1 : 0;
    w.put_primitive(&v, 1);
  }
  return Ok{};
}

template <typename L>
St encode_member(const typename L::Member& m, const uint8_t* field, CdrWriter& w) {
  const FieldShape<L> s = shape_of<L>(m);
  if (s.kind == Kind::Unsupported) return unsupported<L>(m);
  if (s.array == ArrayKind::None) return encode_one<L>(s, m, field, w);
  const uint8_t* base = field;
  uint64_t n = s.array_size;
  if (s.array != ArrayKind::Fixed) {
    const SequenceElements seq = L::sequence(m, field);
    base = seq.data;
    n = seq.size;
    if (n != 0 && base == nullptr && s.kind != Kind::Bool)
      return cdr_fail(CdrError::TypeMismatch,
                      ": sequence of " + std::to_string(n) + " elements has no data");
  }
  if (auto st = detail::check_array_length(s.array, s.array_size, n); !st) return st;
  if (s.array != ArrayKind::Fixed) w.put_u32(static_cast<uint32_t>(n));
  if (s.kind == Kind::Primitive || s.kind == Kind::Bool) {
    if (s.kind == Kind::Bool) {
      if (n != 0 && base == nullptr) return encode_fetched_bools<L>(m, field, n, w);
      if (auto st = detail::check_bools(base, n); !st) return st;
    }
    w.put_primitive_array(base, n, s.size);
    return Ok{};
  }
  for (uint64_t i = 0; i < n; ++i) {
    auto st = encode_one<L>(s, m, base + i * s.stride, w);
    if (!st) return cdr_at_field(st.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

template <typename L>
St encode_struct(const typename L::Members& t, const uint8_t* msg, CdrWriter& w) {
  for (uint32_t i = 0; i < t.member_count_; ++i) {
    const auto& m = t.members_[i];
    auto st = encode_member<L>(m, msg + m.offset_, w);
    if (!st) return cdr_at_field(st.error(), m.name_);
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Decoding.

// A lower bound of one encoded value of the member (alignment ignored): rejects sequence
// lengths the input cannot hold before anything is allocated.
template <typename L>
uint64_t min_encoded_size(const typename L::Members& t, int depth);

template <typename L>
uint64_t min_member_size(const typename L::Member& m, int depth) {
  const FieldShape<L> s = shape_of<L>(m);
  uint64_t one = s.size;
  if (s.kind == Kind::String || s.kind == Kind::WString) one = 4;
  if (s.kind == Kind::Nested) one = min_encoded_size<L>(*s.nested, depth + 1);
  if (s.array == ArrayKind::None) return one;
  if (s.array == ArrayKind::Fixed) return one * s.array_size;
  return 4;
}

template <typename L>
uint64_t min_encoded_size(const typename L::Members& t, int depth) {
  if (depth > 64) return 1;
  uint64_t n = 0;
  for (uint32_t i = 0; i < t.member_count_; ++i) n += min_member_size<L>(t.members_[i], depth);
  return n == 0 ? 1 : n;
}

template <typename L>
St decode_struct(const typename L::Members& t, uint8_t* msg, Reader& r, uint32_t depth);

template <typename L>
St decode_one(const FieldShape<L>& s, const typename L::Member& m, uint8_t* p, Reader& r,
              uint32_t depth) {
  switch (s.kind) {
    case Kind::Bool: {
      // Checked before it is stored: a C or C++ bool holding 2 is not a valid message.
      uint8_t b = 0;
      if (auto st = r.get_primitive(&b, 1, true); !st) return st;
      *p = b;
      return Ok{};
    }
    case Kind::Primitive:
      return r.get_primitive(p, s.size, false);
    case Kind::String: {
      std::string_view v;
      if (auto st = r.get_string(static_cast<uint32_t>(m.string_upper_bound_), v); !st) return st;
      if (!L::assign_string(p, v))
        return cdr_fail(CdrError::Internal, ": out of memory for a string");
      return Ok{};
    }
    case Kind::WString: {
      const uint8_t* units = nullptr;
      uint32_t count = 0;
      if (auto st = r.get_wstring(static_cast<uint32_t>(m.string_upper_bound_), units, count); !st)
        return st;
      if (!L::assign_wstring(p, units, count))
        return cdr_fail(CdrError::Internal, ": out of memory for a wstring");
      return Ok{};
    }
    case Kind::Nested:
      return decode_struct<L>(*s.nested, p, r, depth + 1);
    case Kind::Unsupported:
      break;
  }
  return unsupported<L>(m);
}

// Points a C sequence of non-bool primitives at its `n` elements at `src` in the input, when they
// lie aligned for their C type; false if it does not apply (then the caller fills it).
template <typename L>
bool borrow_sequence(const FieldShape<L>& s, const typename L::Member& m, uint8_t* field,
                     const uint8_t* src, uint32_t n, Reader& r) {
  if constexpr (L::CAN_BORROW) {
    if (r.borrowed == nullptr || s.array == ArrayKind::Fixed || s.kind != Kind::Primitive ||
        n == 0 || reinterpret_cast<uintptr_t>(src) % s.size != 0 || m.resize_function == nullptr)
      return false;
    uint8_t* ignored = nullptr;
    if (!L::resize(m, field, 0, ignored)) return false;
    *reinterpret_cast<CSequence*>(field) = CSequence{const_cast<uint8_t*>(src), n, n};
    r.borrowed->push_back(field);
    return true;
  } else {
    (void)s, (void)m, (void)field, (void)src, (void)n, (void)r;
    return false;
  }
}

template <typename L>
St decode_member(const typename L::Member& m, uint8_t* field, Reader& r, uint32_t depth) {
  const FieldShape<L> s = shape_of<L>(m);
  if (s.kind == Kind::Unsupported) return unsupported<L>(m);
  if (s.array == ArrayKind::None) return decode_one<L>(s, m, field, r, depth);
  uint32_t n = 0;
  if (auto st = r.get_array_length(s.array, s.array_size, n); !st) return st;
  const bool primitive = s.kind == Kind::Primitive || s.kind == Kind::Bool;
  const uint8_t* src = nullptr;
  if (primitive) {
    // Validate (and find) the elements before touching the message.
    if (auto st = r.get_primitive_array(n, s.size, s.kind == Kind::Bool, src); !st) return st;
  } else {
    const uint64_t element = s.kind == Kind::Nested ? min_encoded_size<L>(*s.nested, 0) : 4;
    if (auto st = r.check_room(n, element); !st) return st;
  }
  // A non-bool primitive sequence whose elements sit aligned for their C type in the input is
  // pointed into it (read-only by contract of a loaned message). Bools are copied: the input is
  // shared memory, which may change after the 0/1 check, and a C bool must be 0 or 1.
  if (primitive && borrow_sequence<L>(s, m, field, src, n, r)) return Ok{};
  uint8_t* base = field;
  if (s.array != ArrayKind::Fixed) {
    if (m.resize_function == nullptr)
      return cdr_fail(CdrError::Internal, ": sequence member has no resize function");
    if (!L::resize(m, field, n, base))
      return cdr_fail(CdrError::Internal, ": out of memory for " + std::to_string(n) + " elements");
  }
  if (n != 0 && base == nullptr) {
    // A C++ std::vector<bool>: no contiguous data, one assign per element (checked 0 / 1 above).
    if (s.kind != Kind::Bool || m.assign_function == nullptr)
      return cdr_fail(CdrError::Internal, ": sequence has no data to decode into");
    for (uint32_t i = 0; i < n; ++i) {
      const bool b = src[i] != 0;
      m.assign_function(field, i, &b);
    }
    return Ok{};
  }
  if (primitive) {
    // Fresh memory (rclpy's message is new each take): a 4K image in 2 MiB pages.
    advise_huge_pages(base, uint64_t{n} * s.size);
    if (n != 0) std::memcpy(base, src, uint64_t{n} * s.size);
    return Ok{};
  }
  for (uint32_t i = 0; i < n; ++i) {
    auto st = decode_one<L>(s, m, base + uint64_t{i} * s.stride, r, depth);
    if (!st) return cdr_at_field(st.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

template <typename L>
St decode_struct(const typename L::Members& t, uint8_t* msg, Reader& r, uint32_t depth) {
  if (depth > r.max_depth)
    return cdr_fail(CdrError::TooDeep, ": nesting over " + std::to_string(r.max_depth));
  for (uint32_t i = 0; i < t.member_count_; ++i) {
    const auto& m = t.members_[i];
    auto st = decode_member<L>(m, msg + m.offset_, r, depth);
    if (!st) return cdr_at_field(st.error(), m.name_);
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Entry points: dispatch on the type's language.

// Runs `walk(members)` with the type's description in its own layout (L deduced from it). The
// C++ walk may throw (an element's copy in a fetch / assign function); nothing may cross the
// rmw's C interface, so it becomes Internal.
template <typename R, typename Walk>
R with_layout(const IntrospectionType& type, Walk walk) {
  try {
    if (const auto* t = type.c()) return walk(*t);
    if (const auto* t = type.cpp()) return walk(*t);
    return cdr_fail(CdrError::Internal, ": no introspection members");
  } catch (const std::exception& e) {
    return cdr_fail(CdrError::Internal, type.name() + ": " + e.what());
  } catch (...) {
    return cdr_fail(CdrError::Internal, type.name() + ": an exception from the message's code");
  }
}

template <typename M>
using LayoutOf = std::conditional_t<std::is_same_v<M, CLayout::Members>, CLayout, CppLayout>;

Status<Err> encode_with(const IntrospectionType& type, const void* msg, CdrWriter& w) {
  return with_layout<St>(type, [&](const auto& members) -> St {
    using L = LayoutOf<std::decay_t<decltype(members)>>;
    auto st = encode_struct<L>(members, static_cast<const uint8_t*>(msg), w);
    if (!st) return cdr_at_field(st.error(), type.name());
    return Ok{};
  });
}

Status<Err> decode_with(const IntrospectionType& type, std::span<const uint8_t> bytes, void* msg,
                        const DecodeLimits& limits, std::vector<void*>* borrowed) {
  const std::string name = type.name();
  Reader r;
  if (auto st = detail::open_cdr(bytes, limits, name, r); !st) return st;
  r.borrowed = borrowed;
  return with_layout<St>(type, [&](const auto& members) -> St {
    using L = LayoutOf<std::decay_t<decltype(members)>>;
    auto st = decode_struct<L>(members, static_cast<uint8_t*>(msg), r, 0);
    if (!st) return cdr_at_field(st.error(), name);
    return Ok{};
  });
}

}  // namespace

Result<uint64_t, Err> introspection_encoded_size(const IntrospectionType& type, const void* msg) {
  CdrWriter w;
  if (auto st = encode_with(type, msg, w); !st) return unexpected(st.error());
  return w.pos + 4;
}

Result<uint64_t, Err> introspection_encode(const IntrospectionType& type, const void* msg,
                                           std::span<uint8_t> out) {
  auto size = introspection_encoded_size(type, msg);
  if (!size) return unexpected(size.error());
  if (*size > out.size())
    return cdr_fail(CdrError::OversizeMessage, type.name() + ": needs " + std::to_string(*size) +
                                                   " bytes, buffer has " +
                                                   std::to_string(out.size()));
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  CdrWriter w;
  w.out = out.data() + 4;
  if (auto st = encode_with(type, msg, w); !st) return unexpected(st.error());
  return *size;
}

Status<Err> introspection_decode(const IntrospectionType& type, std::span<const uint8_t> bytes,
                                 void* msg, const DecodeLimits& limits) {
  return decode_with(type, bytes, msg, limits, nullptr);
}

Status<Err> introspection_decode_view(const IntrospectionType& type, std::span<const uint8_t> bytes,
                                      void* msg, std::vector<void*>& borrowed,
                                      const DecodeLimits& limits) {
  if (type.c() == nullptr)
    return cdr_fail(CdrError::Internal, type.name() + ": only C messages are decoded in place");
  return decode_with(type, bytes, msg, limits, &borrowed);
}

void unborrow(const std::vector<void*>& borrowed) {
  for (void* field : borrowed) *static_cast<CSequence*>(field) = CSequence{nullptr, 0, 0};
}

}  // namespace baton::ros2::rmw
