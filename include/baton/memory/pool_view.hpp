// A reader's view of one publisher's chunk pool: data segments are opened by name on first use
// and every field read from them is bounds-checked before it is trusted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/memory/chunk_layout.hpp"
#include "baton/memory/pool_prefault.hpp"
#include "baton/shm/segment.hpp"

namespace baton::memory {

// A resolved chunk: its control word and payload bytes in this process's mapping.
struct ChunkAccess {
  ChunkControl* control = nullptr;
  std::byte* data = nullptr;
  std::uint64_t capacity = 0;
};

enum class ResolveError : std::uint8_t {
  SegmentUnavailable,  // The data segment could not be opened (publisher gone or corrupt).
  OutOfRange,          // The reference names a segment or chunk that does not exist.
};

// Name of data segment `index` of the pool named `pool_name`.
std::string data_segment_name(const std::string& pool_name, std::uint32_t index);

// Validates a mapped data segment's header against its file size; returns an empty string when
// it is sound, otherwise what is wrong.
std::string validate_data_segment(const shm::Segment& seg, std::uint32_t expected_index);
// The same check, returning the geometry it checked (each field read once).
Result<DataGeometry, std::string> data_geometry(const shm::Segment& seg,
                                                std::uint32_t expected_index);

class PoolView {
 public:
  explicit PoolView(std::string pool_name) : pool_name_(std::move(pool_name)) {}

  const std::string& pool_name() const noexcept { return pool_name_; }

  // Resolves `ref`, opening its segment if needed, and says why it cannot.
  Result<ChunkAccess, ResolveError> resolve(ChunkRef ref);
  // resolve() for the take and publish paths, which resolve twice per message (issue 20,
  // busy-poll): fills *out and returns true, or returns false where resolve() returns an error.
  // O(1) once the segment is mapped. Inline and without a Result: GCC builds the Result (a
  // std::variant) on the stack and copies it out with loads wider than the stores that built it,
  // a store-forwarding stall per call (perf annotate of baton-bench-path-cost).
  bool try_resolve(ChunkRef ref, ChunkAccess* out) noexcept {
    const std::uint32_t si = chunk_segment(ref);
    if (si < segments_.size() && segments_[si].segment) return locate(segments_[si], ref, out);
    auto r = resolve(ref);  // cold: maps the segment first
    if (!r) return false;
    *out = *r;
    return true;
  }

  // Adopts a segment this process maps already (the owner's pool shares its mappings; a
  // departed publisher leaves them to its process's subscribers). A mapped index keeps its
  // mapping: samples may be reading it.
  void adopt(std::uint32_t index, std::shared_ptr<shm::Segment> segment);

  // Makes the first take of each chunk cheap (memory/pool_prefault.hpp): maps the segments
  // [0, segment_count) the owner has announced (PublisherHeader::data_segment_count) that are
  // not mapped yet, and pre-maps the control words and first payload page of every chunk the
  // owner has committed since the last call (DataSegmentHeader::committed_chunks). A reader
  // calls it when it attaches and while it is idle; with nothing new it only loads one word per
  // segment. Returns the chunks it pre-mapped. Same thread as resolve().
  std::uint32_t map_ahead(std::uint32_t segment_count) noexcept;

  // Maps the data segments [0, count) not mapped yet (count clamped to MAX_DATA_SEGMENTS); true
  // if all of them are mapped now. What a reader does before a departing owner unlinks the
  // names: afterwards only the mappings it holds can resolve references.
  bool map_all(std::uint32_t count);

 private:
  bool map(std::uint32_t index);  // opens and validates segment `index` if not mapped yet

  // A mapped data segment and the geometry validated when it was mapped. resolve() uses this
  // private copy, never the header again: the owner writes the geometry once, before the
  // segment is ready, so a header that changes later is corrupt, and the copy keeps every
  // reference within the mapping whatever the header says by then. (resolve() re-read and
  // re-checked five header fields on every call: ~7 ns of each take, issue 20.)
  struct Mapped {
    std::shared_ptr<shm::Segment> segment;
    DataGeometry geometry;
  };
  // `ref`'s chunk in mapped segment `m`, checked against the geometry validated at mapping
  // (data_geometry): every chunk index below its count lies within the mapping.
  // False (OutOfRange) if it lies beyond them.
  static bool locate(const Mapped& m, ChunkRef ref, ChunkAccess* out) noexcept {
    const std::uint32_t ci = chunk_index(ref);
    const DataGeometry& g = m.geometry;
    if (ci >= g.count) return false;
    std::byte* base = m.segment->base();
    out->control = reinterpret_cast<ChunkControl*>(base + g.control + ci * sizeof(ChunkControl));
    out->data = base + g.data + ci * g.stride;
    out->capacity = g.capacity;
    return true;
  }
  // Maps `segment` at `index` if its geometry is sound; false if it is not.
  bool install(std::uint32_t index, std::shared_ptr<shm::Segment> segment);

  std::string pool_name_;
  std::vector<Mapped> segments_;          // index = segment index
  std::vector<std::uint32_t> premapped_;  // chunks [0, n) pre-mapped, per segment
  std::uint32_t tried_segments_ = 0;      // map_ahead tried to open [0, n)
};

}  // namespace baton::memory
