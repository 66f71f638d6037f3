// Asks the kernel to back a large buffer that is about to be written in full with transparent
// huge pages (MADV_HUGEPAGE on its 2 MiB-aligned interior), so that filling it costs one page
// fault per 2 MiB instead of one per 4 KiB.
//
// Why: a 4K image (24.9 MB) lands in freshly mapped memory at least once per received sample
// where the allocator does not reuse blocks that large (every sanitizer allocator; glibc until
// its mmap threshold has grown): ~6 000 page faults per copy. Under ASan on the 2-vCPU VM the
// rmw take of one image into rclpy's message took 33-50 ms with 4 KiB faults, 15-25 ms with
// huge pages (CHANGELOG). The host's THP mode is usually "madvise", so nothing else enables it.
// Best effort: advice only, no byte changes; a kernel without THP ignores it.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace baton::ros2 {

inline constexpr size_t kHugePage = size_t{2} << 20;

inline void advise_huge_pages(void* begin, size_t length) noexcept {
  if (length < 2 * kHugePage) return;  // no aligned 2 MiB within, or not worth a system call
  const auto at = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (at + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
  const uintptr_t end = (at + length) & ~uintptr_t{kHugePage - 1};
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

}  // namespace baton::ros2
