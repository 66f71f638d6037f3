// Layout of a data segment: one size class of one publisher's chunk pool.
//
// [SegmentHeader 64][DataSegmentHeader 64][ChunkControl x count][pad][chunks x count]
//
// pad: to the chunk stride, at most a page (ChunkPool::create_segment), so every chunk is aligned
// to its size up to a page and a small class's segment is as few pages as its bytes need.
// Readers take the offsets from DataSegmentHeader and check them (pool_view.cpp).
//
// A chunk is referenced by a ChunkRef (segment index, chunk index) rather than a pointer, so any
// process can resolve it in its own mapping. Control words sit apart from payloads, so a reader
// bumping a reference never shares a line with another chunk's payload.
//
// ChunkControl (128 bytes, two cache lines):
// | off | width | field        | writer                 | readers       | ordering               |
// |-----|-------|--------------|------------------------|---------------|------------------------|
// |   0 |     8 | refs         | publisher, subscribers | all           | RMW, see chunk_refs.hpp|
// |   8 |     8 | seq          | publisher (loaned)     | subscribers   | before "row-publish"   |
// |  16 |     8 | payload_size | publisher (loaned)     | subscribers   | before "row-publish"   |
// |  24 |     8 | timestamp_ns | publisher (loaned)     | subscribers   | before "row-publish"   |
// |  32 |     8 | payload_offset | publisher (loaned)   | subscribers   | before "row-publish"   |
// |  40 |    24 | reserved     | -                      | -             | zero                   |
// |  64 |    32 | refs_ext[4]  | subscribers 63..318    | all           | seq_cst RMW            |
// |  96 |    32 | reserved     | -                      | -             | zero                   |
//
// refs: bit 63 (PUBLISHER_REF) is held while the publisher has the chunk on loan or in its ring
// of rows; bit k < 63 is held while subscriber slot k has it on loan; subscriber slots from 63 on
// hold a bit of refs_ext (chunk_refs.hpp). The chunk is free when every reference word is 0, and
// only the owning publisher moves it out of 0 (allocation), so a free chunk can never be
// resurrected by a reader. refs_ext sits on its own line (SEGMENT_LAYOUT_VERSION 5): the
// publisher and subscriber slots 0..62 never write it, so a topic with few subscribers moves
// the same one control line per message as with a single 64-bit word.
//
// payload_offset: the message is the payload_size bytes starting payload_offset bytes into the
// chunk (0 for almost every publisher). It exists so that rmw_baton_cpp can put a CDR sample's
// 4-byte encapsulation header at chunk + 4 and the C struct of a fixed-size type at chunk + 8,
// 8-aligned: a subscriber then loans that struct in place (src/ros2/rmw/loan_layout.hpp).
// Subscribers treat offset + size > capacity as a corrupt chunk (skipped, counted as lost).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "baton/shm/segment_layout.hpp"

namespace baton::memory {

inline constexpr std::uint64_t PUBLISHER_REF = 1ull << 63;
// Subscriber slots 0..62 hold a bit of `refs`, slots 63.. a bit of refs_ext[(slot - 63) / 64].
inline constexpr std::uint32_t WORD0_SUBSCRIBER_BITS = 63;
inline constexpr std::uint32_t EXT_REF_WORDS = 4;
inline constexpr std::uint32_t MAX_SUBSCRIBER_BITS = WORD0_SUBSCRIBER_BITS + 64 * EXT_REF_WORDS;
inline constexpr std::uint32_t MAX_DATA_SEGMENTS = 255;
inline constexpr std::uint32_t MAX_CHUNKS_PER_SEGMENT = 1u << 24;
inline constexpr std::uint64_t DATA_PAGE = 4096;

// Whether a message of `size` bytes at `offset` lies inside a chunk of `capacity` bytes, without
// overflow: the publisher's check at publish and every reader's check of untrusted control words.
constexpr bool payload_fits(std::uint64_t offset, std::uint64_t size, std::uint64_t capacity) {
  return offset <= capacity && size <= capacity - offset;
}

// (segment index << 24) | chunk index; INVALID_CHUNK marks "none".
using ChunkRef = std::uint32_t;
inline constexpr ChunkRef INVALID_CHUNK = 0xFFFFFFFFu;
constexpr ChunkRef make_chunk_ref(std::uint32_t segment, std::uint32_t chunk) {
  return (segment << 24) | (chunk & 0xFFFFFFu);
}
constexpr std::uint32_t chunk_segment(ChunkRef r) { return r >> 24; }
constexpr std::uint32_t chunk_index(ChunkRef r) { return r & 0xFFFFFFu; }

struct DataSegmentHeader {
  std::uint64_t chunk_capacity;  // payload bytes per chunk
  std::uint64_t chunk_stride;    // distance between chunk payloads (>= capacity, 64-aligned)
  std::uint64_t control_offset;  // from segment base
  std::uint64_t data_offset;     // from segment base
  std::uint32_t chunk_count;
  std::uint32_t segment_index;  // must equal the index it is opened as
  // Chunks [0, committed_chunks) have their pages reserved (the owner stores it, release, after
  // each commit): what a reader may pre-map without allocating anything (PoolView::map_ahead).
  // Untrusted: clamped to chunk_count. 0 from an owner that predates it (nothing pre-mapped).
  std::atomic<std::uint64_t> committed_chunks;
  std::uint64_t reserved_0[2];
};
static_assert(sizeof(DataSegmentHeader) == 64);
static_assert(offsetof(DataSegmentHeader, chunk_stride) == 8);
static_assert(offsetof(DataSegmentHeader, control_offset) == 16);
static_assert(offsetof(DataSegmentHeader, data_offset) == 24);
static_assert(offsetof(DataSegmentHeader, chunk_count) == 32);
static_assert(offsetof(DataSegmentHeader, segment_index) == 36);
static_assert(offsetof(DataSegmentHeader, committed_chunks) == 40);
static_assert(std::is_standard_layout_v<DataSegmentHeader>);

struct alignas(64) ChunkControl {
  std::atomic<std::uint64_t> refs;
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> payload_size;
  std::atomic<std::uint64_t> timestamp_ns;
  std::atomic<std::uint64_t> payload_offset;  // SEGMENT_LAYOUT_VERSION 3
  std::uint64_t reserved_0[3];
  alignas(64) std::atomic<std::uint64_t> refs_ext[EXT_REF_WORDS];  // SEGMENT_LAYOUT_VERSION 5
  std::uint64_t reserved_1[8 - EXT_REF_WORDS];
};
static_assert(sizeof(ChunkControl) == 128);
static_assert(alignof(ChunkControl) == 64);
static_assert(offsetof(ChunkControl, seq) == 8);
static_assert(offsetof(ChunkControl, payload_size) == 16);
static_assert(offsetof(ChunkControl, timestamp_ns) == 24);
static_assert(offsetof(ChunkControl, payload_offset) == 32);
static_assert(offsetof(ChunkControl, refs_ext) == 64);
static_assert(std::is_standard_layout_v<ChunkControl>);

inline constexpr std::uint64_t DATA_HEADER_OFFSET = sizeof(shm::SegmentHeader);

}  // namespace baton::memory
