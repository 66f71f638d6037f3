// Self-checking message payloads shared by the stress tests and their helper processes.
//
// | off | width | field  | meaning                                   |
// |   0 |     8 | magic  | PAYLOAD_MAGIC                             |
// |   8 |     8 | seq    | the writer's own message counter          |
// |  16 |     4 | writer | who wrote it (pid or a small id)          |
// |  20 |     4 | size   | total payload bytes, header included      |
// |  24 |   ... | body   | byte i = pattern(seq, writer, i)          |
//
// A reader checks the header and the body (every `stride`-th byte for large messages) when it
// takes a message and again before releasing it, so a chunk reused while still on loan shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace baton::stress {

inline constexpr std::uint64_t PAYLOAD_MAGIC = 0x44414f4c59415042ull;  // "BPAYLOAD"
inline constexpr std::uint32_t PAYLOAD_HEADER = 24;

inline std::uint8_t pattern(std::uint64_t seq, std::uint32_t writer, std::uint64_t i) {
  return static_cast<std::uint8_t>(seq * 131 + writer * 7 + i * 13 + (i >> 8));
}

inline void fill_payload(std::byte* p, std::uint32_t size, std::uint64_t seq,
                         std::uint32_t writer) {
  std::memcpy(p, &PAYLOAD_MAGIC, 8);
  std::memcpy(p + 8, &seq, 8);
  std::memcpy(p + 16, &writer, 4);
  std::memcpy(p + 20, &size, 4);
  for (std::uint64_t i = PAYLOAD_HEADER; i < size; ++i) {
    p[i] = static_cast<std::byte>(pattern(seq, writer, i));
  }
}

// True when `p` holds a payload written by fill_payload of exactly `size` bytes.
inline bool check_payload(const std::byte* p, std::uint64_t size, std::uint64_t stride = 1,
                          std::uint64_t* seq_out = nullptr, std::uint32_t* writer_out = nullptr) {
  if (size < PAYLOAD_HEADER) return false;
  std::uint64_t magic = 0, seq = 0;
  std::uint32_t writer = 0, sz = 0;
  std::memcpy(&magic, p, 8);
  std::memcpy(&seq, p + 8, 8);
  std::memcpy(&writer, p + 16, 4);
  std::memcpy(&sz, p + 20, 4);
  if (magic != PAYLOAD_MAGIC || sz != size) return false;
  for (std::uint64_t i = PAYLOAD_HEADER; i < size; i += stride) {
    if (p[i] != static_cast<std::byte>(pattern(seq, writer, i))) return false;
  }
  if (p[size - 1] != static_cast<std::byte>(pattern(seq, writer, size - 1)) &&
      size > PAYLOAD_HEADER) {
    return false;
  }
  if (seq_out) *seq_out = seq;
  if (writer_out) *writer_out = writer;
  return true;
}

// Type identity every stress topic uses.
inline constexpr const char* STRESS_TYPE = "baton_stress/msg/Payload";

}  // namespace baton::stress
