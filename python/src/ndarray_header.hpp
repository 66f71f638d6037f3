// The header baton's Python API puts at the start of every array message, so a subscriber sees
// the dtype and shape the publisher declared (per message: a topic's frames may change shape).
//
//   [NdArrayHeader, 128 bytes][payload: prod(shape) * bits/8 bytes, C order]
//
// Chunk payloads are 64-byte aligned, so the array data (at offset 128) is too.
//
// NdArrayHeader, 128 bytes (little-endian, written once before publish, then immutable):
// | off | width | field         | meaning                                                    |
// |   0 |     8 | magic         | "baton.nd"                                                 |
// |   8 |     2 | version       | NDARRAY_HEADER_VERSION                                     |
// |  10 |     2 | header_size   | 128; readers require exactly this (payload offset)         |
// |  12 |     1 | ndim          | 0..NDARRAY_MAX_DIMS                                        |
// |  13 |     1 | dtype_code    | DLPack type code: 0 int, 1 uint, 2 float, 5 complex, 6 bool |
// |  14 |     1 | dtype_bits    | bits per element: 8, 16, 32, 64 or 128                     |
// |  15 |     1 | device_type   | DLPack device type of the payload: 1 = kDLCPU (host)       |
// |  16 |     8 | payload_bytes | bytes after the header; must equal prod(shape) * bits / 8  |
// |  24 |     8 | stamp_ns      | publish time, CLOCK_REALTIME ns (0: unknown); `topic delay` |
// |  32 |    64 | shape[8]      | extents; entries >= ndim are zero                          |
// |  96 |    32 | reserved_1    | zero                                                       |
// Written when the loan is made, except stamp_ns: set by publish.
// Everything is untrusted on the reading side: parse() checks every field and the sizes (with
// overflow-safe arithmetic) against the message size before a view is made.
//
// Bump NDARRAY_HEADER_VERSION when a field changes width, order or meaning. It is part of the
// topic's type hash (see type_info_for_dtype), so a mismatched peer is refused at attach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

namespace baton::py {

inline constexpr std::uint16_t NDARRAY_HEADER_VERSION = 1;
inline constexpr std::uint32_t NDARRAY_MAX_DIMS = 8;
inline constexpr char NDARRAY_MAGIC[8] = {'b', 'a', 't', 'o', 'n', '.', 'n', 'd'};

struct NdArrayHeader {
  char magic[8];
  std::uint16_t version;
  std::uint16_t header_size;
  std::uint8_t ndim;
  std::uint8_t dtype_code;
  std::uint8_t dtype_bits;
  std::uint8_t device_type;
  std::uint64_t payload_bytes;
  std::uint64_t stamp_ns;
  std::int64_t shape[NDARRAY_MAX_DIMS];
  std::uint8_t reserved_1[32];
};
static_assert(sizeof(NdArrayHeader) == 128);
static_assert(alignof(NdArrayHeader) == 8);
static_assert(offsetof(NdArrayHeader, version) == 8);
static_assert(offsetof(NdArrayHeader, header_size) == 10);
static_assert(offsetof(NdArrayHeader, ndim) == 12);
static_assert(offsetof(NdArrayHeader, dtype_code) == 13);
static_assert(offsetof(NdArrayHeader, dtype_bits) == 14);
static_assert(offsetof(NdArrayHeader, device_type) == 15);
static_assert(offsetof(NdArrayHeader, payload_bytes) == 16);
static_assert(offsetof(NdArrayHeader, stamp_ns) == 24);
static_assert(offsetof(NdArrayHeader, shape) == 32);
static_assert(offsetof(NdArrayHeader, reserved_1) == 96);
static_assert(std::is_standard_layout_v<NdArrayHeader>);
static_assert(std::is_trivially_copyable_v<NdArrayHeader>);

inline constexpr std::uint64_t NDARRAY_PAYLOAD_OFFSET = sizeof(NdArrayHeader);

struct DType {
  std::uint8_t code = 1;  // DLPack kDLUInt
  std::uint8_t bits = 8;
  bool operator==(const DType&) const = default;
};

inline bool dtype_valid(DType d) {
  const bool bits_ok =
      d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64 || (d.bits == 128 && d.code == 5);
  return bits_ok && (d.code <= 2 || d.code == 5 || (d.code == 6 && d.bits == 8));
}

// Element count * element size, or nullopt on overflow / bad extents.
inline std::optional<std::uint64_t> payload_bytes_of(const std::int64_t* shape, std::uint32_t ndim,
                                                     DType d) {
  std::uint64_t n = d.bits / 8;
  for (std::uint32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return std::nullopt;
    const auto e = static_cast<std::uint64_t>(shape[i]);
    if (e != 0 && n > UINT64_MAX / e) return std::nullopt;
    n *= e;
  }
  return n;
}

inline NdArrayHeader make_header(DType d, const std::int64_t* shape, std::uint32_t ndim,
                                 std::uint64_t payload) {
  NdArrayHeader h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, NDARRAY_MAGIC, sizeof(h.magic));
  h.version = NDARRAY_HEADER_VERSION;
  h.header_size = sizeof(NdArrayHeader);
  h.ndim = static_cast<std::uint8_t>(ndim);
  h.dtype_code = d.code;
  h.dtype_bits = d.bits;
  h.device_type = 1;
  h.payload_bytes = payload;
  for (std::uint32_t i = 0; i < ndim; ++i) h.shape[i] = shape[i];
  return h;
}

// Validates a header read from a message of `message_size` bytes. Empty when sound; otherwise
// what is wrong (the message is then shown as plain bytes).
inline std::string check_header(const NdArrayHeader& h, std::uint64_t message_size) {
  if (message_size < sizeof(NdArrayHeader)) return "message shorter than an array header";
  if (std::memcmp(h.magic, NDARRAY_MAGIC, sizeof(h.magic)) != 0) return "no array header";
  if (h.version != NDARRAY_HEADER_VERSION) {
    return "array header version " + std::to_string(h.version) + ", expected " +
           std::to_string(NDARRAY_HEADER_VERSION);
  }
  if (h.header_size != sizeof(NdArrayHeader)) return "array header size mismatch";
  if (h.ndim > NDARRAY_MAX_DIMS) return "array header ndim out of range";
  if (!dtype_valid({h.dtype_code, h.dtype_bits})) return "array header dtype invalid";
  if (h.device_type != 1) return "array header device type unsupported";
  auto n = payload_bytes_of(h.shape, h.ndim, {h.dtype_code, h.dtype_bits});
  if (!n || *n != h.payload_bytes) return "array header shape does not match its payload size";
  if (h.payload_bytes > message_size - sizeof(NdArrayHeader)) return "array header past message";
  return {};
}

}  // namespace baton::py
