#include "baton/memory/chunk_pool.hpp"

#include <bit>
#include <cstring>

namespace baton::memory {
namespace {

constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
constexpr std::uint32_t MAX_CLASSES = 40;

}  // namespace

ChunkPool::ChunkPool(std::string pool_name, PoolConfig config)
    : name_(std::move(pool_name)), config_(config), view_(name_), free_(MAX_CLASSES) {}

ChunkPool::~ChunkPool() {
  for (auto& s : segments_) s->segment->unlink();
}

std::uint32_t ChunkPool::size_class(std::uint64_t size) {
  if (size <= (1ull << SMALLEST_CLASS_SHIFT)) return 0;
  return static_cast<std::uint32_t>(std::bit_width(size - 1)) - SMALLEST_CLASS_SHIFT;
}

void ChunkPool::prefetch_next(std::uint64_t size) noexcept {
  const std::uint32_t c = size_class(size);
  if (c >= free_.size() || free_[c].empty()) return;
  auto access = view_.resolve(free_[c].back());
  if (!access) return;
  __builtin_prefetch(access->control, 1);
  __builtin_prefetch(access->data, 1);
}

bool ChunkPool::has_free(std::uint64_t size) const {
  std::uint32_t c = size_class(size);
  return c < free_.size() && !free_[c].empty();
}

Result<Allocation, AllocError> ChunkPool::allocate(std::uint64_t size) {
  if (size > config_.max_chunk_size) return unexpected(AllocError::TooLarge);
  const std::uint32_t c = size_class(size);
  if (c >= MAX_CLASSES) return unexpected(AllocError::TooLarge);
  if (free_[c].empty()) {
    auto grown = grow(c);
    if (!grown) return unexpected(grown.error());
  }
  const ChunkRef ref = free_[c].back();
  free_[c].pop_back();
  segments_[chunk_segment(ref)]->listed[chunk_index(ref)] = 0;
  segments_[chunk_segment(ref)]->on_loan[chunk_index(ref)] = 1;
  auto access = view_.resolve(ref);
  if (!access) return unexpected(AllocError::OutOfMemory);  // our own segment: cannot happen
  ChunkControl* ctl = access->control;
  // Order matters (sync point "chunk-reuse"): seq is invalidated before refs leaves 0, so a
  // reader that pins this chunk through a stale row sees NO_SEQ and lets go.
  ctl->seq.store(NO_SEQ, std::memory_order_relaxed);
  ctl->payload_size.store(0, std::memory_order_relaxed);
  ctl->refs.store(PUBLISHER_REF, std::memory_order_release);
  return Allocation{ref, ctl, access->data, access->capacity};
}

Result<std::uint32_t, AllocError> ChunkPool::grow(std::uint32_t c) {
  const std::uint64_t capacity = 1ull << (c + SMALLEST_CLASS_SHIFT);
  std::uint32_t already = 0;
  for (auto& s : segments_) {
    if (s->size_class == c) already += s->chunk_count;
  }
  std::uint32_t count =
      capacity <= (64u << 10) ? config_.initial_small_chunks : config_.initial_large_chunks;
  if (already > count) count = already;  // double the class each time it runs dry
  const std::uint64_t stride = round_up(capacity, capacity >= DATA_PAGE ? DATA_PAGE : 64);
  const std::uint64_t control = round_up(DATA_HEADER_OFFSET + sizeof(DataSegmentHeader), 64);
  const std::uint64_t data = round_up(control + count * sizeof(ChunkControl), DATA_PAGE);
  const std::uint64_t size = data + count * stride;
  if (segments_.size() >= MAX_DATA_SEGMENTS || total_bytes_ + size > config_.max_total_bytes) {
    return unexpected(AllocError::OutOfMemory);
  }
  const auto index = static_cast<std::uint32_t>(segments_.size());
  const std::string seg_name = data_segment_name(name_, index);
  if (count_out_ != nullptr) count_out_->store(index + 1, std::memory_order_release);
  shm::SegmentOptions opts;
  opts.mode = config_.segment_mode;
  // Pre-fault the whole segment here, on the cold path: otherwise the first write into each
  // chunk pays one page fault per 4 KiB (1024 for a 4 MiB message, ~5 ms on a VM), which showed
  // up as baton's overhead over native in seed 000's first measured runs.
  opts.populate = true;
  auto created = shm::Segment::create(seg_name, size, shm::SegmentKind::Data, opts);
  if (!created && created.error().code == shm::SegmentCreateError::AlreadyExists) {
    // Left by a crashed process that had our (unique per claim) name: it is garbage.
    shm::Segment::unlink(seg_name);
    created = shm::Segment::create(seg_name, size, shm::SegmentKind::Data, opts);
  }
  if (!created) return unexpected(AllocError::OutOfMemory);
  auto owned = std::make_unique<OwnedSegment>();
  owned->segment = std::make_shared<shm::Segment>(std::move(*created));
  owned->size_class = c;
  owned->chunk_count = count;
  owned->listed.assign(count, 0);
  owned->on_loan.assign(count, 0);
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
  segments_.push_back(std::move(owned));
  // Push in reverse so the lowest chunk is handed out first.
  for (std::uint32_t i = count; i-- > 0;) list(make_chunk_ref(index, i));
  return index;
}

void ChunkPool::list(ChunkRef ref) {
  auto& seg = *segments_[chunk_segment(ref)];
  seg.listed[chunk_index(ref)] = 1;
  free_[seg.size_class].push_back(ref);
}

bool ChunkPool::on_loan(ChunkRef ref) const noexcept {
  const std::uint32_t si = chunk_segment(ref);
  if (si >= segments_.size()) return false;
  const std::uint32_t ci = chunk_index(ref);
  return ci < segments_[si]->chunk_count && segments_[si]->on_loan[ci] != 0;
}

void ChunkPool::end_loan(ChunkRef ref) noexcept {
  if (on_loan(ref)) segments_[chunk_segment(ref)]->on_loan[chunk_index(ref)] = 0;
}

void ChunkPool::release_publisher_ref(ChunkRef ref) {
  auto access = view_.resolve(ref);
  if (!access) return;
  const std::uint64_t old =
      access->control->refs.fetch_and(~PUBLISHER_REF, std::memory_order_acq_rel);
  if (old == PUBLISHER_REF) list(ref);
}

void ChunkPool::give_back(ChunkRef ref) {
  const std::uint32_t si = chunk_segment(ref);
  if (si >= segments_.size()) return;  // untrusted input from a return queue
  auto& seg = *segments_[si];
  const std::uint32_t ci = chunk_index(ref);
  if (ci >= seg.chunk_count || seg.listed[ci]) return;
  auto access = view_.resolve(ref);
  if (!access) return;
  // Acquire pairs with the releasing reader's acq_rel fetch_and: its reads of the payload
  // happen before we hand the chunk out again.
  if (access->control->refs.load(std::memory_order_acquire) != 0) return;
  list(ref);
}

std::uint32_t ChunkPool::sweep() {
  std::uint32_t found = 0;
  for (std::uint32_t si = 0; si < segments_.size(); ++si) {
    for (std::uint32_t ci = 0; ci < segments_[si]->chunk_count; ++ci) {
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
  for (auto& s : segments_) n += s->chunk_count;
  return n;
}

std::uint64_t ChunkPool::free_count() const noexcept {
  std::uint64_t n = 0;
  for (auto& f : free_) n += f.size();
  return n;
}

}  // namespace baton::memory
