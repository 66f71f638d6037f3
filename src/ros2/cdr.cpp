// CDR XCDR1 little-endian codec driven by MessageDescription. See include/baton/ros2/cdr.hpp.
#include "baton/ros2/cdr.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

namespace baton::ros2 {

static_assert(std::endian::native == std::endian::little,
              "the CDR codec copies primitives as they are in memory: little-endian hosts only");

namespace {

using Err = Error<CdrError>;
using Status_ = Status<Err>;

Unexpected<Err> fail(CdrError code, std::string detail) {
  return unexpected(Err{code, std::move(detail)});
}

// Prefixes the failing field to an error travelling up ("header.stamp.sec: ...").
Unexpected<Err> at_field(Err e, const std::string& name) {
  const bool joined = e.detail.empty() || e.detail[0] == '[' || e.detail[0] == ':';
  e.detail = name + (joined ? "" : ".") + e.detail;
  return unexpected(std::move(e));
}

// ---------------------------------------------------------------------------------------------
// Encoding: one pass to size, one to write (Writer with out == nullptr only counts).

struct Writer {
  uint8_t* out = nullptr;      // first byte after the encapsulation header; nullptr: count only
  uint64_t pos = 0;            // offset from `out` (CDR alignment origin)
  uint8_t* padding = nullptr;  // optional: 1 marks an alignment byte (same indexing as out)

  void align(uint32_t n) {
    uint64_t aligned = (pos + n - 1) & ~uint64_t{n - 1};
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
};

Status_ encode_struct(const MessageDescription& d, const Value& v, Writer& w);

Status_ encode_scalar(const FieldDescription& f, const Value& v, Writer& w) {
  if (is_primitive(f.type)) {
    uint32_t n = primitive_size(f.type);
    if (v.raw.size() != n)
      return fail(CdrError::TypeMismatch, ": " + std::string(to_string(f.type)) + " needs " +
                                              std::to_string(n) + " bytes, value has " +
                                              std::to_string(v.raw.size()));
    if (f.type == BaseType::Bool && v.raw[0] > 1) return fail(CdrError::BadBool, ": not 0 or 1");
    w.align(n);
    w.put(v.raw.data(), n);
    return Ok{};
  }
  if (f.type == BaseType::String) {
    if (f.string_bound != 0 && v.str.size() > f.string_bound)
      return fail(CdrError::OversizeString, ": " + std::to_string(v.str.size()) +
                                                " bytes > bound " + std::to_string(f.string_bound));
    if (v.str.find('\0') != std::string::npos)
      return fail(CdrError::BadString, ": embedded NUL (would be cut by every RMW)");
    if (v.str.size() >= UINT32_MAX) return fail(CdrError::OversizeString, ": over 4 GiB");
    w.put_u32(static_cast<uint32_t>(v.str.size() + 1));
    w.put(v.str.data(), v.str.size());
    const uint8_t nul = 0;
    w.put(&nul, 1);
    return Ok{};
  }
  if (f.type == BaseType::WString) {
    if (f.string_bound != 0 && v.wstr.size() > f.string_bound)
      return fail(CdrError::OversizeString, ": " + std::to_string(v.wstr.size()) +
                                                " code units > bound " +
                                                std::to_string(f.string_bound));
    w.put_u32(static_cast<uint32_t>(v.wstr.size()));
    if (!v.wstr.empty()) {
      w.align(2);
      w.put(v.wstr.data(), v.wstr.size() * 2);
    }
    return Ok{};
  }
  if (f.nested == nullptr) return fail(CdrError::Internal, ": nested type not resolved");
  return encode_struct(*f.nested, v, w);
}

Status_ encode_field(const FieldDescription& f, const Value& v, Writer& w) {
  if (f.array == ArrayKind::None) return encode_scalar(f, v, w);
  uint64_t n = 0;
  const uint32_t psize = primitive_size(f.type);
  if (psize != 0) {
    if (v.raw.size() % psize != 0)
      return fail(CdrError::TypeMismatch, ": packed array of " + std::to_string(v.raw.size()) +
                                              " bytes is not a multiple of " +
                                              std::to_string(psize));
    n = v.raw.size() / psize;
  } else {
    n = v.items.size();
  }
  if (f.array == ArrayKind::Fixed && n != f.array_size)
    return fail(CdrError::TypeMismatch, ": array needs " + std::to_string(f.array_size) +
                                            " elements, value has " + std::to_string(n));
  if (f.array == ArrayKind::Bounded && n > f.array_size)
    return fail(CdrError::OversizeSequence,
                ": " + std::to_string(n) + " elements > bound " + std::to_string(f.array_size));
  if (n > UINT32_MAX) return fail(CdrError::OversizeSequence, ": over 2^32 elements");
  if (f.array != ArrayKind::Fixed) w.put_u32(static_cast<uint32_t>(n));
  if (psize != 0) {
    if (f.type == BaseType::Bool)
      for (uint8_t b : v.raw)
        if (b > 1) return fail(CdrError::BadBool, ": element not 0 or 1");
    if (n > 0) {  // Fast CDR aligns an array only when it has elements
      w.align(psize);
      w.put(v.raw.data(), v.raw.size());
    }
    return Ok{};
  }
  FieldDescription elem = f;
  elem.array = ArrayKind::None;
  for (uint64_t i = 0; i < n; ++i) {
    auto s = encode_scalar(elem, v.items[i], w);
    if (!s) return at_field(s.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

Status_ encode_struct(const MessageDescription& d, const Value& v, Writer& w) {
  if (v.items.size() != d.fields.size())
    return fail(CdrError::TypeMismatch, d.full_name() + " has " + std::to_string(d.fields.size()) +
                                            " fields, value has " + std::to_string(v.items.size()));
  for (size_t i = 0; i < d.fields.size(); ++i) {
    auto s = encode_field(d.fields[i], v.items[i], w);
    if (!s) return at_field(s.error(), d.fields[i].name);
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------------
// Decoding.

struct Reader {
  const uint8_t* in;
  uint64_t size;
  uint64_t pos = 0;
  const DecodeLimits& limits;

  Status_ align(uint32_t n) {
    uint64_t aligned = (pos + n - 1) & ~uint64_t{n - 1};
    if (aligned > size) return truncated(aligned - pos);
    pos = aligned;
    return Ok{};
  }
  Unexpected<Err> truncated(uint64_t need) const {
    return fail(CdrError::Truncated, ": needs " + std::to_string(need) + " bytes at offset " +
                                         std::to_string(pos) + ", " + std::to_string(size - pos) +
                                         " left");
  }
  uint64_t left() const { return size - pos; }
  Status_ get(void* dst, uint64_t n) {
    if (n > left()) return truncated(n);
    if (n > 0) std::memcpy(dst, in + pos, n);
    pos += n;
    return Ok{};
  }
  Status_ get_u32(uint32_t& v) {
    if (auto s = align(4); !s) return s;
    return get(&v, 4);
  }
};

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
    uint32_t n = primitive_size(f.type);
    if (auto s = r.align(n); !s) return s;
    v.raw.resize(n);
    if (auto s = r.get(v.raw.data(), n); !s) return s;
    if (f.type == BaseType::Bool && v.raw[0] > 1)
      return fail(CdrError::BadBool, ": byte " + std::to_string(v.raw[0]));
    return Ok{};
  }
  if (f.type == BaseType::String) {
    uint32_t len = 0;
    if (auto s = r.get_u32(len); !s) return s;
    if (len == 0) return Ok{};  // Fast CDR writes and accepts 0 for "", be as lenient
    if (len > r.limits.max_string_bytes)
      return fail(CdrError::OversizeString, ": length " + std::to_string(len) + " > limit " +
                                                std::to_string(r.limits.max_string_bytes));
    if (f.string_bound != 0 && len - 1 > f.string_bound)
      return fail(CdrError::OversizeString, ": length " + std::to_string(len - 1) + " > bound " +
                                                std::to_string(f.string_bound));
    if (len > r.left()) return r.truncated(len);
    if (r.in[r.pos + len - 1] != 0) return fail(CdrError::BadString, ": no terminating NUL");
    v.str.assign(reinterpret_cast<const char*>(r.in + r.pos), len - 1);
    r.pos += len;
    return Ok{};
  }
  if (f.type == BaseType::WString) {
    uint32_t len = 0;
    if (auto s = r.get_u32(len); !s) return s;
    if (uint64_t{len} * 2 > r.limits.max_string_bytes ||
        (f.string_bound != 0 && len > f.string_bound))
      return fail(CdrError::OversizeString, ": wstring length " + std::to_string(len));
    if (len == 0) return Ok{};
    if (auto s = r.align(2); !s) return s;
    if (uint64_t{len} * 2 > r.left()) return r.truncated(uint64_t{len} * 2);
    v.wstr.resize(len);
    return r.get(v.wstr.data(), uint64_t{len} * 2);
  }
  if (f.nested == nullptr) return fail(CdrError::Internal, ": nested type not resolved");
  return decode_struct(*f.nested, v, r, depth + 1);
}

Status_ decode_field(const FieldDescription& f, Value& v, Reader& r, uint32_t depth) {
  if (f.array == ArrayKind::None) return decode_scalar(f, v, r, depth);
  uint32_t n = f.array_size;
  if (f.array != ArrayKind::Fixed) {
    if (auto s = r.get_u32(n); !s) return s;
    if (f.array == ArrayKind::Bounded && n > f.array_size)
      return fail(CdrError::OversizeSequence,
                  ": length " + std::to_string(n) + " > bound " + std::to_string(f.array_size));
    if (n > r.limits.max_sequence_elements)
      return fail(CdrError::OversizeSequence, ": length " + std::to_string(n) + " > limit " +
                                                  std::to_string(r.limits.max_sequence_elements));
  }
  const uint32_t psize = primitive_size(f.type);
  if (psize != 0) {
    if (n == 0) return Ok{};
    if (auto s = r.align(psize); !s) return s;
    uint64_t bytes = uint64_t{n} * psize;
    if (bytes > r.left()) return r.truncated(bytes);
    v.raw.resize(bytes);
    if (auto s = r.get(v.raw.data(), bytes); !s) return s;
    if (f.type == BaseType::Bool)
      for (uint8_t b : v.raw)
        if (b > 1) return fail(CdrError::BadBool, ": element byte " + std::to_string(b));
    return Ok{};
  }
  FieldDescription elem = f;
  elem.array = ArrayKind::None;
  uint64_t need = uint64_t{n} * min_size(elem, 0);
  if (need > r.left()) return r.truncated(need);
  v.items.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    auto s = decode_scalar(elem, v.items[i], r, depth);
    if (!s) return at_field(s.error(), "[" + std::to_string(i) + "]");
  }
  return Ok{};
}

Status_ decode_struct(const MessageDescription& d, Value& v, Reader& r, uint32_t depth) {
  if (depth > r.limits.max_depth)
    return fail(CdrError::TooDeep, ": nesting over " + std::to_string(r.limits.max_depth));
  v.items.resize(d.fields.size());
  for (size_t i = 0; i < d.fields.size(); ++i) {
    auto s = decode_field(d.fields[i], v.items[i], r, depth);
    if (!s) return at_field(s.error(), d.fields[i].name);
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
    return fail(CdrError::OversizeMessage, d.full_name() + ": needs " + std::to_string(*size) +
                                               " bytes, buffer has " + std::to_string(out.size()));
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  Writer w;
  w.out = out.data() + 4;
  auto s = encode_struct(d, v, w);
  if (!s) return unexpected(s.error());
  return *size;
}

Result<Value, Err> decode(const MessageDescription& d, std::span<const uint8_t> bytes,
                          const DecodeLimits& limits) {
  if (bytes.size() < 4)
    return fail(CdrError::BadEncapsulation, d.full_name() + ": " + std::to_string(bytes.size()) +
                                                " bytes, shorter than the "
                                                "4-byte header");
  if (bytes.size() > limits.max_message_bytes)
    return fail(CdrError::OversizeMessage, d.full_name() + ": " + std::to_string(bytes.size()) +
                                               " bytes > limit " +
                                               std::to_string(limits.max_message_bytes));
  if (bytes[0] != 0x00 || bytes[1] != 0x01) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02x %02x", bytes[0], bytes[1]);
    return fail(CdrError::BadEncapsulation,
                d.full_name() + ": encapsulation " + hex +
                    (bytes[1] == 0x00 ? " (big-endian CDR) is not supported"
                                      : ", expected 00 01 (CDR little-endian)"));
  }
  Reader r{bytes.data() + 4, bytes.size() - 4, 0, limits};
  Value v;
  auto s = decode_struct(d, v, r, 0);
  if (!s) {
    return at_field(s.error(), d.full_name());
  }
  return v;
}

}  // namespace baton::ros2
