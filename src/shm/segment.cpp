#include "baton/shm/segment.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "baton/shm/participant.hpp"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older C libraries lack the name
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C libraries lack the name
#endif

namespace baton::shm {
namespace {

std::string describe(const std::string& name, const std::string& what) {
  return "segment '" + name + "': " + what;
}

std::string errno_text(int err) { return std::strerror(err); }

bool name_ok(const std::string& name) {
  return name.size() >= 2 && name.size() <= 250 && name[0] == '/' &&
         name.find('/', 1) == std::string::npos;
}

// Every live mapping by base address, and who wants to hear of an unmapping. Never destroyed:
// segments are unmapped from atexit paths.
struct Mappings {
  std::mutex mutex;
  std::map<std::uintptr_t, std::uint64_t> by_base;
  std::vector<Segment::UnmapObserver*> observers;
};
Mappings& mappings() {
  static Mappings* m = new Mappings();
  return *m;
}

}  // namespace

Segment::Segment(std::string name, std::byte* base, std::uint64_t size, std::uint64_t inode, int fd)
    : name_(std::move(name)), base_(base), size_(size), inode_(inode), fd_(fd) {
  auto& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.by_base[reinterpret_cast<std::uintptr_t>(base)] = size;
}

bool Segment::mapped(const void* p, std::uint64_t n) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  auto& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.by_base.upper_bound(at);
  if (it == m.by_base.begin()) return false;
  --it;
  return at - it->first <= it->second && n <= it->second - (at - it->first);
}

void Segment::observe_unmaps(UnmapObserver* observer) {
  auto& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.observers.push_back(observer);
}

void Segment::unobserve_unmaps(UnmapObserver* observer) noexcept {
  auto& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  std::erase(m.observers, observer);
}

Segment::~Segment() { reset(); }

Segment::Segment(Segment&& other) noexcept
    : name_(std::move(other.name_)),
      base_(other.base_),
      size_(other.size_),
      inode_(other.inode_),
      fd_(other.fd_) {
  other.base_ = nullptr;
  other.size_ = 0;
  other.fd_ = -1;
}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    reset();
    name_ = std::move(other.name_);
    base_ = other.base_;
    size_ = other.size_;
    inode_ = other.inode_;
    fd_ = other.fd_;
    other.base_ = nullptr;
    other.size_ = 0;
    other.fd_ = -1;
  }
  return *this;
}

void Segment::reset() noexcept {
  close_backing_file();
  if (base_ != nullptr) {
    {
      // Observers drop what they hold on these pages (e.g. a CUDA page-lock, which would
      // otherwise outlive the mapping and alias whatever is mapped here next).
      auto& m = mappings();
      std::lock_guard<std::mutex> lock(m.mutex);
      m.by_base.erase(reinterpret_cast<std::uintptr_t>(base_));
      for (UnmapObserver* o : m.observers) o->unmapping(base_, size_);
    }
    ::munmap(base_, size_);
  }
  base_ = nullptr;
  size_ = 0;
}

Result<Segment, Error<SegmentCreateError>> Segment::create(const std::string& name,
                                                           std::uint64_t size, SegmentKind kind,
                                                           const SegmentOptions& options) {
  using E = Error<SegmentCreateError>;
  if (!name_ok(name))
    return unexpected(E{SegmentCreateError::InvalidName, describe(name, "bad name")});
  if (size < sizeof(SegmentHeader)) {
    return unexpected(E{SegmentCreateError::Internal, describe(name, "size below header size")});
  }
  const mode_t mode = static_cast<mode_t>(options.mode & 0660);  // never world-accessible
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    int err = errno;
    auto code = err == EEXIST                          ? SegmentCreateError::AlreadyExists
                : err == EACCES                        ? SegmentCreateError::PermissionDenied
                : err == ENAMETOOLONG || err == EINVAL ? SegmentCreateError::InvalidName
                                                       : SegmentCreateError::Internal;
    return unexpected(E{code, describe(name, "shm_open: " + errno_text(err))});
  }
  ::fchmod(fd, mode);
  struct stat st {};
  ::fstat(fd, &st);  // umask may have removed bits the caller asked for (e.g. group sharing)
  // posix_fallocate reserves tmpfs pages up front, so a full /dev/shm is an error here rather
  // than a SIGBUS on first touch later. With a commit prefix only the prefix is reserved now;
  // the owner commit()s the rest piecewise before anyone touches it (chunk pools do, per chunk).
  std::uint64_t reserve = size;
  const bool lazy = options.commit_prefix != 0 && options.commit_prefix < size;
  if (lazy) {
    reserve = options.commit_prefix;
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      int err = errno;
      ::close(fd);
      ::shm_unlink(name.c_str());
      return unexpected(
          E{SegmentCreateError::Internal,
            describe(name, "ftruncate to " + std::to_string(size) + ": " + errno_text(err))});
    }
  }
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(reserve));
  if (rc != 0) {
    ::close(fd);
    ::shm_unlink(name.c_str());
    auto code = (rc == ENOSPC || rc == EFBIG) ? SegmentCreateError::InsufficientSpace
                                              : SegmentCreateError::Internal;
    return unexpected(E{code, describe(name, "reserving " + std::to_string(size) +
                                                 " bytes in /dev/shm: " + errno_text(rc))});
  }
  int flags = MAP_SHARED | (options.populate ? MAP_POPULATE : 0);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (!lazy || p == MAP_FAILED) ::close(fd);
  if (p == MAP_FAILED) {
    int err = errno;
    ::shm_unlink(name.c_str());
    return unexpected(E{SegmentCreateError::Internal, describe(name, "mmap: " + errno_text(err))});
  }
  auto* h = static_cast<SegmentHeader*>(p);
  const ParticipantId me = self();
  h->magic = SEGMENT_MAGIC;
  h->layout_version = SEGMENT_LAYOUT_VERSION;
  h->header_size = sizeof(SegmentHeader);
  h->kind = static_cast<std::uint32_t>(kind);
  h->total_size = size;
  h->creator_pid = me.pid;
  h->creator_start_time = me.start_time;
  return Segment(name, static_cast<std::byte*>(p), size, st.st_ino, lazy ? fd : -1);
}

void Segment::mark_ready() {
  // sync point "segment-ready": release here, acquire in open().
  header()->ready.store(SEGMENT_READY, std::memory_order_release);
}

Result<Segment, Error<SegmentOpenError>> Segment::open(const std::string& name, SegmentKind kind,
                                                       int ready_timeout_ms) {
  using E = Error<SegmentOpenError>;
  if (!name_ok(name))
    return unexpected(E{SegmentOpenError::InvalidName, describe(name, "bad name")});
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    auto code = err == ENOENT   ? SegmentOpenError::DoesNotExist
                : err == EACCES ? SegmentOpenError::PermissionDenied
                                : SegmentOpenError::Internal;
    return unexpected(E{code, describe(name, "shm_open: " + errno_text(err))});
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return unexpected(E{SegmentOpenError::Internal, describe(name, "fstat: " + errno_text(err))});
  }
  if (st.st_uid != ::geteuid()) {
    ::close(fd);
    return unexpected(
        E{SegmentOpenError::PermissionDenied,
          describe(name, "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                             std::to_string(::geteuid()) + ")")});
  }
  // Wait for the creator to finish; only then are the other header fields meaningful.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ready_timeout_ms);
  // A segment just created (O_EXCL) has no size until its creator's posix_fallocate: that is a
  // creation in progress, not corruption (seen when topic directories come and go quickly).
  while (static_cast<std::uint64_t>(st.st_size) < sizeof(SegmentHeader) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (::fstat(fd, &st) != 0) break;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < sizeof(SegmentHeader)) {
    ::close(fd);
    return unexpected(
        E{SegmentOpenError::Corrupt,
          describe(name, "size " + std::to_string(size) + " is below the " +
                             std::to_string(sizeof(SegmentHeader)) + "-byte header")});
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    int err = errno;
    return unexpected(E{SegmentOpenError::Internal, describe(name, "mmap: " + errno_text(err))});
  }
  Segment seg(name, static_cast<std::byte*>(p), size, st.st_ino);
  const SegmentHeader* h = seg.header();

  while (h->ready.load(std::memory_order_acquire) != SEGMENT_READY) {  // sync "segment-ready"
    // A non-zero foreign magic will never become ready: refuse at once instead of waiting.
    if (h->magic != SEGMENT_MAGIC && h->magic != 0) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      const ParticipantId creator{h->creator_pid, h->creator_start_time};
      if (h->magic == SEGMENT_MAGIC && creator.pid != 0 && !is_alive(creator)) {
        return unexpected(E{SegmentOpenError::Stale,
                            describe(name, "its creator (pid " + std::to_string(creator.pid) +
                                               ") died before finishing it")});
      }
      if (h->magic != SEGMENT_MAGIC && h->magic != 0) break;  // report as incompatible below
      return unexpected(E{SegmentOpenError::NotReady, describe(name, "creator has not finished")});
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (h->magic != SEGMENT_MAGIC) {
    return unexpected(
        E{SegmentOpenError::Incompatible, describe(name, "not a baton segment (bad magic)")});
  }
  if (h->layout_version != SEGMENT_LAYOUT_VERSION) {
    return unexpected(
        E{SegmentOpenError::Incompatible,
          describe(name, "layout version " + std::to_string(h->layout_version) +
                             ", this build expects " + std::to_string(SEGMENT_LAYOUT_VERSION))});
  }
  if (h->header_size < sizeof(SegmentHeader) || h->header_size > size) {
    return unexpected(E{SegmentOpenError::Corrupt,
                        describe(name, "header size " + std::to_string(h->header_size))});
  }
  if (h->kind != static_cast<std::uint32_t>(kind)) {
    return unexpected(E{SegmentOpenError::Incompatible,
                        describe(name, "kind " + std::to_string(h->kind) + ", expected " +
                                           std::to_string(static_cast<std::uint32_t>(kind)))});
  }
  if (h->total_size != size) {
    return unexpected(E{SegmentOpenError::Corrupt,
                        describe(name, "header says " + std::to_string(h->total_size) +
                                           " bytes, file has " + std::to_string(size))});
  }
  return seg;
}

namespace {

struct SharedMappings {
  std::mutex mutex;
  std::map<std::pair<std::string, std::uint64_t>, std::weak_ptr<Segment>> by_name_inode;
};
SharedMappings& shared_mappings() {
  static SharedMappings* m = new SharedMappings();  // never destroyed: used from atexit paths
  return *m;
}

std::uint64_t inode_of(const std::string& name) {
  int fd = ::shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return 0;
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  return ok ? st.st_ino : 0;
}

}  // namespace

void Segment::share(const std::shared_ptr<Segment>& segment) {
  auto& m = shared_mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.by_name_inode[{segment->name_, segment->inode_}] = segment;
}

Result<std::shared_ptr<Segment>, Error<SegmentOpenError>> Segment::open_shared(
    const std::string& name, SegmentKind kind, int ready_timeout_ms) {
  const std::uint64_t inode = inode_of(name);
  auto& m = shared_mappings();
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.by_name_inode.find({name, inode});
    if (inode != 0 && it != m.by_name_inode.end()) {
      if (auto existing = it->second.lock()) {
        if (existing->header()->kind == static_cast<std::uint32_t>(kind)) return existing;
      } else {
        m.by_name_inode.erase(it);
      }
    }
  }
  auto opened = open(name, kind, ready_timeout_ms);
  if (!opened) return unexpected(opened.error());
  auto shared = std::make_shared<Segment>(std::move(*opened));
  share(shared);
  return shared;
}

namespace {
// The whole pages covering [offset, offset + length) of a segment of `size` bytes (offset < size,
// length > 0), cut at its end: what commit() and readable() hand to the kernel.
std::pair<std::uint64_t, std::uint64_t> page_span(std::uint64_t offset, std::uint64_t length,
                                                  std::uint64_t size) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t end =
      std::min(size, (offset + std::min(length, size - offset) + page - 1) / page * page);
  return {offset / page * page, end};
}
}  // namespace

Status<Error<SegmentCreateError>> Segment::commit(std::uint64_t offset, std::uint64_t length,
                                                  bool prefault) {
  using E = Error<SegmentCreateError>;
  if (base_ == nullptr || offset >= size_ || length == 0) return Ok{};
  const auto [begin, end] = page_span(offset, length, size_);
  if (const int err = reserve_pages(begin, end); err != 0) {
    // EFAULT / ENOMEM: MADV_POPULATE_WRITE where a write would have raised SIGBUS.
    const bool full = err == ENOSPC || err == EFBIG || err == EFAULT || err == ENOMEM;
    return unexpected(
        E{full ? SegmentCreateError::InsufficientSpace : SegmentCreateError::Internal,
          describe(name_, "reserving " + std::to_string(end - begin) + " bytes at offset " +
                              std::to_string(begin) + " in /dev/shm: " + errno_text(err))});
  }
  // Best effort: on a kernel without MADV_POPULATE_WRITE (< 5.14) the pages are still
  // reserved, the first writes just fault them in. Pages populated already are only looked at.
  if (prefault) ::madvise(base_ + begin, end - begin, MADV_POPULATE_WRITE);
  return Ok{};
}

bool Segment::readable(std::uint64_t offset, std::uint64_t length) const noexcept {
  if (length == 0) return true;
  if (base_ == nullptr || offset >= size_) return false;
  const auto [begin, end] = page_span(offset, length, size_);
  return ::madvise(base_ + begin, end - begin, MADV_POPULATE_READ) == 0 || errno == EINVAL;
}

int Segment::reserve_pages(std::uint64_t begin, std::uint64_t end) {
  const auto at = static_cast<off_t>(begin);
  const auto length = static_cast<off_t>(end - begin);
  if (fd_ >= 0) return ::posix_fallocate(fd_, at, length);
  // No file kept: MADV_POPULATE_WRITE allocates the missing pages of the file and maps them
  // here; where a write would raise SIGBUS (a full /dev/shm) it fails with EFAULT instead, and on
  // no memory with ENOMEM. Pages committed before are only mapped.
  if (::madvise(base_ + begin, end - begin, MADV_POPULATE_WRITE) == 0) return 0;
  if (errno != EINVAL) return errno;
  // Before Linux 5.14: through the file, if the name still names the file this segment maps (a
  // successor's pages are not ours to allocate).
  const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return errno;
  struct stat st {};
  int rc = ENOENT;
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_ino) == inode_) {
    rc = ::posix_fallocate(fd, at, length);
  }
  ::close(fd);
  return rc;
}

void Segment::close_backing_file() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Segment::unlink() { return unlink(name_); }

bool Segment::unlink(const std::string& name) { return ::shm_unlink(name.c_str()) == 0; }

bool Segment::unlink_if_same() {
  // Our mapping keeps our file's inode allocated, so no other file can carry its number.
  if (base_ == nullptr || inode_of(name_) != inode_) return false;
  return unlink(name_);
}

bool Segment::remove_if_stale(const std::string& name) {
  if (!name_ok(name)) return false;
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return errno == ENOENT;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_uid != ::geteuid() ||
      static_cast<std::uint64_t>(st.st_size) < sizeof(SegmentHeader)) {
    ::close(fd);
    return false;
  }
  void* p = ::mmap(nullptr, sizeof(SegmentHeader), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  // The header is all we touch, so a mapping of just that is a Segment of its own size.
  Segment seg(name, static_cast<std::byte*>(p), sizeof(SegmentHeader), st.st_ino);
  SegmentHeader* h = seg.header();
  std::uint32_t ready = h->ready.load(std::memory_order_acquire);
  if (h->magic != SEGMENT_MAGIC || ready == SEGMENT_READY) return false;
  // Whoever holds the segment now: its remover, or its creator while nobody removes it yet.
  const ParticipantId holder = is_stale_removal(ready)
                                   ? ParticipantId{ready & ~STALE_REMOVAL_TAG, 0}
                                   : ParticipantId{h->creator_pid, h->creator_start_time};
  if (holder.pid == 0 || is_alive(holder)) return false;
  // Sync point "stale-removal": only the CAS winner may unlink, and only this very file.
  if (!h->ready.compare_exchange_strong(ready, stale_removal_ready(self().pid),
                                        std::memory_order_acq_rel)) {
    return false;
  }
  seg.unlink_if_same();
  return true;
}

}  // namespace baton::shm
