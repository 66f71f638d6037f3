// CDR XCDR1 little-endian codec driven by MessageDescription. See include/baton/ros2/cdr.hpp.
#include "baton/ros2/cdr.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

#include "baton/ros2/detail/cdr_stream.hpp"

namespace baton::ros2 {

static_assert(std::endian::native == std::endian::little,
              "the CDR codec copies primitives as they are in memory: little-endian hosts only");

namespace {

using Err = Error<CdrError>;
using Status_ = Status<Err>;
using detail::cdr_at_field;
using detail::cdr_fail;
using Writer = detail::CdrWriter;
// The CDR reader plus how this codec stores primitive arrays: copied into Value::raw, or (for
// decode_view) left where they lie as Value::view.
struct Reader : detail::CdrReader {
  bool view_arrays = false;
};

Status_ encode_struct(const MessageDescription& d, const Value& v, Writer& w);

Status_ encode_scalar(const FieldDescription& f, const Value& v, Writer& w) {
  if (is_primitive(f.type)) {
    const uint32_t n = primitive_size(f.type);
    if (v.raw.size() != n)
      return cdr_fail(CdrError::TypeMismatch, ": " + std::string(to_string(f.type)) + " needs " +
                                                  std::to_string(n) + " bytes, value has " +
                                                  std::to_string(v.raw.size()));
    if (f.type == BaseType::Bool) {
      if (auto s = detail::check_bools(v.raw.data(), 1); !s) return s;
    }
    w.put_primitive(v.raw.data(), n);
    return Ok{};
  }
  if (f.type == BaseType::String) {
    if (auto s = detail::check_string(v.str, f.string_bound); !s) return s;
    w.put_string(v.str.data(), v.str.size());
    return Ok{};
  }
  if (f.type == BaseType::WString) {
    if (auto s = detail::check_wstring(v.wstr.size(), f.string_bound); !s) return s;
    w.put_wstring(v.wstr.data(), v.wstr.size());
    return Ok{};
  }
  if (f.nested == nullptr) return cdr_fail(CdrError::Internal, ": nested type not resolved");
  return encode_struct(*f.nested, v, w);
}

Status_ encode_field(const FieldDescription& f, const Value& v, Writer& w) {
  if (f.array == ArrayKind::None) return encode_scalar(f, v, w);
  uint64_t n = 0;
  const uint32_t psize = primitive_size(f.type);
  const std::span<const uint8_t> packed = v.bytes();  // owned or a view (e.g. a camera buffer)
  if (psize != 0) {
    if (packed.size() % psize != 0)
      return cdr_fail(CdrError::TypeMismatch, ": packed array of " + std::to_string(packed.size()) +
                                                  " bytes is not a multiple of " +
                                                  std::to_string(psize));
    n = packed.size() / psize;
  } else {
    n = v.items.size();
  }
  if (auto s = detail::check_array_length(f.array, f.array_size, n); !s) return s;
  if (f.array != ArrayKind::Fixed) w.put_u32(static_cast<uint32_t>(n));
  if (psize != 0) {
    if (f.type == BaseType::Bool) {
      if (auto s = detail::check_bools(packed.data(), packed.size()); !s) return s;
    }
    w.put_primitive_array(packed.data(), n, psize);
    return Ok{};
  }
  FieldDescription elem = f;
  elem.array = ArrayKind::None;
  for (uint64_t i = 0; i < n; ++i) {
    auto s = encode_scalar(elem, v.items[i], w);
    if (!s) return cdr_at_field(s.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

Status_ encode_struct(const MessageDescription& d, const Value& v, Writer& w) {
  if (v.items.size() != d.fields.size())
    return cdr_fail(CdrError::TypeMismatch,
                    d.full_name() + " has " + std::to_string(d.fields.size()) +
                        " fields, value has " + std::to_string(v.items.size()));
  for (size_t i = 0; i < d.fields.size(); ++i) {
    auto s = encode_field(d.fields[i], v.items[i], w);
    if (!s) return cdr_at_field(s.error(), d.fields[i].name);
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Decoding.

// Smallest number of bytes a value of the field can occupy (alignment ignored): a lower bound
// used to reject sequence lengths the remaining input cannot hold before allocating.
uint64_t min_size(const FieldDescription& f, int depth);

uint64_t min_size(const MessageDescription& d, int depth) {
  if (depth > 64) return 1;
  uint64_t s = 0;
  for (const auto& f : d.fields) s += min_size(f, depth + 1);
  return s == 0 ? 1 : s;
}

uint64_t min_size(const FieldDescription& f, int depth) {
  uint64_t one = primitive_size(f.type);
  if (f.type == BaseType::String || f.type == BaseType::WString) one = 4;
  if (f.type == BaseType::Nested) one = f.nested != nullptr ? min_size(*f.nested, depth) : 1;
  switch (f.array) {
    case ArrayKind::None:
      return one;
    case ArrayKind::Fixed:
      return one * f.array_size;
    default:
      return 4;
  }
}

Status_ decode_struct(const MessageDescription& d, Value& v, Reader& r, uint32_t depth);

Status_ decode_scalar(const FieldDescription& f, Value& v, Reader& r, uint32_t depth) {
  if (is_primitive(f.type)) {
    v.raw.resize(primitive_size(f.type));
    return r.get_primitive(v.raw.data(), primitive_size(f.type), f.type == BaseType::Bool);
  }
  if (f.type == BaseType::String) {
    std::string_view sv;
    if (auto s = r.get_string(f.string_bound, sv); !s) return s;
    v.str.assign(sv);
    return Ok{};
  }
  if (f.type == BaseType::WString) {
    const uint8_t* units = nullptr;
    uint32_t count = 0;
    if (auto s = r.get_wstring(f.string_bound, units, count); !s) return s;
    v.wstr.resize(count);
    if (count != 0) std::memcpy(v.wstr.data(), units, uint64_t{count} * 2);
    return Ok{};
  }
  if (f.nested == nullptr) return cdr_fail(CdrError::Internal, ": nested type not resolved");
  return decode_struct(*f.nested, v, r, depth + 1);
}

Status_ decode_field(const FieldDescription& f, Value& v, Reader& r, uint32_t depth) {
  if (f.array == ArrayKind::None) return decode_scalar(f, v, r, depth);
  uint32_t n = 0;
  if (auto s = r.get_array_length(f.array, f.array_size, n); !s) return s;
  const uint32_t psize = primitive_size(f.type);
  if (psize != 0) {
    const uint8_t* p = nullptr;
    if (auto s = r.get_primitive_array(n, psize, f.type == BaseType::Bool, p); !s) return s;
    // p .. p + n * psize was checked against the input's end by get_primitive_array.
    if (r.view_arrays)
      v.view = std::span<const uint8_t>(p, uint64_t{n} * psize);
    else
      v.raw.assign(p, p + uint64_t{n} * psize);
    return Ok{};
  }
  FieldDescription elem = f;
  elem.array = ArrayKind::None;
  if (auto s = r.check_room(n, min_size(elem, 0)); !s) return s;
  v.items.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    auto s = decode_scalar(elem, v.items[i], r, depth);
    if (!s) return cdr_at_field(s.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

Status_ decode_struct(const MessageDescription& d, Value& v, Reader& r, uint32_t depth) {
  if (depth > r.max_depth)
    return cdr_fail(CdrError::TooDeep, ": nesting over " + std::to_string(r.max_depth));
  v.items.resize(d.fields.size());
  for (size_t i = 0; i < d.fields.size(); ++i) {
    auto s = decode_field(d.fields[i], v.items[i], r, depth);
    if (!s) return cdr_at_field(s.error(), d.fields[i].name);
  }
  return Ok{};
}

Value default_scalar(const FieldDescription& f) {
  if (is_primitive(f.type)) {
    Value v;
    v.raw.assign(primitive_size(f.type), 0);
    return v;
  }
  if (f.type == BaseType::Nested && f.nested != nullptr) return default_value(*f.nested);
  return Value{};
}

}  // namespace

Value default_value(const MessageDescription& d) {
  Value v;
  v.items.reserve(d.fields.size());
  for (const auto& f : d.fields) {
    if (f.array == ArrayKind::None) {
      v.items.push_back(default_scalar(f));
    } else if (f.array == ArrayKind::Fixed) {
      Value a;
      if (is_primitive(f.type))
        a.raw.assign(uint64_t{f.array_size} * primitive_size(f.type), 0);
      else
        a.items.assign(f.array_size, default_scalar(f));
      v.items.push_back(std::move(a));
    } else {
      v.items.emplace_back();
    }
  }
  return v;
}

Result<uint64_t, Err> encoded_size(const MessageDescription& d, const Value& v) {
  Writer w;
  auto s = encode_struct(d, v, w);
  if (!s) return unexpected(s.error());
  return w.pos + 4;
}

Result<std::vector<uint8_t>, Err> encode(const MessageDescription& d, const Value& v,
                                         std::vector<uint8_t>* padding_mask) {
  auto size = encoded_size(d, v);
  if (!size) return unexpected(size.error());
  std::vector<uint8_t> out(*size);
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  Writer w;
  w.out = out.data() + 4;
  if (padding_mask != nullptr) {
    padding_mask->assign(*size, 0);
    w.padding = padding_mask->data() + 4;
  }
  auto s = encode_struct(d, v, w);
  if (!s) return unexpected(s.error());
  return out;
}

Result<uint64_t, Err> encode_into(const MessageDescription& d, const Value& v,
                                  std::span<uint8_t> out) {
  auto size = encoded_size(d, v);
  if (!size) return unexpected(size.error());
  if (*size > out.size())
    return cdr_fail(CdrError::OversizeMessage, d.full_name() + ": needs " + std::to_string(*size) +
                                                   " bytes, buffer has " +
                                                   std::to_string(out.size()));
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  Writer w;
  w.out = out.data() + 4;
  auto s = encode_struct(d, v, w);
  if (!s) return unexpected(s.error());
  return *size;
}

namespace detail {

CdrStatus open_cdr(std::span<const uint8_t> bytes, const DecodeLimits& limits,
                   const std::string& type_name, CdrReader& reader) {
  if (bytes.size() < 4)
    return cdr_fail(CdrError::BadEncapsulation, type_name + ": " + std::to_string(bytes.size()) +
                                                    " bytes, shorter than the 4-byte header");
  if (bytes.size() > limits.max_message_bytes)
    return cdr_fail(CdrError::OversizeMessage, type_name + ": " + std::to_string(bytes.size()) +
                                                   " bytes > limit " +
                                                   std::to_string(limits.max_message_bytes));
  if (bytes[0] != 0x00 || bytes[1] != 0x01) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02x %02x", bytes[0], bytes[1]);
    return cdr_fail(CdrError::BadEncapsulation,
                    type_name + ": encapsulation " + hex +
                        (bytes[1] == 0x00 ? " (big-endian CDR) is not supported"
                                          : ", expected 00 01 (CDR little-endian)"));
  }
  reader = CdrReader{};
  reader.in = bytes.data() + 4;
  reader.size = bytes.size() - 4;
  reader.max_string_bytes = limits.max_string_bytes;
  reader.max_sequence_elements = limits.max_sequence_elements;
  reader.max_depth = limits.max_depth;
  return Ok{};
}

}  // namespace detail

namespace {

Result<Value, Err> decode_with(const MessageDescription& d, std::span<const uint8_t> bytes,
                               const DecodeLimits& limits, bool view_arrays) {
  Reader r;
  if (auto s = detail::open_cdr(bytes, limits, d.full_name(), r); !s) return unexpected(s.error());
  r.view_arrays = view_arrays;
  Value v;
  auto s = decode_struct(d, v, r, 0);
  if (!s) return cdr_at_field(s.error(), d.full_name());
  return v;
}

}  // namespace

Result<Value, Err> decode(const MessageDescription& d, std::span<const uint8_t> bytes,
                          const DecodeLimits& limits) {
  return decode_with(d, bytes, limits, false);
}

Result<Value, Err> decode_view(const MessageDescription& d, std::span<const uint8_t> bytes,
                               const DecodeLimits& limits) {
  return decode_with(d, bytes, limits, true);
}

}  // namespace baton::ros2
