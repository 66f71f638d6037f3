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
// calls give_back(). A chunk is put on a free list only if every reference word is 0
// (chunk_refs.hpp) and it is not listed already, so duplicate or stale hand-backs are harmless.
//
// Growth adds a segment for the class; existing segments never move, so outstanding loans stay
// valid. Thread safety: one thread at a time (the owning publisher serialises its calls).
#pragma once

#include <atomic>
#include <bit>
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
  // Chunks the owner can hold at once: a publisher's ring depth + the loan being filled + a
  // sample a reader holds (PublisherPort sets depth + 2; 0 = unknown). A class's first segment
  // is sized for that many — address space only, chunks are committed as they are first needed
  // — and after each publish the port commits the next one ahead while the class has fewer.
  std::uint32_t expected_outstanding = 0;
  // Largest address-space step of one on-demand growth, so that e.g. a 64 MiB class with a deep
  // ring does not take GiBs of max_total_bytes at once (reserve() is exempt: it asked).
  std::uint64_t max_segment_bytes = 1ull << 30;
  // reserve() commits every chunk it makes room for at once, not as loans first need them: no
  // commit after start-up and a full /dev/shm is a reserve() error, at the price of count x size
  // of tmpfs whether the stream ever writes that many (pre-faulting is the same either way).
  bool commit_reservations = false;
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

enum class ReserveError : std::uint8_t {
  TooLarge,      // The size exceeds PoolConfig::max_chunk_size: raise max_message_size.
  InvalidCount,  // count is 0 or above MAX_CHUNKS_PER_SEGMENT.
  OverBudget,    // The chunks exceed max_total_bytes or the segment limit: reserve fewer, or
                 // raise max_pool_bytes.
  NoSpace,       // /dev/shm could not provide the memory: free space (`baton doctor`).
};

constexpr std::string_view to_string(ReserveError e) noexcept {
  switch (e) {
    case ReserveError::TooLarge:
      return "reservation larger than the pool's maximum chunk size";
    case ReserveError::InvalidCount:
      return "reservation count out of range";
    case ReserveError::OverBudget:
      return "reservation exceeds the pool's size limit";
    case ReserveError::NoSpace:
      return "shared memory full";
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

  // Takes a free chunk of at least `size` bytes; the chunk comes back with refs ==
  // PUBLISHER_REF and seq == NO_SEQ. If the size's class has none free, a chunk of a larger
  // class that was reserve()d is taken instead (committing one its reservation made room for,
  // if none is free); only then does the pool grow, by one commit step (one chunk, or 256 KiB
  // worth of small ones) — not by a whole segment. OutOfMemory if /dev/shm cannot commit it.
  Result<Allocation, AllocError> allocate(std::uint64_t size) {
    Allocation a;
    AllocError e{};
    if (!try_allocate(size, &a, &e)) return unexpected(e);
    return a;
  }
  // allocate() for the loan path: fills *out (true) or *error (false). A Result returned by
  // value is copied out through the stack with loads wider than the stores that built it, a
  // store-forwarding stall per message (issue 20, busy-poll).
  bool try_allocate(std::uint64_t size, Allocation* out, AllocError* error);

  // Makes room for `count` chunks for loans of up to `size` bytes, so the next `count`
  // allocations of any size <= `size` never create a segment or run into max_total_bytes (the
  // cost a camera driver with a known frame size wants to pay at start-up, not on frame 2).
  // Chunks under WARM_FIRST_MIN_BYTES are committed and pre-faulted now (they share pages and
  // cost little). Of larger ones the first RESERVE_WARM_CHUNKS are committed and pre-faulted
  // now; the others are address space until an allocation needs one: allocate() (or
  // prepare_ahead(), after a publish, off the next loan's path) commits it then, and allocate()
  // pre-faults it as far as that loan's size. Why not all at once: a publisher whose
  // subscribers keep up writes one chunk, not `count` (PublisherPort reuses it, see
  // next_is_cold), and a committed chunk takes tmpfs pages (RAM) whether it is ever written or
  // not (18 x 4 MiB = 72 MiB for depth 16). A chunk is handed out only once committed, so a
  // full /dev/shm is an allocate() error (OutOfMemory), never a SIGBUS in a writer or reader.
  // PoolConfig::commit_reservations commits all `count` now instead.
  // Returns the number of chunks it added (0 if that many were free already). Cold path; on
  // error the pool is unchanged except for segments it could not fill (never handed out).
  Result<std::uint32_t, Error<ReserveError>> reserve(std::uint64_t size, std::uint32_t count);
  // True if allocate(size) would grow the pool, or hand out a chunk of WARM_FIRST_MIN_BYTES or
  // more that this process has not written or pre-faulted yet: the moment to take back chunks
  // the readers are done with first (PublisherPort), so a stream keeps writing the same few.
  bool next_is_cold(std::uint64_t size) const noexcept;

  // After a publish: if `size`'s class has no free chunk and fewer chunks than
  // expected_outstanding, or a reservation has chunks not committed yet, commits one more step
  // now, so the next loan does not wait for it.
  // Errors are left for the next allocate() to report.
  void prepare_ahead(std::uint64_t size) noexcept;

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
  bool try_resolve(ChunkRef ref, ChunkAccess* out) noexcept { return view_.try_resolve(ref, out); }

  // Where to record the number of data segments (so a cleaner can unlink them all if the owner
  // dies); updated before each new segment is created.
  void track_segment_count(std::atomic<std::uint32_t>* out) noexcept { count_out_ = out; }

  const std::string& name() const noexcept { return name_; }
  const PoolConfig& config() const noexcept { return config_; }
  std::uint32_t segment_count() const noexcept {
    return static_cast<std::uint32_t>(segments_.size());
  }
  // This process's mappings of the data segments, by index: what a publisher that leaves hands
  // to the readers of its own process that still have messages to drain (they stay readable
  // after ~ChunkPool unlinks the names).
  std::vector<std::shared_ptr<shm::Segment>> mappings() const;
  // Chunks committed so far (allocatable); a segment's uncommitted tail is not counted.
  std::uint64_t chunk_count() const noexcept;
  std::uint64_t free_count() const noexcept;
  // Bytes of /dev/shm committed (segment heads and committed chunks) and of address space taken
  // (what max_total_bytes limits).
  std::uint64_t committed_bytes() const noexcept { return committed_bytes_; }
  std::uint64_t address_bytes() const noexcept { return total_bytes_; }

  static constexpr std::uint64_t NO_SEQ = ~0ull;
  // 64 B: one cache line, so chunks of a small message share no line, and a 64 B stream's
  // controls and chunks fit one page (issue 20, memory; 256 B before).
  static constexpr std::uint32_t SMALLEST_CLASS_SHIFT = 6;
  // Smallest amount one commit step makes ready (small chunks are committed this many at once).
  static constexpr std::uint64_t COMMIT_STEP_BYTES = 256u << 10;
  // Chunks from this size up are handed out warm first (next_is_cold) and pre-faulted one at a
  // time (reserve); smaller ones cost little, so all of them are pre-faulted. Why 1 MiB: reusing
  // warm chunks costs the publisher a read of every subscriber's cursor line per publish, which
  // the subscribers write on every take. That is noise beside writing a message of 1 MiB, but
  // it raised scenario A's median at 60 000 B (64 KiB chunks) from 4.1 to 7.5 us, while a 64 KiB
  // stream's whole ring of depth + 2 chunks is about 1 MiB resident (1.05x iceoryx2's).
  static constexpr std::uint64_t WARM_FIRST_MIN_BYTES = 1u << 20;
  // Large chunks reserve() commits and pre-faults at once: the one a stream whose reader keeps
  // up writes again and again (PublisherPort reuses it once taken). A reader that falls behind
  // costs one more chunk, committed after a publish (prepare_ahead) and pre-faulted by the loan.
  static constexpr std::uint32_t RESERVE_WARM_CHUNKS = 1;
  static std::uint32_t size_class(std::uint64_t size);

 private:
  struct OwnedSegment {
    std::shared_ptr<shm::Segment> segment;
    std::uint32_t size_class = 0;
    std::uint32_t chunk_count = 0;      // address space: chunks the segment has room for
    std::uint32_t committed = 0;        // chunks [0, committed) are committed and allocatable
    std::uint64_t stride = 0;           // bytes between chunk payloads
    std::uint64_t data_offset = 0;      // first payload, from the segment base
    std::vector<std::uint8_t> listed;   // owner-private: chunk is on a free list
    std::vector<std::uint8_t> on_loan;  // owner-private: allocated, not yet published
    std::vector<std::uint8_t> warm;     // owner-private: handed out or pre-faulted before
  };
  struct SizeClass {
    std::vector<ChunkRef> free;               // LIFO: reuse cache-warm chunks
    std::uint32_t chunks = 0;                 // committed chunks of this class
    std::uint32_t open_segment = NO_SEGMENT;  // the class's segment with uncommitted chunks
    std::uint32_t promised = 0;  // chunks reserve() made room for: committed as first needed
    bool reserved = false;       // reserve()d: smaller classes may borrow its free chunks
  };
  static constexpr std::uint32_t NO_SEGMENT = ~0u;
  static constexpr std::uint32_t MAX_CLASSES = 40;
  static constexpr bool warm_first(std::uint32_t c) {
    return (1ull << (c + SMALLEST_CLASS_SHIFT)) >= WARM_FIRST_MIN_BYTES;
  }

  // The class allocate(size of class c) takes from: c if it has a free chunk, else a larger
  // reserved class with one, else c (which must grow).
  std::uint32_t pick_class(std::uint32_t c) const noexcept;
  // The class to commit a chunk in when none is free for class c: c if a reservation of c has
  // uncommitted chunks, else a larger reserved class that has, else c (on-demand growth).
  std::uint32_t grow_class(std::uint32_t c) const noexcept;
  bool has_promised_room(std::uint32_t c) const noexcept;
  // Commits the next step of class c (creating a segment sized by the growth policy if c has
  // none with room); false if the pool cannot grow.
  bool add_chunks(std::uint32_t c);
  Result<std::uint32_t, Error<ReserveError>> create_segment(std::uint32_t c, std::uint32_t count);
  // Commits the next `n` chunks of a segment and lists them; `prefault` maps their pages now.
  Status<Error<ReserveError>> commit_chunks(std::uint32_t segment_index, std::uint32_t n,
                                            bool prefault);
  std::uint64_t stride_of(std::uint32_t c) const noexcept;
  void list(ChunkRef ref);
  // Whether `ref` (a chunk of this pool) was handed out or pre-faulted before.
  bool is_warm(ChunkRef ref) const noexcept;
  // Pre-faults the first `bytes` of `ref`'s payload for writing and marks it warm.
  void warm(ChunkRef ref, std::uint64_t bytes) noexcept;

  std::string name_;
  PoolConfig config_;
  PoolView view_;
  std::vector<std::unique_ptr<OwnedSegment>> segments_;
  std::vector<SizeClass> classes_;
  std::uint64_t total_bytes_ = 0;      // address space of all segments
  std::uint64_t committed_bytes_ = 0;  // of which committed in /dev/shm
  std::atomic<std::uint32_t>* count_out_ = nullptr;
};

// Inline: a loan and a publish call these six to eight times between them (issue 20, busy-poll).

inline std::uint32_t ChunkPool::size_class(std::uint64_t size) {
  if (size <= (1ull << SMALLEST_CLASS_SHIFT)) return 0;
  return static_cast<std::uint32_t>(std::bit_width(size - 1)) - SMALLEST_CLASS_SHIFT;
}

inline std::uint32_t ChunkPool::pick_class(std::uint32_t c) const noexcept {
  if (!classes_[c].free.empty()) return c;
  for (std::uint32_t r = c + 1; r < MAX_CLASSES; ++r) {
    if (classes_[r].reserved && !classes_[r].free.empty()) return r;
  }
  return c;
}

inline void ChunkPool::prefetch_next(std::uint64_t size) noexcept {
  const std::uint32_t c = size_class(size);
  if (c >= MAX_CLASSES) return;
  const auto& free = classes_[pick_class(c)].free;
  if (free.empty()) return;
  ChunkAccess access;
  if (!view_.try_resolve(free.back(), &access)) return;
  __builtin_prefetch(access.control, 1);
  __builtin_prefetch(access.data, 1);
}

inline bool ChunkPool::is_warm(ChunkRef ref) const noexcept {
  return segments_[chunk_segment(ref)]->warm[chunk_index(ref)] != 0;
}

inline bool ChunkPool::next_is_cold(std::uint64_t size) const noexcept {
  const std::uint32_t c = size_class(size);
  if (c >= MAX_CLASSES) return false;  // allocate() refuses it: nothing to prepare
  const std::uint32_t from = pick_class(c);
  const auto& free = classes_[from].free;
  if (free.empty()) return true;
  return warm_first(from) && !is_warm(free.back());
}

inline bool ChunkPool::on_loan(ChunkRef ref) const noexcept {
  const std::uint32_t si = chunk_segment(ref);
  if (si >= segments_.size()) return false;
  const std::uint32_t ci = chunk_index(ref);
  return ci < segments_[si]->chunk_count && segments_[si]->on_loan[ci] != 0;
}

inline void ChunkPool::end_loan(ChunkRef ref) noexcept {
  if (on_loan(ref)) segments_[chunk_segment(ref)]->on_loan[chunk_index(ref)] = 0;
}

}  // namespace baton::memory
