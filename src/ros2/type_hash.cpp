// RIHS01 type hash: see include/baton/ros2/type_hash.hpp.
#include "baton/ros2/type_hash.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

#include "baton/ros2/type_registry.hpp"

namespace baton::ros2 {
namespace {

// type_description_interfaces/msg/FieldType.msg
constexpr uint8_t FIELD_TYPE_NESTED_TYPE = 1;
constexpr uint8_t FIELD_TYPE_STRING = 17;
constexpr uint8_t FIELD_TYPE_WSTRING = 18;
constexpr uint8_t FIELD_TYPE_BOUNDED_STRING = 21;
constexpr uint8_t FIELD_TYPE_BOUNDED_WSTRING = 22;
constexpr uint8_t ARRAY_OFFSET = 48;
constexpr uint8_t BOUNDED_SEQUENCE_OFFSET = 96;
constexpr uint8_t UNBOUNDED_SEQUENCE_OFFSET = 144;

uint8_t base_id(const FieldDescription& f) noexcept {
  switch (f.type) {
    case BaseType::Nested:
      return FIELD_TYPE_NESTED_TYPE;
    case BaseType::Int8:
      return 2;
    case BaseType::UInt8:
      return 3;
    case BaseType::Char:
      return 3;  // .msg char is uint8 in IDL (rosidl_adapter)
    case BaseType::Int16:
      return 4;
    case BaseType::UInt16:
      return 5;
    case BaseType::Int32:
      return 6;
    case BaseType::UInt32:
      return 7;
    case BaseType::Int64:
      return 8;
    case BaseType::UInt64:
      return 9;
    case BaseType::Float32:
      return 10;
    case BaseType::Float64:
      return 11;
    case BaseType::Bool:
      return 15;
    case BaseType::Byte:
      return 16;
    case BaseType::String:
      return f.string_bound != 0 ? FIELD_TYPE_BOUNDED_STRING : FIELD_TYPE_STRING;
    case BaseType::WString:
      return f.string_bound != 0 ? FIELD_TYPE_BOUNDED_WSTRING : FIELD_TYPE_WSTRING;
  }
  return 0;
}

// Type and field names are identifiers; escape anyway as json.dumps(ensure_ascii=True) would.
void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void individual(std::string& out, const MessageDescription& d) {
  out += "{\"type_name\": ";
  json_string(out, d.full_name());
  out += ", \"fields\": [";
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const auto& f = d.fields[i];
    if (i > 0) out += ", ";
    out += "{\"name\": ";
    json_string(out, f.name);
    out += ", \"type\": {\"type_id\": " + std::to_string(field_type_id(f));
    const uint32_t capacity =
        f.array == ArrayKind::Fixed || f.array == ArrayKind::Bounded ? f.array_size : 0;
    out += ", \"capacity\": " + std::to_string(capacity);
    out += ", \"string_capacity\": " + std::to_string(f.string_bound);
    out += ", \"nested_type_name\": ";
    json_string(out, f.type == BaseType::Nested ? f.nested_type_name : "");
    out += "}}";
  }
  out += "]}";
}

// --- SHA-256 (FIPS 180-4) --------------------------------------------------------------------

constexpr uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void block(uint32_t h[8], const uint8_t* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
           uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 =
        hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

}  // namespace

std::array<uint8_t, 32> sha256(std::string_view data) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  size_t full = n / 64 * 64;
  for (size_t i = 0; i < full; i += 64) block(h, p + i);
  uint8_t tail[128] = {};
  size_t rest = n - full;
  std::memcpy(tail, p + full, rest);
  tail[rest] = 0x80;
  size_t tail_len = rest + 9 <= 64 ? 64 : 128;
  uint64_t bits = uint64_t{n} * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = uint8_t(bits >> (8 * i));
  block(h, tail);
  if (tail_len == 128) block(h, tail + 64);
  std::array<uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = uint8_t(h[i] >> (24 - 8 * j));
  return out;
}

uint8_t field_type_id(const FieldDescription& f) noexcept {
  uint8_t id = base_id(f);
  switch (f.array) {
    case ArrayKind::None:
      return id;
    case ArrayKind::Fixed:
      return uint8_t(id + ARRAY_OFFSET);
    case ArrayKind::Bounded:
      return uint8_t(id + BOUNDED_SEQUENCE_OFFSET);
    case ArrayKind::Unbounded:
      return uint8_t(id + UNBOUNDED_SEQUENCE_OFFSET);
  }
  return id;
}

std::string type_description_json(const MessageDescription& d) {
  std::string out = "{\"type_description\": ";
  individual(out, d);
  out += ", \"referenced_type_descriptions\": [";
  bool first = true;
  for (const auto* r : TypeRegistry::referenced_types(d)) {
    if (!first) out += ", ";
    first = false;
    individual(out, *r);
  }
  out += "]}";
  return out;
}

std::array<uint8_t, 32> type_hash_bytes(const MessageDescription& d) {
  return sha256(type_description_json(d));
}

std::string type_hash(const MessageDescription& d) { return format_type_hash(type_hash_bytes(d)); }

std::string format_type_hash(const std::array<uint8_t, 32>& bytes) {
  static constexpr char HEX[] = "0123456789abcdef";
  std::string out = "RIHS01_";
  for (uint8_t b : bytes) {
    out += HEX[b >> 4];
    out += HEX[b & 15];
  }
  return out;
}

topic::TypeInfo type_info(const MessageDescription& d) {
  topic::TypeInfo info;
  info.name = d.full_name();
  info.hash = type_hash_bytes(d);
  return info;
}

}  // namespace baton::ros2
