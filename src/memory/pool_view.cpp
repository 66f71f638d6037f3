#include "baton/memory/pool_view.hpp"

#include <algorithm>

#include "baton/shm/naming.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t kHeadersEnd = DATA_HEADER_OFFSET + sizeof(DataSegmentHeader);

}  // namespace

std::string data_segment_name(const std::string& pool_name, std::uint32_t index) {
  return shm::segment_name("d", pool_name + "." + std::to_string(index));
}

Result<DataGeometry, std::string> data_geometry(const shm::Segment& seg,
                                                std::uint32_t expected_index) {
  if (!seg.contains(DATA_HEADER_OFFSET, sizeof(DataSegmentHeader))) {
    return unexpected(std::string("too small for header"));
  }
  const auto* h = seg.at<DataSegmentHeader>(DATA_HEADER_OFFSET);
  // Copy each field once: the segment may change under us; decisions use the copies.
  DataGeometry g;
  g.capacity = h->chunk_capacity;
  g.stride = h->chunk_stride;
  g.control = h->control_offset;
  g.data = h->data_offset;
  g.count = h->chunk_count;
  auto bad = [](const char* why) { return unexpected(std::string(why)); };
  if (h->segment_index != expected_index) return bad("segment index mismatch");
  if (g.count == 0 || g.count > MAX_CHUNKS_PER_SEGMENT) return bad("chunk count out of range");
  if (g.stride < g.capacity || g.stride % 64 != 0 || g.stride == 0) return bad("bad chunk stride");
  if (g.control % 64 != 0 || !seg.contains(g.control, g.count * sizeof(ChunkControl))) {
    return bad("control array out of bounds");
  }
  // Fix (stress work): control words and chunks must lie after the headers. Offsets inside
  // them used to pass, so a corrupt header made every reader and the owner itself write chunk
  // control words (refs, seq, size) over the segment header and the geometry they came from.
  if (g.control < kHeadersEnd) return bad("control array overlaps the segment headers");
  // count <= 2^24 and stride < 2^40 (segment size bound) keep this product from overflowing.
  if (g.stride > (1ull << 40) || !seg.contains(g.data, g.count * g.stride)) {
    return bad("chunk array out of bounds");
  }
  if (g.data < g.control + g.count * sizeof(ChunkControl))
    return bad("chunks overlap control words");
  return g;
}

std::string validate_data_segment(const shm::Segment& seg, std::uint32_t expected_index) {
  auto g = data_geometry(seg, expected_index);
  return g ? std::string() : g.error();
}

bool PoolView::install(std::uint32_t index, std::shared_ptr<shm::Segment> segment) {
  auto g = data_geometry(*segment, index);
  if (!g) return false;
  if (segments_.size() <= index) segments_.resize(index + 1);
  segments_[index] = Mapped{std::move(segment), *g};
  return true;
}

void PoolView::adopt(std::uint32_t index, std::shared_ptr<shm::Segment> segment) {
  if (index >= MAX_DATA_SEGMENTS || !segment) return;
  if (index < segments_.size() && segments_[index].segment) return;
  install(index, std::move(segment));
}

bool PoolView::map(std::uint32_t si) {
  if (si < segments_.size() && segments_[si].segment) return true;
  // Fix (stress work): no waiting for `ready` (it was 1 s per call). The owner marks a data
  // segment ready before any of its chunks can be named by a row or a loan record, so one that
  // is not ready is corrupt or stale, and take() must not stall on it.
  auto seg =
      shm::Segment::open_shared(data_segment_name(pool_name_, si), shm::SegmentKind::Data, 0);
  return seg && install(si, std::move(*seg));
}

bool PoolView::map_all(std::uint32_t count) {
  bool all = true;
  for (std::uint32_t si = 0; si < count && si < MAX_DATA_SEGMENTS; ++si) all = map(si) && all;
  return all;
}

Result<ChunkAccess, ResolveError> PoolView::resolve(ChunkRef ref) {
  const std::uint32_t si = chunk_segment(ref);
  if (si >= MAX_DATA_SEGMENTS) return unexpected(ResolveError::OutOfRange);
  if (!map(si)) return unexpected(ResolveError::SegmentUnavailable);
  ChunkAccess a;
  if (!locate(segments_[si], ref, &a)) return unexpected(ResolveError::OutOfRange);
  return a;
}

std::uint32_t PoolView::map_ahead(std::uint32_t segment_count) noexcept {
  segment_count = std::min(segment_count, MAX_DATA_SEGMENTS);
  if (premapped_.size() < segment_count) premapped_.resize(segment_count, 0);
  std::uint32_t added = 0;
  for (std::uint32_t si = 0; si < segment_count; ++si) {
    const bool mapped = si < segments_.size() && segments_[si].segment;
    // One that failed to open is retried only once the owner counts another segment (the
    // count is stored before the segment is created); take() maps it on first use in any case.
    if (!mapped && (si < tried_segments_ || !map(si))) continue;
    const Mapped& m = segments_[si];
    // Steady state: one load of committed_chunks per segment still growing.
    const auto* h = m.segment->at<DataSegmentHeader>(DATA_HEADER_OFFSET);
    const std::uint64_t committed = h->committed_chunks.load(std::memory_order_acquire);
    if (committed <= premapped_[si]) continue;
    // Untrusted: only compared, against the geometry validated at mapping.
    const auto end =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(committed, m.geometry.count));
    if (end <= premapped_[si]) continue;
    prefault_reader_chunks(m.segment->base(), m.geometry, premapped_[si], end);
    added += end - premapped_[si];
    premapped_[si] = end;
  }
  tried_segments_ = std::max(tried_segments_, segment_count);
  return added;
}

}  // namespace baton::memory
