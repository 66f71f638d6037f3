// How the Python API sees one message as an array: dtype, shape and where the elements start.
// Shared by host loans / samples (baton_module.cpp) and device loans / samples (py_domain.cpp),
// so an array message means the same thing whichever memory domain it lives in:
//
//   array topics: [NdArrayHeader, 128 bytes][payload, C order]  (ndarray_header.hpp)
//   raw topics:   [payload]                                      (1-D uint8, the whole message)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ndarray_header.hpp"

namespace baton::py {

struct ArrayView {
  bool is_array = false;  // false: plain bytes (raw topic, or a message without a valid header)
  DType dtype;            // uint8 for bytes
  std::uint32_t ndim = 1;
  std::size_t shape[NDARRAY_MAX_DIMS] = {};
  std::uint64_t offset = 0;         // where the elements start in the message
  std::uint64_t payload_bytes = 0;  // element bytes
  std::uint64_t stamp_ns = 0;       // publish time (array messages), 0 if unknown
  std::string problem;              // why a message meant as an array is shown as bytes

  std::uint64_t message_size() const noexcept { return offset + payload_bytes; }
  std::vector<std::size_t> shape_vector() const { return {shape, shape + ndim}; }

  // A message of `size` bytes shown as bytes.
  static ArrayView bytes(std::uint64_t size) {
    ArrayView v;
    v.shape[0] = static_cast<std::size_t>(size);
    v.payload_bytes = size;
    return v;
  }

  // The view of a message whose first bytes are `first` (at least min(size, 128) of them were
  // copied there). Every header field is checked against `size` before it is believed (the
  // message is untrusted); a message that fails is shown as bytes with `problem` set.
  static ArrayView parse(const std::byte* first, std::uint64_t size, bool raw) {
    ArrayView v = bytes(size);
    if (raw) return v;
    if (size < sizeof(NdArrayHeader)) {
      v.problem = "message shorter than an array header";
      return v;
    }
    NdArrayHeader h;
    std::memcpy(&h, first, sizeof(h));
    v.problem = check_header(h, size);
    if (!v.problem.empty()) return v;
    v.is_array = true;
    v.dtype = {h.dtype_code, h.dtype_bits};
    v.ndim = h.ndim;
    for (std::uint32_t i = 0; i < v.ndim; ++i) v.shape[i] = static_cast<std::size_t>(h.shape[i]);
    v.offset = NDARRAY_PAYLOAD_OFFSET;
    v.payload_bytes = h.payload_bytes;
    v.stamp_ns = h.stamp_ns;
    return v;
  }

  // The view a publisher loans for: an array of `dtype` and `shape`, or (dtype unset) `nbytes`
  // bytes. nullopt with `why` set when the shape or size is unusable.
  static std::optional<ArrayView> plan(std::optional<DType> dtype,
                                       const std::vector<std::int64_t>& shape,
                                       std::optional<std::uint64_t> nbytes, std::string& why) {
    if (!dtype) {
      if (!nbytes) {
        why = "a raw loan needs a size in bytes";
        return std::nullopt;
      }
      return bytes(*nbytes);
    }
    if (shape.size() > NDARRAY_MAX_DIMS) {
      why = "at most 8 dimensions";
      return std::nullopt;
    }
    auto n = payload_bytes_of(shape.data(), static_cast<std::uint32_t>(shape.size()), *dtype);
    if (!n || *n > UINT64_MAX - NDARRAY_PAYLOAD_OFFSET) {
      why = "shape has a negative extent or overflows";
      return std::nullopt;
    }
    ArrayView v;
    v.is_array = true;
    v.dtype = *dtype;
    v.ndim = static_cast<std::uint32_t>(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) v.shape[i] = static_cast<std::size_t>(shape[i]);
    v.offset = NDARRAY_PAYLOAD_OFFSET;
    v.payload_bytes = *n;
    return v;
  }

  // The header an array message starts with (publish time `stamp_ns`).
  NdArrayHeader header(std::uint64_t stamp) const {
    std::int64_t s[NDARRAY_MAX_DIMS] = {};
    for (std::uint32_t i = 0; i < ndim; ++i) s[i] = static_cast<std::int64_t>(shape[i]);
    NdArrayHeader h = make_header(dtype, s, ndim, payload_bytes);
    h.stamp_ns = stamp;
    return h;
  }
};

}  // namespace baton::py
