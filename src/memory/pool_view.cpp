#include "baton/memory/pool_view.hpp"

#include "baton/shm/naming.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t kHeadersEnd = DATA_HEADER_OFFSET + sizeof(DataSegmentHeader);

}  // namespace

std::string data_segment_name(const std::string& pool_name, std::uint32_t index) {
  return shm::segment_name("d", pool_name + "." + std::to_string(index));
}

std::string validate_data_segment(const shm::Segment& seg, std::uint32_t expected_index) {
  if (!seg.contains(DATA_HEADER_OFFSET, sizeof(DataSegmentHeader))) return "too small for header";
  const auto* h = seg.at<DataSegmentHeader>(DATA_HEADER_OFFSET);
  // Copy each field once: the segment may change under us; decisions use the copies.
  const std::uint64_t capacity = h->chunk_capacity;
  const std::uint64_t stride = h->chunk_stride;
  const std::uint64_t control = h->control_offset;
  const std::uint64_t data = h->data_offset;
  const std::uint64_t count = h->chunk_count;
  if (h->segment_index != expected_index) return "segment index mismatch";
  if (count == 0 || count > MAX_CHUNKS_PER_SEGMENT) return "chunk count out of range";
  if (stride < capacity || stride % 64 != 0 || stride == 0) return "bad chunk stride";
  if (control % 64 != 0 || !seg.contains(control, count * sizeof(ChunkControl))) {
    return "control array out of bounds";
  }
  // Fix (stress work): control words and chunks must lie after the headers. Offsets inside
  // them used to pass, so a corrupt header made every reader and the owner itself write chunk
  // control words (refs, seq, size) over the segment header and the geometry they came from.
  if (control < kHeadersEnd) return "control array overlaps the segment headers";
  // count <= 2^24 and stride < 2^40 (segment size bound) keep this product from overflowing.
  if (stride > (1ull << 40) || !seg.contains(data, count * stride))
    return "chunk array out of bounds";
  if (data < control + count * sizeof(ChunkControl)) return "chunks overlap control words";
  return {};
}

void PoolView::adopt(std::uint32_t index, std::shared_ptr<shm::Segment> segment) {
  if (index >= MAX_DATA_SEGMENTS || !segment) return;
  if (segments_.size() <= index) segments_.resize(index + 1);
  if (!segments_[index]) segments_[index] = std::move(segment);
}

bool PoolView::map(std::uint32_t si) {
  if (si < segments_.size() && segments_[si]) return true;
  // Fix (stress work): no waiting for `ready` (it was 1 s per call). The owner marks a data
  // segment ready before any of its chunks can be named by a row or a loan record, so one that
  // is not ready is corrupt or stale, and take() must not stall on it.
  auto seg =
      shm::Segment::open_shared(data_segment_name(pool_name_, si), shm::SegmentKind::Data, 0);
  if (!seg || !validate_data_segment(**seg, si).empty()) return false;
  if (segments_.size() <= si) segments_.resize(si + 1);
  segments_[si] = std::move(*seg);
  return true;
}

bool PoolView::map_all(std::uint32_t count) {
  bool all = true;
  for (std::uint32_t si = 0; si < count && si < MAX_DATA_SEGMENTS; ++si) all = map(si) && all;
  return all;
}

Result<ChunkAccess, ResolveError> PoolView::resolve(ChunkRef ref) {
  const std::uint32_t si = chunk_segment(ref);
  const std::uint32_t ci = chunk_index(ref);
  if (si >= MAX_DATA_SEGMENTS) return unexpected(ResolveError::OutOfRange);
  if ((si >= segments_.size() || !segments_[si]) && !map(si)) {  // mapped: the hot path
    return unexpected(ResolveError::SegmentUnavailable);
  }
  const shm::Segment& seg = *segments_[si];
  // The header was validated when mapped, but shared memory can change after that: re-read
  // every field and check the geometry against the mapping's real size.
  const auto* h = seg.at<DataSegmentHeader>(DATA_HEADER_OFFSET);
  const std::uint64_t count = h->chunk_count;
  const std::uint64_t stride = h->chunk_stride;
  const std::uint64_t control = h->control_offset;
  const std::uint64_t data = h->data_offset;
  const std::uint64_t capacity = h->chunk_capacity;
  if (ci >= count || count > MAX_CHUNKS_PER_SEGMENT || stride < capacity || stride > (1ull << 40) ||
      control < kHeadersEnd || control > seg.size() || data < control ||
      data - control < count * sizeof(ChunkControl)) {  // see validate_data_segment()
    return unexpected(ResolveError::OutOfRange);
  }
  const std::uint64_t control_at = control + ci * sizeof(ChunkControl);
  const std::uint64_t data_at = data + ci * stride;
  if (!seg.contains(control_at, sizeof(ChunkControl)) || !seg.contains(data_at, capacity) ||
      control_at % 64 != 0) {
    return unexpected(ResolveError::OutOfRange);
  }
  return ChunkAccess{seg.at<ChunkControl>(control_at), seg.base() + data_at, capacity};
}

}  // namespace baton::memory
