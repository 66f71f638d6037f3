// Large sample buffers of the DDS wire, kept for reuse (dds_wire.cpp). A 4K image stream
// allocates a 24.9 MB buffer per received sample; glibc hands such a block back to the kernel
// once it exceeds its mmap threshold (32 MiB at most) and every sanitizer allocator always does,
// so each new one costs ~6 000 page faults and 25 MB of zeroing, per image. Reused buffers are
// already mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace baton::ros2 {

// A buffer of exactly `size` bytes: a kept one whose capacity fits (at most twice `size`, so a
// small sample does not hold a huge buffer), else a new one. Contents are unspecified.
std::vector<uint8_t> take_sample_buffer(size_t size);

// Keeps `buffer` for a later take_sample_buffer if it is large (>= 1 MiB) and few are kept
// (4 at most); frees it otherwise.
void keep_sample_buffer(std::vector<uint8_t>&& buffer);

}  // namespace baton::ros2
