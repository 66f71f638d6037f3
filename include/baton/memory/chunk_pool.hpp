// A publisher's own chunk pool: size-classed chunks in POSIX shared-memory data segments.
//
// Why size classes and not TLSF: chunks are handed between processes by reference, their
// control words must stay at fixed offsets, and frees arrive from other processes. A free list
// per power-of-two class gives O(1) allocate and free with no shared allocator state at all —
// the free lists live in the owner's private memory, so a crashed reader can never corrupt them.
// Unused tail bytes of a chunk cost address space, not memory: tmpfs only backs pages written.
//
// Only the owner allocates; any process may drop a reference (ChunkControl::refs) and, when it
// drops the last one, hands the chunk back through a return queue (topic layer); the owner then
// calls give_back(). A chunk is put on a free list only if refs == 0 and it is not listed
// already, so duplicate or stale hand-backs are harmless.
//
// Growth adds a segment for the class; existing segments never move, so outstanding loans stay
// valid. Thread safety: one thread at a time (the owning publisher serialises its calls).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/memory/chunk_layout.hpp"
#include "baton/memory/pool_view.hpp"
#include "baton/shm/segment.hpp"

namespace baton::memory {

struct PoolConfig {
  std::uint64_t max_chunk_size = 256ull << 20;  // largest single loan (>= 64 MiB required)
  std::uint64_t max_total_bytes = 16ull << 30;  // growth stops here (address space, not RAM)
  std::uint32_t initial_small_chunks = 64;      // per segment, classes <= 64 KiB
  std::uint32_t initial_large_chunks = 4;       // per segment, larger classes
  std::uint32_t segment_mode = 0600;
};

enum class AllocError : std::uint8_t {
  TooLarge,     // The size exceeds PoolConfig::max_chunk_size.
  OutOfMemory,  // Growth limit reached or /dev/shm is full: release loans or raise limits.
};

constexpr std::string_view to_string(AllocError e) noexcept {
  switch (e) {
    case AllocError::TooLarge:
      return "message larger than the pool's maximum chunk size";
    case AllocError::OutOfMemory:
      return "chunk pool exhausted (growth limit or /dev/shm full)";
  }
  return "unknown";
}

struct Allocation {
  ChunkRef ref = INVALID_CHUNK;
  ChunkControl* control = nullptr;
  std::byte* data = nullptr;
  std::uint64_t capacity = 0;
};

class ChunkPool {
 public:
  ChunkPool(std::string pool_name, PoolConfig config);
  ~ChunkPool();  // unlinks the pool's data segments; readers' mappings stay valid
  ChunkPool(ChunkPool&&) = delete;

  // Takes a free chunk of at least `size` bytes (growing the pool if none is free); the chunk
  // comes back with refs == PUBLISHER_REF and seq == NO_SEQ.
  Result<Allocation, AllocError> allocate(std::uint64_t size);

  // Hints the CPU to fetch, for writing, the control word and first payload line of the chunk
  // allocate(size) would return next, so the next loan does not wait for them.
  void prefetch_next(std::uint64_t size) noexcept;

  // True if allocate(size) would not need to grow the pool.
  bool has_free(std::uint64_t size) const;

  // True while `ref` is allocated and not yet handed to end_loan() (owner-private bookkeeping,
  // so a peer corrupting shared control words cannot make a loan look valid).
  bool on_loan(ChunkRef ref) const noexcept;
  // Marks the loan of `ref` as consumed (published or discarded); its PUBLISHER_REF stays.
  void end_loan(ChunkRef ref) noexcept;

  // Drops the owner's PUBLISHER_REF; frees the chunk if that was the last reference.
  void release_publisher_ref(ChunkRef ref);

  // A chunk someone believes is free: listed if refs == 0 and not listed yet.
  void give_back(ChunkRef ref);

  // Re-lists every chunk whose refs are 0 but that is not listed (after a peer died mid-release).
  std::uint32_t sweep();

  // Resolves a reference within this pool (bounds-checked).
  Result<ChunkAccess, ResolveError> resolve(ChunkRef ref) { return view_.resolve(ref); }

  // Where to record the number of data segments (so a cleaner can unlink them all if the owner
  // dies); updated before each new segment is created.
  void track_segment_count(std::atomic<std::uint32_t>* out) noexcept { count_out_ = out; }

  const std::string& name() const noexcept { return name_; }
  std::uint32_t segment_count() const noexcept {
    return static_cast<std::uint32_t>(segments_.size());
  }
  std::uint64_t chunk_count() const noexcept;
  std::uint64_t free_count() const noexcept;

  static constexpr std::uint64_t NO_SEQ = ~0ull;
  static constexpr std::uint32_t SMALLEST_CLASS_SHIFT = 8;  // 256 B
  static std::uint32_t size_class(std::uint64_t size);

 private:
  struct OwnedSegment {
    std::shared_ptr<shm::Segment> segment;
    std::uint32_t size_class = 0;
    std::uint32_t chunk_count = 0;
    std::vector<std::uint8_t> listed;   // owner-private: chunk is on a free list
    std::vector<std::uint8_t> on_loan;  // owner-private: allocated, not yet published
  };
  Result<std::uint32_t, AllocError> grow(std::uint32_t size_class);
  void list(ChunkRef ref);

  std::string name_;
  PoolConfig config_;
  PoolView view_;
  std::vector<std::unique_ptr<OwnedSegment>> segments_;
  std::vector<std::vector<ChunkRef>> free_;  // per size class, LIFO: reuse cache-warm chunks
  std::uint64_t total_bytes_ = 0;
  std::atomic<std::uint32_t>* count_out_ = nullptr;
};

}  // namespace baton::memory
