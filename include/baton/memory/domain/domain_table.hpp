// A process's handle on one publisher's domain copy table (domain_table_layout.hpp): registers
// domains, makes and shares per-domain copies of messages, and sweeps what dead peers held.
//
// Thread safety: all members may be called from any thread (process-local state is locked;
// shared state is lock-free or guarded by owner-word locks in the segment).
// Failure guarantee: an error leaves the table unchanged, except that a row may have been
// recycled for the message asked about (which any taker would have done).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/memory/domain/domain_backend.hpp"
#include "baton/memory/domain/domain_table_layout.hpp"
#include "baton/shm/segment.hpp"

namespace baton::memory::domain {

// One reader's pin on a copy: valid until released with DomainTable::release().
struct CopyPin {
  std::uint32_t domain = 0;
  std::uint32_t slot = INVALID_COPY;
  DomainPool pool;  // the pool holding the copy (this process's mapping)
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  bool made_copy = false;  // this call copied the bytes (false: shared an existing copy)
};

struct DomainTableOptions {
  std::uint64_t min_pool_bytes = 16ull << 20;    // a domain's pools grow by at least this much
  std::int64_t lock_timeout_ns = 2'000'000'000;  // give up waiting for a live copier (Busy)
};

class DomainTable {
 public:
  // Opens the table `name` (a user-level name; the segment is shm::segment_name("x", name)),
  // creating it with `ring_capacity` rows if it does not exist. One handle per process per name.
  static Result<std::shared_ptr<DomainTable>, Error<DomainError>> open_or_create(
      const std::string& name, std::uint32_t ring_capacity, DomainTableOptions options = {});
  // Removes the table's segment and its domains' pool segments (mappings stay valid).
  static void unlink(const std::string& name);

  // The index of `backend`'s domain in this table, registering it if needed (host is always 0).
  // Domains whose pools cannot be exported are registered per process.
  Result<std::uint32_t, Error<DomainError>> register_domain(std::shared_ptr<DomainBackend> backend);

  // Subscriber slot k starts reading through this table: drops whatever stale bits a previous
  // occupant of slot k left, then names this process as the owner of bit k.
  void register_reader(std::uint32_t k);
  void unregister_reader(std::uint32_t k);

  // A copy of message `seq` (host bytes `host`, `size` long) in domain `d`, pinned for reader k:
  // the existing copy if there is one, else one made now (exactly one process copies).
  Result<CopyPin, Error<DomainError>> acquire(std::uint32_t d, std::uint32_t k, std::uint64_t seq,
                                              const std::byte* host, std::uint64_t size);
  // Drops reader k's pin; a copy no row and no reader holds becomes free.
  void release(const CopyPin& pin, std::uint32_t k) noexcept;

  // Host bytes of `seq` (the publisher's chunk, `host`): if the message was published in a device
  // domain and not yet copied back, copies it into `host` once (the first host reader does).
  Status<DomainError> ensure_host(std::uint64_t seq, std::byte* host, std::uint64_t size);

  // Publisher side: a slot in domain d for a message the publisher writes in the device domain;
  // then attach it to message `seq` (host_pending: the host chunk is not written).
  Result<CopyPin, Error<DomainError>> allocate_for_publish(std::uint32_t d, std::uint64_t size);
  Status<DomainError> attach_published(const CopyPin& pin, std::uint64_t seq, bool host_pending);
  void discard_unpublished(const CopyPin& pin) noexcept;
  // Detaches every copy from message `seq` (a publish that failed after attach_published).
  void detach(std::uint64_t seq) noexcept;

  // True if message `seq` has a copy in domain d right now (a snapshot).
  bool has_copy(std::uint32_t d, std::uint64_t seq) const noexcept;

  // Records a copy into domain d made outside acquire() (e.g. a publisher's eager host copy).
  void count_copy(std::uint32_t d, std::uint64_t bytes) noexcept;

  // Copies made into domain d so far, by every process (shared counter).
  std::uint64_t copies(std::uint32_t d) const noexcept;
  std::uint64_t reader_mask() const noexcept;
  // True if a registered reader belongs to another process (a snapshot). Such a reader cannot
  // reach copies in this process's per-process domains (OpenCL has no IPC), so a publisher in one
  // must write the host bytes at publish for it.
  bool readers_elsewhere() const noexcept;
  std::uint32_t domain_count() const noexcept;
  std::uint32_t ring_capacity() const noexcept { return ring_; }
  const std::string& name() const noexcept { return name_; }
  DomainBackend* backend(std::uint32_t d);  // null if d is not open in this process

  // Drops references held by dead readers / copiers in domain d; returns the slots freed.
  std::uint32_t sweep(std::uint32_t d);

 private:
  DomainTable() = default;
  static Result<std::shared_ptr<DomainTable>, Error<DomainError>> open_uncached(
      const std::string& name, std::uint32_t ring_capacity, DomainTableOptions options);
  TableRow& row(std::uint64_t seq) const noexcept { return rows_[seq % ring_]; }
  CopySlot* slots(std::uint32_t d) const noexcept {
    return slots_ + std::uint64_t{d} * per_domain_;
  }
  std::uint64_t me() const noexcept;  // this process's owner word
  bool lock(std::atomic<std::uint64_t>& w) const noexcept;
  void unlock(std::atomic<std::uint64_t>& w) const noexcept;
  void recycle_locked(TableRow& r, std::uint64_t seq) noexcept;
  Status<DomainError> make_current(TableRow& r, std::uint64_t seq);
  bool pin(std::uint32_t d, std::uint32_t idx, std::uint32_t k, std::uint64_t seq) noexcept;
  Result<std::uint32_t, Error<DomainError>> claim_slot(std::uint32_t d, std::uint64_t claim_bits,
                                                       std::uint64_t seq, std::uint64_t size);
  Result<DomainPool, Error<DomainError>> pool(std::uint32_t d, std::uint32_t p);
  Result<CopyPin, Error<DomainError>> pin_result(std::uint32_t d, std::uint32_t idx, bool made);
  std::shared_ptr<DomainBackend> backend_for(std::uint32_t d);

  struct Local {
    std::shared_ptr<DomainBackend> backend;
    std::vector<DomainPool> pools;  // index = pool record index
  };

  std::string name_;
  DomainTableOptions options_;
  shm::Segment segment_;
  DomainTableHeader* header_ = nullptr;
  ReaderEntry* readers_ = nullptr;
  DomainEntry* domains_ = nullptr;
  CopySlot* slots_ = nullptr;
  TableRow* rows_ = nullptr;
  std::uint32_t ring_ = 1;
  std::uint32_t per_domain_ = 1;
  std::mutex mutex_;
  Local local_[MAX_DOMAINS];
};

}  // namespace baton::memory::domain
