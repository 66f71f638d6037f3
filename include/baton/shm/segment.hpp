// A mapped POSIX shared-memory segment that begins with a validated SegmentHeader.
//
// Create: O_EXCL, mode 0600 by default (per-user), header written, `ready` published last.
// Open: checks owner uid, size, magic -> version -> header size -> kind -> total size -> ready,
// in that order, before anything else is read. A Segment owns its mapping (unmapped in the
// destructor); it never unlinks the name unless asked (`unlink()`), because other processes may
// still be using it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/common/result.hpp"
#include "baton/shm/segment_error.hpp"
#include "baton/shm/segment_layout.hpp"

namespace baton::shm {

struct SegmentOptions {
  std::uint32_t mode = 0600;  // 0660 shares with the group; never world-accessible
  bool populate = false;      // pre-fault pages (MAP_POPULATE) so the hot path never faults
  // Bytes reserved in /dev/shm at creation, from the start (0: the whole segment). The rest is
  // a hole that costs address space only until commit() reserves it; the segment keeps its file
  // open for that until close_backing_file().
  std::uint64_t commit_prefix = 0;
};

class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  // Creates `name` (a full shm name from naming.hpp) of `size` bytes (>= header) for `kind`.
  // The caller initialises the body, then calls mark_ready().
  static Result<Segment, Error<SegmentCreateError>> create(const std::string& name,
                                                           std::uint64_t size, SegmentKind kind,
                                                           const SegmentOptions& options = {});

  // Opens and validates an existing segment. Waits up to `ready_timeout_ms` for its creator to
  // finish initialising it.
  static Result<Segment, Error<SegmentOpenError>> open(const std::string& name, SegmentKind kind,
                                                       int ready_timeout_ms = 1000);

  // Like open(), but one mapping per segment per process: if this process already maps the same
  // file (same inode), that mapping is shared. Intra-process readers thus see the very same
  // addresses as the writer.
  static Result<std::shared_ptr<Segment>, Error<SegmentOpenError>> open_shared(
      const std::string& name, SegmentKind kind, int ready_timeout_ms = 1000);
  // Registers a segment this process created so open_shared() finds it.
  static void share(const std::shared_ptr<Segment>& segment);

  // Publishes the body written after create(): readers that open the segment see it complete.
  void mark_ready();

  // Reserves the pages of [offset, offset + length) in /dev/shm (posix_fallocate, which
  // zero-fills them), so no process faults on them for lack of memory (no SIGBUS): a full
  // /dev/shm is an InsufficientSpace error here instead. With `prefault` the pages are also
  // mapped writable in this mapping now (MADV_POPULATE_WRITE), so the first writes take no page
  // faults. Cold path; the range is widened to whole pages and clamped to the segment.
  // Any process that maps the segment may commit: where no file is kept (a segment opened, or
  // created without a commit_prefix, or after close_backing_file()) the pages are reserved
  // through this mapping (MADV_POPULATE_WRITE, which also prefaults them), so a process that
  // writes a part of someone else's segment first commits that part and never faults.
  Status<Error<SegmentCreateError>> commit(std::uint64_t offset, std::uint64_t length,
                                           bool prefault);
  // True if the pages of [offset, offset + length) can be read without a SIGBUS: each is
  // mapped now (MADV_POPULATE_READ maps a committed page, allocates a hole's, and fails where
  // /dev/shm is full; a plain read of a hole raises SIGBUS there). For tables whose fill mark
  // lives in shared memory, which a peer may have raised past the pages anyone committed.
  // Before Linux 5.14 (no MADV_POPULATE_READ) it cannot tell: true, the read is as before.
  bool readable(std::uint64_t offset, std::uint64_t length) const noexcept;
  // Closes the file kept open for commit() (once everything is committed).
  void close_backing_file() noexcept;

  // Removes the name (mappings stay valid until unmapped). Returns false if it was already gone.
  bool unlink();
  static bool unlink(const std::string& name);
  // Removes the name only while it still names the file this object maps (same inode), so a
  // successor created under the name after ours was removed is never touched. Race-free for a
  // caller holding the sole right to remove this segment (the holder of Closed in
  // segment_lifecycle.hpp): nobody else unlinks the name while it names our file, and nobody can
  // create a successor while it exists. Returns true if it unlinked.
  bool unlink_if_same();
  // Removes `name` if it is a segment whose creator died before marking it ready (what open()
  // reports as Stale). The remover first takes the sole right to remove it by CAS on the `ready`
  // word (stale_removal_ready(pid), segment_layout.hpp; a dead remover's right is taken over),
  // then unlinks with unlink_if_same(): two processes finding one stale segment never remove a
  // successor created by a third. Returns true if the name no longer names that segment
  // (removed, or it had gone already); false if it is not stale or a live remover is at it.
  static bool remove_if_stale(const std::string& name);

  bool valid() const noexcept { return base_ != nullptr; }
  std::byte* base() const noexcept { return base_; }
  std::uint64_t size() const noexcept { return size_; }
  const std::string& name() const noexcept { return name_; }
  SegmentHeader* header() const noexcept { return reinterpret_cast<SegmentHeader*>(base_); }

  // Typed access at a byte offset; the caller has bounds-checked `offset + sizeof(T) <= size()`.
  template <typename T>
  T* at(std::uint64_t offset) const noexcept {
    return reinterpret_cast<T*>(base_ + offset);
  }
  bool contains(std::uint64_t offset, std::uint64_t length) const noexcept {
    return offset <= size_ && length <= size_ - offset;
  }

  // The mappings of every Segment in this process, for code that keeps per-address state about
  // their bytes (the CUDA domain page-locks chunk ranges it copies): whether bytes lie in one,
  // and a call before one is unmapped, so that state goes while the pages are still there.
  class UnmapObserver {
   public:
    // [base, base + size) is about to be unmapped. Runs on the unmapping thread, under the
    // registry's lock: it must not create, open or destroy a Segment.
    virtual void unmapping(const std::byte* base, std::uint64_t size) noexcept = 0;

   protected:
    ~UnmapObserver() = default;
  };
  // True when [p, p + n) lies inside one live Segment mapping of this process.
  static bool mapped(const void* p, std::uint64_t n) noexcept;
  static void observe_unmaps(UnmapObserver* observer);
  // After this returns no call to `observer` is running or will be made.
  static void unobserve_unmaps(UnmapObserver* observer) noexcept;

 private:
  Segment(std::string name, std::byte* base, std::uint64_t size, std::uint64_t inode, int fd = -1);
  void reset() noexcept;
  // commit()'s reservation of whole pages [begin, end): through the kept file, else through
  // this mapping. 0 or an errno value.
  int reserve_pages(std::uint64_t begin, std::uint64_t end);

  std::string name_;
  std::byte* base_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t inode_ = 0;
  int fd_ = -1;  // kept open only while commit() may still be called
};

}  // namespace baton::shm
