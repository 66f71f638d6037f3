// Seeded corruptions of a valid CDR sample, as a hostile or broken publisher could write them:
// the inputs of the rmw decoders' "never crashes" tests (C and C++ type supports).
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace baton::ros2::test {

// One corruption of `b` (at least 8 bytes): a few flipped bytes, a huge length at a 4-aligned
// offset (where lengths live), a truncation, or a flipped body byte with a garbage tail.
inline void corrupt_cdr(std::vector<uint8_t>& b, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) b[rng() % b.size()] = rng();
      break;
    case 1: {
      const size_t at = 4 + (rng() % ((b.size() - 8) / 4)) * 4;
      const uint32_t big = 0x40000000u + static_cast<uint32_t>(rng() % 0x3fffffff);
      std::memcpy(b.data() + at, &big, 4);
      break;
    }
    case 2:
      b.resize(rng() % b.size());
      break;
    default:
      b[4 + rng() % (b.size() - 4)] ^= 0xff;
      b.resize(b.size() + rng() % 16, 0xab);
  }
}

}  // namespace baton::ros2::test
