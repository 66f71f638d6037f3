// CDR XCDR1 little-endian codec driven by MessageDescription. See include/baton/ros2/cdr.hpp.
#include "baton/ros2/cdr.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

#include "cdr_stream.hpp"

namespace baton::ros2 {

static_assert(std::endian::native == std::endian::little,
              "the CDR codec copies primitives as they are in memory: little-endian hosts only");

namespace {

using Err = Error<CdrError>;
using Status_ = Status<Err>;
using detail::cdr_at_field;
using detail::cdr_fail;

// Collects ArraySlots under their field paths; does nothing unless `out` is set. The path is a
// fixed stack of parts, turned into text only when a slot is added: publish() encodes through
// here for every message, and must not pay string work per field.
struct SlotSink {
  struct Part {         // trivial, so the stack below costs nothing to set up
    const char* field;  // nullptr: an index
    size_t length;
    uint64_t index;
  };
  static constexpr size_t MAX_PARTS = 2 * 64 + 2;  // field + index per level of nesting
  std::vector<ArraySlot>* out = nullptr;
  std::array<Part, MAX_PARTS> parts;  // parts[0, depth) are set
  size_t depth = 0;                   // parts in use (may exceed MAX_PARTS: those are not recorded)

  void enter(std::string_view field) {
    if (out != nullptr && depth < MAX_PARTS) parts[depth] = Part{field.data(), field.size(), 0};
    ++depth;
  }
  void enter_index(uint64_t i) {
    if (out != nullptr && depth < MAX_PARTS) parts[depth] = Part{nullptr, 0, i};
    ++depth;
  }
  void leave() { --depth; }
  // `pos` is the CDR position (from the byte after the header); slots count from the sample.
  void add(uint64_t pos, uint64_t bytes, uint32_t element_size) {
    if (out == nullptr) return;
    std::string path;
    for (size_t k = 0; k < std::min(depth, MAX_PARTS); ++k) {
      if (parts[k].field == nullptr) {
        path += "[" + std::to_string(parts[k].index) + "]";
      } else {
        if (!path.empty()) path += '.';
        path.append(parts[k].field, parts[k].length);
      }
    }
    out->push_back(ArraySlot{std::move(path), pos + 4, bytes, element_size});
  }
};

// The CDR writer plus where Value::reserved arrays went.
struct Writer : detail::CdrWriter {
  SlotSink slots;
};

// How the decoder treats primitive arrays: copied into Value::raw (decode), left where they lie
// as Value::view (decode_view), or only located: Value::reserved + an ArraySlot (decode_locate).
enum class ArrayMode : uint8_t { Copy, View, Locate };

struct Reader : detail::CdrReader {
  ArrayMode arrays = ArrayMode::Copy;
  SlotSink slots;
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
  if ((f.type == BaseType::String || f.type == BaseType::WString) && !v.is_text())
    return cdr_fail(CdrError::TypeMismatch,
                    ": " + std::string(to_string(f.type)) + " needs text, value has " + v.shape());
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

// A Value::reserved array: its count, then room for its elements, left unwritten and reported.
Status_ encode_reserved(const FieldDescription& f, uint64_t n, Writer& w) {
  const uint32_t psize = primitive_size(f.type);
  if (psize == 0)
    return cdr_fail(CdrError::TypeMismatch, ": Value::reserved is for arrays of primitives only");
  if (auto s = detail::check_array_length(f.array, f.array_size, n); !s) return s;
  if (f.array != ArrayKind::Fixed) w.put_u32(static_cast<uint32_t>(n));
  if (n != 0) w.align(psize);  // as put_primitive_array: aligned only when it has elements
  w.slots.add(w.pos, n * psize, psize);
  w.pos += n * psize;
  return Ok{};
}

Status_ encode_field(const FieldDescription& f, const Value& v, Writer& w) {
  if (f.array == ArrayKind::None) return encode_scalar(f, v, w);
  uint64_t n = 0;
  const uint32_t psize = primitive_size(f.type);
  if (v.reserved_count) return encode_reserved(f, *v.reserved_count, w);
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
    w.slots.enter_index(i);
    auto s = encode_scalar(elem, v.items[i], w);
    if (!s) return cdr_at_field(s.error(), "[" + std::to_string(i) + "]");
    w.slots.leave();
  }
  return Ok{};
}

Status_ encode_struct(const MessageDescription& d, const Value& v, Writer& w) {
  if (v.items.size() != d.fields.size())
    return cdr_fail(CdrError::TypeMismatch,
                    d.full_name() + " has " + std::to_string(d.fields.size()) +
                        " fields, value has " + std::to_string(v.items.size()));
  for (size_t i = 0; i < d.fields.size(); ++i) {
    w.slots.enter(d.fields[i].name);
    auto s = encode_field(d.fields[i], v.items[i], w);
    if (!s) return cdr_at_field(s.error(), d.fields[i].name);
    w.slots.leave();
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
    // A located array's bytes are not read at all (they may not be there yet), bools included.
    const bool locate = r.arrays == ArrayMode::Locate;
    const bool check_bools = f.type == BaseType::Bool && !locate;
    if (auto s = r.get_primitive_array(n, psize, check_bools, p); !s) return s;
    // p .. p + n * psize was checked against the input's end by get_primitive_array.
    const uint64_t bytes = uint64_t{n} * psize;
    if (locate) {
      v.reserved_count = n;
      r.slots.add(r.pos - bytes, bytes, psize);
    } else if (r.arrays == ArrayMode::View) {
      v.view = std::span<const uint8_t>(p, bytes);
    } else {
      v.raw.assign(p, p + bytes);
    }
    return Ok{};
  }
  FieldDescription elem = f;
  elem.array = ArrayKind::None;
  if (auto s = r.check_room(n, min_size(elem, 0)); !s) return s;
  v.items.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    r.slots.enter_index(i);
    auto s = decode_scalar(elem, v.items[i], r, depth);
    if (!s) return cdr_at_field(s.error(), "[" + std::to_string(i) + "]");
    r.slots.leave();
  }
  return Ok{};
}

Status_ decode_struct(const MessageDescription& d, Value& v, Reader& r, uint32_t depth) {
  if (depth > r.max_depth)
    return cdr_fail(CdrError::TooDeep, ": nesting over " + std::to_string(r.max_depth));
  v.items.resize(d.fields.size());
  for (size_t i = 0; i < d.fields.size(); ++i) {
    r.slots.enter(d.fields[i].name);
    auto s = decode_field(d.fields[i], v.items[i], r, depth);
    if (!s) return cdr_at_field(s.error(), d.fields[i].name);
    r.slots.leave();
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

const ArraySlot* find_slot(const std::vector<ArraySlot>& slots, std::string_view path) {
  for (const auto& s : slots)
    if (s.path == path) return &s;
  return nullptr;
}

Result<uint64_t, Err> encode_into(const MessageDescription& d, const Value& v,
                                  std::span<uint8_t> out, std::vector<ArraySlot>* reserved) {
  auto size = encoded_size(d, v);
  if (!size) return unexpected(size.error());
  if (*size > out.size())
    return cdr_fail(CdrError::OversizeMessage, d.full_name() + ": needs " + std::to_string(*size) +
                                                   " bytes, buffer has " +
                                                   std::to_string(out.size()));
  std::memcpy(out.data(), CDR_LE_HEADER, 4);
  Writer w;
  w.out = out.data() + 4;
  if (reserved != nullptr) reserved->clear();
  w.slots.out = reserved;
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
                               const DecodeLimits& limits, ArrayMode arrays,
                               std::vector<ArraySlot>* slots = nullptr) {
  Reader r;
  if (auto s = detail::open_cdr(bytes, limits, d.full_name(), r); !s) return unexpected(s.error());
  r.arrays = arrays;
  r.slots.out = slots;
  Value v;
  auto s = decode_struct(d, v, r, 0);
  if (!s) return cdr_at_field(s.error(), d.full_name());
  return v;
}

}  // namespace

Result<Value, Err> decode(const MessageDescription& d, std::span<const uint8_t> bytes,
                          const DecodeLimits& limits) {
  return decode_with(d, bytes, limits, ArrayMode::Copy);
}

Result<Value, Err> decode_view(const MessageDescription& d, std::span<const uint8_t> bytes,
                               const DecodeLimits& limits) {
  return decode_with(d, bytes, limits, ArrayMode::View);
}

Result<Value, Err> decode_locate(const MessageDescription& d, std::span<const uint8_t> bytes,
                                 std::vector<ArraySlot>& arrays, const DecodeLimits& limits) {
  arrays.clear();
  return decode_with(d, bytes, limits, ArrayMode::Locate, &arrays);
}

}  // namespace baton::ros2
