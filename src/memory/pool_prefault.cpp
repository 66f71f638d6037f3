#include "baton/memory/pool_prefault.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace baton::memory {

void prefault_range(const void* begin, std::uint64_t length, PrefaultFor what) noexcept {
  if (length == 0) return;
  const auto first = reinterpret_cast<std::uintptr_t>(begin) / DATA_PAGE * DATA_PAGE;
  const auto end =
      (reinterpret_cast<std::uintptr_t>(begin) + length + DATA_PAGE - 1) / DATA_PAGE * DATA_PAGE;
  auto* p = reinterpret_cast<std::byte*>(first);
  const int advice = what == PrefaultFor::Write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ;
  if (::madvise(p, end - first, advice) == 0 || errno != EINVAL) return;
  // Before Linux 5.14: a read of each page maps it (writable too: tmpfs has no write-notify).
  for (std::uintptr_t a = first; a < end; a += DATA_PAGE) {
    (void)*reinterpret_cast<const volatile std::byte*>(a);
  }
}

void prefault_reader_chunks(std::byte* base, const DataGeometry& g, std::uint32_t first,
                            std::uint32_t end) noexcept {
  end = std::min(end, g.count);
  if (first >= end) return;
  prefault_range(base + g.control + first * sizeof(ChunkControl),
                 (end - first) * sizeof(ChunkControl), PrefaultFor::Write);
  if (g.stride <= DATA_PAGE) {  // chunks share pages: the whole range is their first pages
    prefault_range(base + g.data + first * g.stride, (end - first) * g.stride, PrefaultFor::Read);
    return;
  }
  for (std::uint32_t i = first; i < end; ++i) {
    prefault_range(base + g.data + i * g.stride, std::min(g.capacity, DATA_PAGE),
                   PrefaultFor::Read);
  }
}

}  // namespace baton::memory
