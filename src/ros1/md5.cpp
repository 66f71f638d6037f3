// MD5 as RFC 1321 specifies it (section 3), written from the RFC's description.
#include "md5.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace baton::ros1::detail {
namespace {

constexpr std::array<uint32_t, 64> SHIFTS = {
    7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
    14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
    4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21};

// T[i] = floor(2^32 * |sin(i + 1)|), the RFC's table, computed once.
const std::array<uint32_t, 64>& sine_table() {
  static const std::array<uint32_t, 64> table = [] {
    std::array<uint32_t, 64> t{};
    for (size_t i = 0; i < t.size(); ++i)
      t[i] = static_cast<uint32_t>(std::floor(4294967296.0 * std::fabs(std::sin(i + 1.0))));
    return t;
  }();
  return table;
}

uint32_t rotl(uint32_t x, uint32_t c) { return (x << c) | (x >> (32 - c)); }

void compress(std::array<uint32_t, 4>& state, const uint8_t* block) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = uint32_t{block[i * 4]} | uint32_t{block[i * 4 + 1]} << 8 |
           uint32_t{block[i * 4 + 2]} << 16 | uint32_t{block[i * 4 + 3]} << 24;
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  const auto& t = sine_table();
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t f = 0, g = 0;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    const uint32_t next = b + rotl(a + f + t[i] + m[g], SHIFTS[i]);
    a = d;
    d = c;
    c = b;
    b = next;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}

}  // namespace

std::string md5_hex(std::string_view data) {
  std::array<uint32_t, 4> state = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  size_t whole = data.size() / 64 * 64;
  for (size_t off = 0; off < whole; off += 64)
    compress(state, reinterpret_cast<const uint8_t*>(data.data()) + off);
  // Padding: 0x80, zeros to 56 mod 64, then the bit length little-endian.
  uint8_t tail[128] = {};
  const size_t rest = data.size() - whole;
  if (rest != 0) std::memcpy(tail, data.data() + whole, rest);
  tail[rest] = 0x80;
  const size_t tail_len = rest < 56 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 8 + i] = static_cast<uint8_t>(bits >> (8 * i));
  for (size_t off = 0; off < tail_len; off += 64) compress(state, tail + off);
  static constexpr char HEX[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint32_t word : state)
    for (int byte = 0; byte < 4; ++byte) {
      const auto v = static_cast<uint8_t>(word >> (8 * byte));
      out.push_back(HEX[v >> 4]);
      out.push_back(HEX[v & 0xf]);
    }
  return out;
}

}  // namespace baton::ros1::detail
