#include "baton/memory/chunk_pool.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "baton/memory/chunk_refs.hpp"
#include "baton/memory/pool_prefault.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
constexpr std::uint64_t capacity_of(std::uint32_t c) {
  return 1ull << (c + ChunkPool::SMALLEST_CLASS_SHIFT);
}

}  // namespace

ChunkPool::ChunkPool(std::string pool_name, PoolConfig config)
    : name_(std::move(pool_name)), config_(config), view_(name_), classes_(MAX_CLASSES) {}

ChunkPool::~ChunkPool() {
  for (auto& s : segments_) s->segment->unlink();
}

std::vector<std::shared_ptr<shm::Segment>> ChunkPool::mappings() const {
  std::vector<std::shared_ptr<shm::Segment>> out;
  out.reserve(segments_.size());
  for (const auto& s : segments_) out.push_back(s->segment);
  return out;
}

std::uint64_t ChunkPool::stride_of(std::uint32_t c) const noexcept {
  const std::uint64_t capacity = 1ull << (c + SMALLEST_CLASS_SHIFT);
  return round_up(capacity, capacity >= DATA_PAGE ? DATA_PAGE : 64);
}

bool ChunkPool::has_promised_room(std::uint32_t c) const noexcept {
  const SizeClass& sc = classes_[c];
  return sc.chunks < sc.promised && sc.open_segment != NO_SEGMENT;
}

std::uint32_t ChunkPool::grow_class(std::uint32_t c) const noexcept {
  if (has_promised_room(c)) return c;
  for (std::uint32_t r = c + 1; r < MAX_CLASSES; ++r) {
    if (classes_[r].reserved && has_promised_room(r)) return r;
  }
  return c;
}

void ChunkPool::warm(ChunkRef ref, std::uint64_t bytes) noexcept {
  auto access = view_.resolve(ref);
  if (access) prefault_range(access->data, std::min(bytes, access->capacity), PrefaultFor::Write);
  segments_[chunk_segment(ref)]->warm[chunk_index(ref)] = 1;
}

bool ChunkPool::has_free(std::uint64_t size) const {
  const std::uint32_t c = size_class(size);
  return c < MAX_CLASSES && !classes_[pick_class(c)].free.empty();
}

bool ChunkPool::try_allocate(std::uint64_t size, Allocation* out, AllocError* error) {
  const std::uint32_t c = size_class(size);
  if (size > config_.max_chunk_size || c >= MAX_CLASSES) {
    *error = AllocError::TooLarge;
    return false;
  }
  std::uint32_t from = pick_class(c);
  if (classes_[from].free.empty()) {
    from = grow_class(c);
    if (!add_chunks(from)) {
      *error = AllocError::OutOfMemory;
      return false;
    }
  }
  auto& free = classes_[from].free;
  const ChunkRef ref = free.back();
  free.pop_back();
  // A reserved chunk not pre-faulted yet (readers were behind: reserve() pre-faulted only one)
  // is now, as far as this loan asks: the promise of reserve(), without mapping pages a small
  // message borrowing a large chunk never writes. Others fault on first write, as on growth.
  if (!is_warm(ref) && classes_[from].reserved && warm_first(from)) warm(ref, size);
  segments_[chunk_segment(ref)]->warm[chunk_index(ref)] = 1;
  segments_[chunk_segment(ref)]->listed[chunk_index(ref)] = 0;
  segments_[chunk_segment(ref)]->on_loan[chunk_index(ref)] = 1;
  ChunkAccess access;
  if (!view_.try_resolve(ref, &access)) {
    *error = AllocError::OutOfMemory;  // our own segment: cannot happen
    return false;
  }
  ChunkControl* ctl = access.control;
  // Order matters (sync point "chunk-reuse"): seq is invalidated before refs leaves 0, so a
  // reader that pins this chunk through a stale row sees NO_SEQ and lets go.
  ctl->seq.store(NO_SEQ, std::memory_order_relaxed);
  ctl->payload_size.store(0, std::memory_order_relaxed);
  ctl->payload_offset.store(0, std::memory_order_relaxed);
  ctl->refs.store(PUBLISHER_REF, std::memory_order_release);
  *out = Allocation{ref, ctl, access.data, access.capacity};
  return true;
}

void ChunkPool::prepare_ahead(std::uint64_t size) noexcept {
  const std::uint32_t c = size_class(size);
  if (c >= MAX_CLASSES || size > config_.max_chunk_size) return;
  if (!classes_[pick_class(c)].free.empty()) return;
  const std::uint32_t g = grow_class(c);
  // Beyond what the ring can hold and no reservation left to commit: grow on demand.
  if (g == c && !has_promised_room(c) && classes_[c].chunks >= config_.expected_outstanding) return;
  (void)add_chunks(g);
}

// Growth policy, measured with bench/pool_growth (2 MiB messages, keep-last 64): the cost of
// growing is committing memory (tmpfs zero-fills every page, ~0.2-0.35 ms per MiB on the VM),
// not creating the segment (ftruncate + mmap: microseconds). Creating each segment committed
// at once made loan() stall for the entire segment (13-46 ms for the 64-chunk step). So a new
// segment is only address space — sized for the chunks the publisher can hold at once
// (expected_outstanding) or doubling the class, at most max_segment_bytes — and chunks are
// committed one step at a time: on loan() when none is free, or ahead of it after a publish.
bool ChunkPool::add_chunks(std::uint32_t c) {
  SizeClass& sc = classes_[c];
  if (sc.open_segment == NO_SEGMENT) {
    const std::uint64_t capacity = 1ull << (c + SMALLEST_CLASS_SHIFT);
    std::uint64_t count =
        capacity <= (64u << 10) ? config_.initial_small_chunks : config_.initial_large_chunks;
    count = std::max<std::uint64_t>(count, sc.chunks);  // double the class each time
    if (config_.expected_outstanding > sc.chunks) {
      count = std::max<std::uint64_t>(count, config_.expected_outstanding - sc.chunks);
    }
    const std::uint64_t stride = stride_of(c);
    count = std::min(count, std::max<std::uint64_t>(1, config_.max_segment_bytes / stride));
    // What still fits in max_total_bytes: a segment of n chunks takes at most
    // HEAD + n * (control + stride), its controls padded to at most a page.
    constexpr std::uint64_t HEAD = DATA_HEADER_OFFSET + sizeof(DataSegmentHeader) + DATA_PAGE;
    const std::uint64_t left = config_.max_total_bytes > total_bytes_ + HEAD
                                   ? config_.max_total_bytes - total_bytes_ - HEAD
                                   : 0;
    count = std::min(count, left / (stride + sizeof(ChunkControl)));
    count = std::min<std::uint64_t>(count, MAX_CHUNKS_PER_SEGMENT);
    if (count == 0) return false;
    if (!create_segment(c, static_cast<std::uint32_t>(count))) return false;
  }
  OwnedSegment& seg = *segments_[sc.open_segment];
  const std::uint64_t step = std::max<std::uint64_t>(1, COMMIT_STEP_BYTES / seg.stride);
  const auto n =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(step, seg.chunk_count - seg.committed));
  // Not pre-faulted: on this path the commit runs on the publisher's thread, and mapping the
  // pages up front as well (MADV_POPULATE_WRITE) made it ~3x dearer (66 x 2 MiB: 87-123 ms vs
  // 25-46 ms of posix_fallocate), wasted on messages not written whole; first writes fault.
  return static_cast<bool>(commit_chunks(sc.open_segment, n, false));
}

Result<std::uint32_t, Error<ReserveError>> ChunkPool::create_segment(std::uint32_t c,
                                                                     std::uint32_t count) {
  using E = Error<ReserveError>;
  const std::uint64_t capacity = 1ull << (c + SMALLEST_CLASS_SHIFT);
  const std::uint64_t stride = stride_of(c);
  const std::uint64_t control = round_up(DATA_HEADER_OFFSET + sizeof(DataSegmentHeader), 64);
  // Chunks start right after the controls, each aligned to its own stride up to a page: a
  // small stream's whole segment then fits in one page or two (a 64 B stream of depth 16 took
  // three pages, the controls' padded to a page; issue 20, memory), and every chunk keeps the
  // natural alignment it had (a 256 B chunk 256-aligned, a 4 KiB one page-aligned).
  const std::uint64_t data =
      round_up(control + count * sizeof(ChunkControl), std::min(stride, DATA_PAGE));
  const std::uint64_t size = data + count * stride;
  if (segments_.size() >= MAX_DATA_SEGMENTS) {
    return unexpected(E{ReserveError::OverBudget, "pool '" + name_ + "' has the maximum of " +
                                                      std::to_string(MAX_DATA_SEGMENTS) +
                                                      " data segments"});
  }
  if (total_bytes_ + size > config_.max_total_bytes) {
    return unexpected(E{ReserveError::OverBudget,
                        std::to_string(count) + " chunks of " + std::to_string(capacity) +
                            " bytes need " + std::to_string(size) + " bytes; pool '" + name_ +
                            "' has " + std::to_string(config_.max_total_bytes - total_bytes_) +
                            " left of its limit (max_pool_bytes) of " +
                            std::to_string(config_.max_total_bytes)});
  }
  const auto index = static_cast<std::uint32_t>(segments_.size());
  const std::string seg_name = data_segment_name(name_, index);
  if (count_out_ != nullptr) count_out_->store(index + 1, std::memory_order_release);
  shm::SegmentOptions opts;
  opts.mode = config_.segment_mode;
  opts.commit_prefix = data;  // headers and control words now, payloads as chunks are committed
  auto created = shm::Segment::create(seg_name, size, shm::SegmentKind::Data, opts);
  if (!created && created.error().code == shm::SegmentCreateError::AlreadyExists) {
    // Left by a crashed process that had our (unique per claim) name: it is garbage.
    shm::Segment::unlink(seg_name);
    created = shm::Segment::create(seg_name, size, shm::SegmentKind::Data, opts);
  }
  if (!created) return unexpected(E{ReserveError::NoSpace, created.error().detail});
  auto owned = std::make_unique<OwnedSegment>();
  owned->segment = std::make_shared<shm::Segment>(std::move(*created));
  owned->size_class = c;
  owned->chunk_count = count;
  owned->stride = stride;
  owned->data_offset = data;
  owned->listed.assign(count, 0);
  owned->on_loan.assign(count, 0);
  owned->warm.assign(count, 0);
  auto* h = owned->segment->at<DataSegmentHeader>(DATA_HEADER_OFFSET);
  h->chunk_capacity = capacity;
  h->chunk_stride = stride;
  h->control_offset = control;
  h->data_offset = data;
  h->chunk_count = count;
  h->segment_index = index;
  // posix_fallocate zero-filled the controls: every chunk starts free (refs == 0).
  owned->segment->mark_ready();
  shm::Segment::share(owned->segment);
  view_.adopt(index, owned->segment);
  total_bytes_ += size;
  committed_bytes_ += data;
  segments_.push_back(std::move(owned));
  classes_[c].open_segment = index;
  return index;
}

Status<Error<ReserveError>> ChunkPool::commit_chunks(std::uint32_t si, std::uint32_t n,
                                                     bool prefault) {
  OwnedSegment& seg = *segments_[si];
  const std::uint32_t first = seg.committed;
  // Reserves the chunks' pages in /dev/shm: a chunk is handed out only once this succeeded, so
  // no one ever faults on it for lack of memory (no SIGBUS).
  auto r = seg.segment->commit(seg.data_offset + first * seg.stride, n * seg.stride, prefault);
  if (!r) return unexpected(Error<ReserveError>{ReserveError::NoSpace, r.error().detail});
  committed_bytes_ += n * seg.stride;
  seg.committed = first + n;
  if (prefault) std::fill_n(seg.warm.begin() + first, n, std::uint8_t{1});
  // Readers may pre-map the committed chunks from now on (PoolView::map_ahead).
  seg.segment->at<DataSegmentHeader>(DATA_HEADER_OFFSET)
      ->committed_chunks.store(seg.committed, std::memory_order_release);
  classes_[seg.size_class].chunks += n;
  if (seg.committed == seg.chunk_count) {
    classes_[seg.size_class].open_segment = NO_SEGMENT;
    seg.segment->close_backing_file();  // nothing left to commit: one fd less
  }
  // Push in reverse so the lowest chunk is handed out first.
  for (std::uint32_t i = first + n; i-- > first;) list(make_chunk_ref(si, i));
  return Ok{};
}

Result<std::uint32_t, Error<ReserveError>> ChunkPool::reserve(std::uint64_t size,
                                                              std::uint32_t count) {
  using E = Error<ReserveError>;
  const std::uint32_t c = size_class(size);
  if (size > config_.max_chunk_size || c >= MAX_CLASSES) {
    return unexpected(E{ReserveError::TooLarge,
                        "reserve(" + std::to_string(size) + " bytes): larger than the pool's " +
                            "maximum message size of " + std::to_string(config_.max_chunk_size) +
                            " bytes (max_message_size)"});
  }
  if (count == 0 || count > MAX_CHUNKS_PER_SEGMENT) {
    return unexpected(E{ReserveError::InvalidCount,
                        "reserve(" + std::to_string(size) + ", " + std::to_string(count) +
                            "): count must be 1.." + std::to_string(MAX_CHUNKS_PER_SEGMENT)});
  }
  SizeClass& sc = classes_[c];
  // Small chunks share pages: all of them are committed and pre-faulted now. Large ones: the
  // first RESERVE_WARM_CHUNKS now, the rest when first needed (see the header).
  const bool small = !warm_first(c);
  auto room = [&]() -> std::uint32_t {
    if (sc.open_segment == NO_SEGMENT) return 0;
    const OwnedSegment& seg = *segments_[sc.open_segment];
    return seg.chunk_count - seg.committed;
  };
  // Chunks an earlier reserve() promised and nobody committed yet: all in the open segment.
  const std::uint32_t pending = sc.promised > sc.chunks ? sc.promised - sc.chunks : 0;
  const auto have = static_cast<std::uint32_t>(sc.free.size()) + pending;
  const std::uint32_t missing = have >= count ? 0 : count - have;
  // Room first, so a budget error comes now. A class has one open segment: if its room is not
  // enough, that room is committed now and one segment takes the rest.
  if (missing > 0 && missing + pending > room()) {
    if (const std::uint32_t n = room(); n > 0) {
      auto r = commit_chunks(sc.open_segment, n, small);
      if (!r) return unexpected(r.error());
    }
    auto index = create_segment(c, count - static_cast<std::uint32_t>(sc.free.size()));
    if (!index) return unexpected(index.error());
  }
  // free + uncommitted room >= count now: the chunks still to commit for `count` free ones are
  // promised (allocate() and prepare_ahead() commit them as they are needed).
  const auto free_after = static_cast<std::uint32_t>(sc.free.size());
  const std::uint32_t promised = sc.chunks + (free_after >= count ? 0 : count - free_after);
  const std::uint32_t now =
      small || config_.commit_reservations ? count : std::min(count, RESERVE_WARM_CHUNKS);
  if (free_after < now) {
    auto r = commit_chunks(sc.open_segment, now - free_after, small);
    if (!r) return unexpected(r.error());
  }
  sc.reserved = true;
  sc.promised = std::max(sc.promised, promised);
  // Large chunks: the first RESERVE_WARM_CHUNKS to be handed out (the free list's top) now, the
  // others by the allocate() that first takes one. A stream whose readers keep up writes one.
  for (std::uint32_t i = 0; !small && i < RESERVE_WARM_CHUNKS && i < sc.free.size(); ++i) {
    const ChunkRef ref = sc.free[sc.free.size() - 1 - i];
    if (!is_warm(ref)) warm(ref, capacity_of(c));
  }
  return missing;
}

void ChunkPool::list(ChunkRef ref) {
  auto& seg = *segments_[chunk_segment(ref)];
  seg.listed[chunk_index(ref)] = 1;
  classes_[seg.size_class].free.push_back(ref);
}

void ChunkPool::release_publisher_ref(ChunkRef ref) {
  ChunkAccess access;
  if (!view_.try_resolve(ref, &access)) return;
  if (drop_publisher_ref(access.control)) list(ref);
}

void ChunkPool::give_back(ChunkRef ref) {
  const std::uint32_t si = chunk_segment(ref);
  if (si >= segments_.size()) return;  // untrusted input from a return queue
  auto& seg = *segments_[si];
  const std::uint32_t ci = chunk_index(ref);
  // Never list an uncommitted chunk: its pages are not reserved (untrusted input).
  if (ci >= seg.committed || seg.listed[ci]) return;
  auto access = view_.resolve(ref);
  if (!access) return;
  // Pairs with the releasing reader's fetch_and (sync point "chunk-free"): its reads of the
  // payload happen before we hand the chunk out again.
  if (!refs_clear(access->control)) return;
  list(ref);
}

std::uint32_t ChunkPool::sweep() {
  std::uint32_t found = 0;
  for (std::uint32_t si = 0; si < segments_.size(); ++si) {
    for (std::uint32_t ci = 0; ci < segments_[si]->committed; ++ci) {
      if (segments_[si]->listed[ci]) continue;
      const ChunkRef ref = make_chunk_ref(si, ci);
      give_back(ref);
      found += segments_[si]->listed[ci];
    }
  }
  return found;
}

std::uint64_t ChunkPool::chunk_count() const noexcept {
  std::uint64_t n = 0;
  for (auto& s : segments_) n += s->committed;
  return n;
}

std::uint64_t ChunkPool::free_count() const noexcept {
  std::uint64_t n = 0;
  for (auto& c : classes_) n += c.free.size();
  return n;
}

}  // namespace baton::memory
