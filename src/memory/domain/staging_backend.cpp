#include "baton/memory/domain/staging_backend.hpp"

#include "baton/memory/chunk_layout.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"

namespace baton::memory::domain {
namespace {

// [SegmentHeader 64][pad to DATA_PAGE][pool bytes]
constexpr std::uint64_t POOL_DATA_OFFSET = DATA_PAGE;

std::string pool_segment_name(const std::string& name) { return shm::segment_name("x", name); }

DomainPool pool_of(std::shared_ptr<shm::Segment> seg, std::uint64_t bytes) {
  DomainPool p;
  p.host = seg->base() + POOL_DATA_OFFSET;
  p.bytes = bytes;
  p.impl = std::move(seg);
  return p;
}

}  // namespace

StagingBackend::StagingBackend() : HostBackend(*DomainSpec::parse("staging")) {
  info_.name = "staging (host shared memory, copying)";
  info_.platform = "host";
  info_.ipc = true;
}

std::shared_ptr<StagingBackend> StagingBackend::open() {
  return std::shared_ptr<StagingBackend>(new StagingBackend());
}

Result<DomainPool, Error<DomainError>> StagingBackend::create_pool(std::uint64_t bytes,
                                                                   const std::string& name) {
  const std::string seg_name = pool_segment_name(name);
  auto seg = shm::Segment::create(seg_name, POOL_DATA_OFFSET + bytes, shm::SegmentKind::DomainPool);
  if (!seg && seg.error().code == shm::SegmentCreateError::AlreadyExists) {
    shm::Segment::unlink(seg_name);  // left by a crashed creator of the same unique name
    seg = shm::Segment::create(seg_name, POOL_DATA_OFFSET + bytes, shm::SegmentKind::DomainPool);
  }
  if (!seg) {
    return unexpected(Error<DomainError>{DomainError::OutOfMemory, seg.error().detail});
  }
  seg->mark_ready();
  return pool_of(std::make_shared<shm::Segment>(std::move(*seg)), bytes);
}

Result<PoolExport, Error<DomainError>> StagingBackend::export_pool(const DomainPool&) {
  return PoolExport{};  // the name is the export: importers open the segment by name
}

Result<DomainPool, Error<DomainError>> StagingBackend::import_pool(const std::string& name,
                                                                   std::uint64_t bytes,
                                                                   const PoolExport&) {
  auto seg = shm::Segment::open(pool_segment_name(name), shm::SegmentKind::DomainPool);
  if (!seg) return unexpected(Error<DomainError>{DomainError::ExportFailed, seg.error().detail});
  // The size recorded in the (untrusted) table must fit the segment actually mapped.
  if (!seg->contains(POOL_DATA_OFFSET, bytes)) {
    return unexpected(Error<DomainError>{
        DomainError::OutOfRange, "pool '" + name + "' is smaller than its table entry says"});
  }
  return pool_of(std::make_shared<shm::Segment>(std::move(*seg)), bytes);
}

void StagingBackend::unlink_pool(const std::string& name) {
  shm::Segment::unlink(pool_segment_name(name));
}

}  // namespace baton::memory::domain
