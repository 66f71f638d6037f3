// Making a reader's first touch of a chunk cheap: filling this process's page tables for the
// parts of a data segment a take() touches, ahead of the take.
//
// Why: a subscriber maps a publisher's data segment lazily, and its first touch of each page is a
// page fault (~5 µs on the 2-vCPU VM: tmpfs lookup plus fault-around). A stream cycles through
// several chunks (a keep-last ring holds depth + 2 of small messages; a volatile publisher of
// large ones reuses two while its readers keep up, more when they fall behind), and each one's
// first take paid one fault for the chunk's control words' page and one for its first payload
// page (issue 20, "cold start"). Populated ahead they cost nothing.
//
// What is populated and what it costs: the control words of the chunks the owner has committed
// and the first page of each chunk's payload (the whole range for chunks under a page) — what a
// take and a header read touch. Not the whole payload: that would put the publisher's entire
// pool into every subscriber's resident set (75 MiB at 4 MiB x 18 chunks). No memory is
// allocated: the pages are the owner's committed ones (committed_chunks), shared; a subscriber
// gains at most one page per chunk of resident shared memory plus its page-table entries.
#pragma once

#include <cstddef>
#include <cstdint>

#include "baton/memory/chunk_layout.hpp"

namespace baton::memory {

// A data segment's geometry, read once from its header and checked against the mapping.
struct DataGeometry {
  std::uint64_t capacity = 0, stride = 0, control = 0, data = 0;
  std::uint32_t count = 0;
};

enum class PrefaultFor : std::uint8_t { Read, Write };

// Fills the page tables of [begin, begin + length) (widened to whole pages) of a shared mapping
// without changing a byte (MADV_POPULATE_READ / _WRITE; on kernels without them, a read of each
// page). Best effort: a failure only leaves the pages to fault later.
void prefault_range(const void* begin, std::uint64_t length, PrefaultFor what) noexcept;

// Pre-maps, in the segment mapped at `base` with geometry `g`, the control words of chunks
// [first, end) (for writing: pins set reference bits) and the first page of each one's payload
// (for reading). `end` must not exceed g.count.
void prefault_reader_chunks(std::byte* base, const DataGeometry& g, std::uint32_t first,
                            std::uint32_t end) noexcept;

}  // namespace baton::memory
