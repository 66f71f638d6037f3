// ROS 1 serialization (serialization.hpp): one walk of the description serves sizing and writing
// (a Sink that counts or copies); decoding checks every length against the bytes left first.
#include "baton/ros1/serialization.hpp"

#include <cstring>
#include <string>

namespace baton::ros1 {
namespace {

using ros2::ArrayKind, ros2::BaseType, ros2::Value;
using FieldDescription = ros2::FieldDescription;
using MessageDescription = ros2::MessageDescription;
using Err = Error<SerializationError>;

constexpr int MAX_DEPTH = 64;

Unexpected<Err> mismatch(const std::string& path, const std::string& why) {
  return unexpected(Err{SerializationError::TypeMismatch, path + ": " + why});
}

// Counts bytes (counting) or copies them into [data, data + capacity).
struct Sink {
  bool counting = true;
  uint8_t* data = nullptr;
  uint64_t capacity = 0;
  uint64_t size = 0;
  bool overflow = false;
  void put(const void* p, uint64_t n) {
    if (!counting && !overflow) {
      if (n > capacity - size) {
        overflow = true;
      } else if (n != 0) {
        std::memcpy(data + size, p, n);
      }
    }
    size += n;
  }
  void put_u32(uint32_t v) {
    uint8_t le[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                     static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
    put(le, 4);
  }
};

Status<Err> write_message(const MessageDescription& d, const Value& v, Sink& out,
                          const std::string& path, int depth);

Status<Err> write_length(uint64_t n, Sink& out, const std::string& path) {
  if (n > UINT32_MAX) return mismatch(path, "more than 2^32-1 elements");
  out.put_u32(static_cast<uint32_t>(n));
  return Ok{};
}

Status<Err> write_one(const FieldDescription& f, const Value& v, Sink& out, const std::string& path,
                      int depth) {
  if (f.type == BaseType::String) {
    if (!v.is_text()) return mismatch(path, std::string("a string, got ") + v.shape());
    if (auto s = write_length(v.str.size(), out, path); !s) return s;
    out.put(v.str.data(), v.str.size());
    return Ok{};
  }
  if (f.type == BaseType::Nested) return write_message(*f.nested, v, out, path, depth + 1);
  return mismatch(path, "unsupported field type " + std::string(to_string(f.type)));
}

Status<Err> write_field(const FieldDescription& f, const Value& v, Sink& out,
                        const std::string& path, int depth) {
  if (ros2::is_primitive(f.type)) {
    const uint32_t size = ros2::primitive_size(f.type);
    const auto bytes = v.bytes();
    if (f.array == ArrayKind::None) {
      if (bytes.size() != size)
        return mismatch(path, "a scalar of " + std::to_string(size) + " bytes, got " +
                                  std::to_string(bytes.size()));
    } else {
      if (bytes.size() % size != 0)
        return mismatch(path, std::to_string(bytes.size()) + " bytes is no whole number of " +
                                  std::to_string(size) + "-byte elements");
      const uint64_t n = bytes.size() / size;
      if (f.array == ArrayKind::Fixed && n != f.array_size)
        return mismatch(path, "a fixed array of " + std::to_string(f.array_size) +
                                  " elements, got " + std::to_string(n));
      if (f.array != ArrayKind::Fixed)
        if (auto s = write_length(n, out, path); !s) return s;
    }
    out.put(bytes.data(), bytes.size());
    return Ok{};
  }
  if (f.array == ArrayKind::None) return write_one(f, v, out, path, depth);
  if (f.array == ArrayKind::Fixed && v.items.size() != f.array_size)
    return mismatch(path, "a fixed array of " + std::to_string(f.array_size) + " elements, got " +
                              std::to_string(v.items.size()));
  if (f.array != ArrayKind::Fixed)
    if (auto s = write_length(v.items.size(), out, path); !s) return s;
  for (size_t i = 0; i < v.items.size(); ++i)
    if (auto s = write_one(f, v.items[i], out, path + "[" + std::to_string(i) + "]", depth); !s)
      return s;
  return Ok{};
}

Status<Err> write_message(const MessageDescription& d, const Value& v, Sink& out,
                          const std::string& path, int depth) {
  if (depth > MAX_DEPTH) return unexpected(Err{SerializationError::TooDeep, path});
  if (v.items.size() != d.fields.size())
    return mismatch(
        path.empty() ? d.name : path,
        std::to_string(d.fields.size()) + " fields, got " + std::to_string(v.items.size()));
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const auto& f = d.fields[i];
    if (auto s =
            write_field(f, v.items[i], out, path.empty() ? f.name : path + "." + f.name, depth);
        !s)
      return s;
  }
  return Ok{};
}

// --- decoding ---------------------------------------------------------------------------------

struct Reader {
  std::span<const uint8_t> in;
  uint64_t pos = 0;
  DecodeMode mode = DecodeMode::Copy;
  uint64_t left() const { return in.size() - pos; }
};

Unexpected<Err> truncated(const Reader& r, const std::string& path, uint64_t need) {
  return unexpected(Err{SerializationError::Truncated,
                        path + ": needs " + std::to_string(need) + " bytes at offset " +
                            std::to_string(r.pos) + ", " + std::to_string(r.left()) + " left"});
}

// The fewest bytes one value of the field's element type can take (for the count checks).
uint64_t min_size(const MessageDescription& d, int depth);

uint64_t min_element_size(const FieldDescription& f, int depth) {
  if (ros2::is_primitive(f.type)) return ros2::primitive_size(f.type);
  if (f.type == BaseType::String) return 4;
  if (f.type == BaseType::Nested && f.nested != nullptr && depth < MAX_DEPTH)
    return min_size(*f.nested, depth + 1);
  return 0;
}

uint64_t min_size(const MessageDescription& d, int depth) {
  uint64_t total = 0;
  for (const auto& f : d.fields) {
    if (f.array == ArrayKind::Unbounded) {
      total += 4;
    } else {
      const uint64_t n = f.array == ArrayKind::Fixed ? f.array_size : 1;
      total += n * min_element_size(f, depth);
    }
    if (total > (uint64_t{1} << 40)) return total;  // no real type; avoids overflow
  }
  return total;
}

Result<uint32_t, Err> read_u32(Reader& r, const std::string& path) {
  if (r.left() < 4) return truncated(r, path, 4);
  const uint8_t* p = r.in.data() + r.pos;
  r.pos += 4;
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

Result<Value, Err> read_message(const MessageDescription& d, Reader& r, const std::string& path,
                                int depth);

Result<Value, Err> read_one(const FieldDescription& f, Reader& r, const std::string& path,
                            int depth) {
  if (f.type == BaseType::String) {
    auto n = read_u32(r, path);
    if (!n) return unexpected(n.error());
    if (*n > r.left())
      return unexpected(Err{SerializationError::OversizeLength,
                            path + ": string of " + std::to_string(*n) + " bytes, " +
                                std::to_string(r.left()) + " left"});
    Value v;
    v.str.assign(reinterpret_cast<const char*>(r.in.data() + r.pos), *n);
    r.pos += *n;
    return v;
  }
  if (f.type == BaseType::Nested && f.nested != nullptr)
    return read_message(*f.nested, r, path, depth + 1);
  return unexpected(Err{SerializationError::TypeMismatch,
                        path + ": unsupported field type " + std::string(to_string(f.type))});
}

Result<Value, Err> read_field(const FieldDescription& f, Reader& r, const std::string& path,
                              int depth) {
  uint64_t count = 1;
  if (f.array == ArrayKind::Fixed) count = f.array_size;
  if (f.array == ArrayKind::Unbounded || f.array == ArrayKind::Bounded) {
    auto n = read_u32(r, path);
    if (!n) return unexpected(n.error());
    count = *n;
    // Even an element of zero bytes counts one here: a length is never believed beyond the input.
    const uint64_t each = std::max<uint64_t>(1, min_element_size(f, depth));
    if (count > r.left() / each)
      return unexpected(Err{SerializationError::OversizeLength,
                            path + ": " + std::to_string(count) + " elements of at least " +
                                std::to_string(each) + " bytes, " + std::to_string(r.left()) +
                                " left"});
  }
  if (ros2::is_primitive(f.type)) {
    const uint64_t bytes = count * ros2::primitive_size(f.type);
    if (bytes > r.left()) return truncated(r, path, bytes);
    Value v;
    const uint8_t* p = r.in.data() + r.pos;
    if (r.mode == DecodeMode::View && f.array != ArrayKind::None && bytes != 0)
      v.view = std::span<const uint8_t>(p, bytes);
    else
      v.raw.assign(p, p + bytes);
    r.pos += bytes;
    return v;
  }
  if (f.array == ArrayKind::None) return read_one(f, r, path, depth);
  Value v;
  v.items.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    auto item = read_one(f, r, path + "[" + std::to_string(i) + "]", depth);
    if (!item) return unexpected(item.error());
    v.items.push_back(std::move(*item));
  }
  return v;
}

Result<Value, Err> read_message(const MessageDescription& d, Reader& r, const std::string& path,
                                int depth) {
  if (depth > MAX_DEPTH) return unexpected(Err{SerializationError::TooDeep, path});
  Value v;
  v.items.reserve(d.fields.size());
  for (const auto& f : d.fields) {
    auto item = read_field(f, r, path.empty() ? f.name : path + "." + f.name, depth);
    if (!item) return unexpected(item.error());
    v.items.push_back(std::move(*item));
  }
  return v;
}

}  // namespace

Result<uint64_t, Err> serialized_size(const MessageDescription& d, const Value& v) {
  Sink sink;
  if (auto s = write_message(d, v, sink, "", 0); !s) return unexpected(s.error());
  return sink.size;
}

Result<uint64_t, Err> serialize_into(const MessageDescription& d, const Value& v,
                                     std::span<uint8_t> out) {
  Sink sink{false, out.data(), out.size()};
  if (auto s = write_message(d, v, sink, "", 0); !s) return unexpected(s.error());
  if (sink.overflow)
    return unexpected(Err{SerializationError::BufferTooSmall,
                          d.name + ": needs " + std::to_string(sink.size) +
                              " bytes, the buffer has " + std::to_string(out.size())});
  return sink.size;
}

Result<std::vector<uint8_t>, Err> serialize(const MessageDescription& d, const Value& v) {
  auto size = serialized_size(d, v);
  if (!size) return unexpected(size.error());
  std::vector<uint8_t> out(*size);
  auto written = serialize_into(d, v, out);
  if (!written) return unexpected(written.error());
  return out;
}

Result<Value, Err> deserialize(const MessageDescription& d, std::span<const uint8_t> bytes,
                               DecodeMode mode) {
  Reader r{bytes, 0, mode};
  auto v = read_message(d, r, "", 0);
  if (!v) return v;
  if (r.left() != 0)
    return unexpected(Err{SerializationError::TrailingBytes,
                          d.package + "/" + d.name + ": " + std::to_string(r.left()) +
                              " bytes left after the message (" + std::to_string(r.pos) +
                              " used): the sender's type differs"});
  return v;
}

}  // namespace baton::ros1
