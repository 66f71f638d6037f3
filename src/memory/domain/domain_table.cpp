#include "baton/memory/domain/domain_table.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/staging_backend.hpp"
#include "baton/shm/clock.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"

namespace baton::memory::domain {
namespace {

using E = Error<DomainError>;
constexpr std::uint32_t MAX_TABLE_RING = 1u << 16;
constexpr std::uint32_t MAX_SLOTS_PER_DOMAIN = 4096;

std::string table_segment_name(const std::string& name) { return shm::segment_name("x", name); }
std::string pool_name(const std::string& table, std::uint32_t d, std::uint32_t p) {
  return table + ".d" + std::to_string(d) + ".p" + std::to_string(p);
}

bool owner_alive(std::uint64_t w) {
  if (w == 0) return false;
  const std::uint64_t st = shm::process_start_time(owner_pid(w));
  return st != 0 && (st & 0xFFFFFFFFu) == (w & 0xFFFFFFFFu);
}

void backoff(std::uint32_t& spins) {
  if (++spins < 64) {
    sched_yield();
  } else {
    ::usleep(50);
  }
}

std::uint64_t next_pow2(std::uint64_t v) {
  std::uint64_t p = 4096;
  while (p < v) p <<= 1;
  return p;
}

// Sound geometry of an opened table, or what is wrong with it.
std::string validate(const shm::Segment& seg) {
  if (!seg.contains(DomainTableLayout::header_offset, sizeof(DomainTableHeader))) {
    return "too small for its header";
  }
  const auto* h = seg.at<DomainTableHeader>(DomainTableLayout::header_offset);
  if (h->ring_capacity == 0 || h->ring_capacity > MAX_TABLE_RING) return "bad ring capacity";
  if (h->slots_per_domain == 0 || h->slots_per_domain > MAX_SLOTS_PER_DOMAIN) {
    return "bad slots per domain";
  }
  if (h->readers_offset != DomainTableLayout::readers_offset ||
      h->domains_offset != DomainTableLayout::domains_offset ||
      h->slots_offset != DomainTableLayout::slots_offset ||
      h->rows_offset != DomainTableLayout::rows_offset(h->slots_per_domain)) {
    return "offsets differ from this build's layout";
  }
  if (seg.size() != DomainTableLayout::total_size(h->ring_capacity, h->slots_per_domain)) {
    return "size " + std::to_string(seg.size()) + " does not match its geometry";
  }
  return {};
}

}  // namespace

Result<std::shared_ptr<DomainTable>, Error<DomainError>> DomainTable::open_or_create(
    const std::string& name, std::uint32_t ring_capacity, DomainTableOptions options) {
  // One handle per table per process: per-process pools and imported mappings live in it, so
  // every subscriber of this process shares them.
  static std::mutex open_mutex;
  static std::map<std::string, std::weak_ptr<DomainTable>> open_tables;
  std::lock_guard<std::mutex> open_lock(open_mutex);
  if (auto it = open_tables.find(name); it != open_tables.end()) {
    if (auto t = it->second.lock()) return t;
  }
  auto t = open_uncached(name, ring_capacity, options);
  if (t) open_tables[name] = *t;
  return t;
}

Result<std::shared_ptr<DomainTable>, Error<DomainError>> DomainTable::open_uncached(
    const std::string& name, std::uint32_t ring_capacity, DomainTableOptions options) {
  const std::string seg_name = table_segment_name(name);
  const std::uint32_t ring = std::clamp<std::uint32_t>(ring_capacity, 1, MAX_TABLE_RING);
  const std::uint32_t per_domain = std::clamp<std::uint32_t>(ring + 32, 8, MAX_SLOTS_PER_DOMAIN);
  std::shared_ptr<DomainTable> t(new DomainTable());
  auto created = shm::Segment::create(seg_name, DomainTableLayout::total_size(ring, per_domain),
                                      shm::SegmentKind::DomainTable);
  if (created) {
    t->segment_ = std::move(*created);
    auto* h = t->segment_.at<DomainTableHeader>(DomainTableLayout::header_offset);
    h->ring_capacity = ring;
    h->slots_per_domain = per_domain;
    h->readers_offset = DomainTableLayout::readers_offset;
    h->domains_offset = DomainTableLayout::domains_offset;
    h->slots_offset = DomainTableLayout::slots_offset;
    h->rows_offset = DomainTableLayout::rows_offset(per_domain);
    auto* rows = t->segment_.at<TableRow>(h->rows_offset);
    for (std::uint32_t i = 0; i < ring; ++i) {
      rows[i].seq.store(TABLE_EMPTY_ROW, std::memory_order_relaxed);
      for (auto& c : rows[i].copy) c.store(INVALID_COPY, std::memory_order_relaxed);
    }
    auto* host = t->segment_.at<DomainEntry>(DomainTableLayout::domains_offset);
    std::strncpy(host->spec, "host", DOMAIN_SPEC_CAPACITY - 1);
    host->state.store(DOMAIN_READY, std::memory_order_relaxed);
    h->domain_count.store(1, std::memory_order_relaxed);
    t->segment_.mark_ready();
  } else if (created.error().code == shm::SegmentCreateError::AlreadyExists) {
    auto opened = shm::Segment::open(seg_name, shm::SegmentKind::DomainTable, 1000);
    if (!opened) return unexpected(E{DomainError::Internal, opened.error().detail});
    if (auto why = validate(*opened); !why.empty()) {
      return unexpected(E{DomainError::Internal, "domain table '" + seg_name + "': " + why});
    }
    t->segment_ = std::move(*opened);
  } else {
    return unexpected(E{DomainError::OutOfMemory, created.error().detail});
  }
  t->name_ = name;
  t->options_ = options;
  t->header_ = t->segment_.at<DomainTableHeader>(DomainTableLayout::header_offset);
  t->ring_ = t->header_->ring_capacity;
  t->per_domain_ = t->header_->slots_per_domain;
  t->readers_ = t->segment_.at<ReaderEntry>(DomainTableLayout::readers_offset);
  t->domains_ = t->segment_.at<DomainEntry>(DomainTableLayout::domains_offset);
  t->slots_ = t->segment_.at<CopySlot>(DomainTableLayout::slots_offset);
  t->rows_ = t->segment_.at<TableRow>(DomainTableLayout::rows_offset(t->per_domain_));
  return t;
}

void DomainTable::unlink(const std::string& name) {
  const std::string seg_name = table_segment_name(name);
  if (auto seg = shm::Segment::open(seg_name, shm::SegmentKind::DomainTable, 0)) {
    if (validate(*seg).empty()) {
      const auto* domains = seg->at<DomainEntry>(DomainTableLayout::domains_offset);
      for (std::uint32_t d = 1; d < MAX_DOMAINS; ++d) {
        const std::uint32_t pools =
            std::min(domains[d].pool_count.load(std::memory_order_acquire), MAX_POOLS_PER_DOMAIN);
        for (std::uint32_t p = 0; p < pools; ++p)
          StagingBackend::unlink_pool(pool_name(name, d, p));
      }
    }
  }
  shm::Segment::unlink(seg_name);
}

std::uint64_t DomainTable::me() const noexcept {
  const shm::ParticipantId self = shm::self();  // refreshed after fork()
  return owner_word(self.pid, self.start_time);
}

bool DomainTable::lock(std::atomic<std::uint64_t>& w) const noexcept {
  const std::int64_t deadline = shm::monotonic_ns() + options_.lock_timeout_ns;
  std::uint32_t spins = 0;
  while (true) {
    std::uint64_t cur = 0;
    if (w.compare_exchange_strong(cur, me(), std::memory_order_acq_rel)) return true;
    // A lock whose owner died is broken by the next contender (every step under it is redone).
    if (cur != me() && !owner_alive(cur) &&
        w.compare_exchange_strong(cur, me(), std::memory_order_acq_rel)) {
      return true;
    }
    if (shm::monotonic_ns() > deadline) return false;
    backoff(spins);
  }
}

void DomainTable::unlock(std::atomic<std::uint64_t>& w) const noexcept {
  std::uint64_t cur = me();
  w.compare_exchange_strong(cur, 0, std::memory_order_acq_rel);
}

Result<std::uint32_t, Error<DomainError>> DomainTable::register_domain(
    std::shared_ptr<DomainBackend> backend) {
  const std::string spec = backend->spec().str();
  if (spec.size() >= DOMAIN_SPEC_CAPACITY) {
    return unexpected(E{DomainError::InvalidSpec, "domain name too long: " + spec});
  }
  if (backend->spec().kind == DomainKind::Host) {
    std::lock_guard<std::mutex> g(mutex_);
    local_[0].backend = std::move(backend);
    return 0u;
  }
  // Copies a process cannot export belong to that process alone: register it per process.
  const bool per_process = !backend->zero_copy_from_host() && !backend->can_export();
  const std::uint64_t owner = per_process ? me() : 0;
  for (std::uint32_t d = 1; d < MAX_DOMAINS; ++d) {
    DomainEntry& e = domains_[d];
    std::uint32_t state = e.state.load(std::memory_order_acquire);  // sync "domain-ready"
    const std::int64_t deadline = shm::monotonic_ns() + 100'000'000;
    std::uint32_t spins = 0;
    while (state == DOMAIN_CLAIMED &&
           shm::monotonic_ns() < deadline) {  // a registrant is writing it
      backoff(spins);
      state = e.state.load(std::memory_order_acquire);
    }
    if (state == DOMAIN_FREE) {
      if (!e.state.compare_exchange_strong(state, DOMAIN_CLAIMED, std::memory_order_acq_rel)) {
        --d;  // lost the race: look at this entry again
        continue;
      }
      std::memset(e.spec, 0, sizeof(e.spec));
      std::memcpy(e.spec, spec.data(), spec.size());
      e.owner = owner;
      e.state.store(DOMAIN_READY, std::memory_order_release);  // sync "domain-ready"
      std::uint32_t count = header_->domain_count.load(std::memory_order_acquire);
      while (count < d + 1 && !header_->domain_count.compare_exchange_weak(
                                  count, d + 1, std::memory_order_acq_rel)) {
      }
      state = DOMAIN_READY;
    }
    if (state != DOMAIN_READY) continue;
    char text[DOMAIN_SPEC_CAPACITY] = {};
    std::memcpy(text, e.spec, DOMAIN_SPEC_CAPACITY - 1);  // untrusted: force termination
    if (spec == text && e.owner == owner) {
      std::lock_guard<std::mutex> g(mutex_);
      local_[d].backend = std::move(backend);
      return d;
    }
  }
  return unexpected(E{DomainError::OutOfMemory, "table '" + name() + "' already has " +
                                                    std::to_string(MAX_DOMAINS) + " domains"});
}

void DomainTable::register_reader(std::uint32_t k) {
  if (k >= MAX_TABLE_READERS) return;
  const std::uint64_t bit = 1ull << k;
  const std::uint32_t n = std::min(domain_count(), MAX_DOMAINS);
  for (std::uint32_t d = 0; d < n; ++d) {
    for (std::uint32_t i = 0; i < per_domain_; ++i) {
      if (slots(d)[i].refs.load(std::memory_order_relaxed) & bit) {
        slots(d)[i].refs.fetch_and(~bit, std::memory_order_acq_rel);  // a previous occupant's
      }
    }
  }
  readers_[k].owner.store(me(), std::memory_order_release);
  header_->reader_mask.fetch_or(bit, std::memory_order_acq_rel);
}

void DomainTable::unregister_reader(std::uint32_t k) {
  if (k >= MAX_TABLE_READERS) return;
  header_->reader_mask.fetch_and(~(1ull << k), std::memory_order_acq_rel);
  readers_[k].owner.store(0, std::memory_order_release);
}

bool DomainTable::has_copy(std::uint32_t d, std::uint64_t seq) const noexcept {
  if (d >= MAX_DOMAINS) return false;
  const TableRow& r = row(seq);
  return r.seq.load(std::memory_order_acquire) == seq &&
         (r.avail.load(std::memory_order_acquire) & (1u << d)) != 0;
}

std::uint64_t DomainTable::copies(std::uint32_t d) const noexcept {
  return d < MAX_DOMAINS ? domains_[d].copies.load(std::memory_order_relaxed) : 0;
}
std::uint64_t DomainTable::reader_mask() const noexcept {
  return header_->reader_mask.load(std::memory_order_acquire);
}
bool DomainTable::readers_elsewhere() const noexcept {
  std::uint64_t mask = reader_mask();
  const std::uint64_t self = me();
  while (mask != 0) {
    const auto k = static_cast<std::uint32_t>(__builtin_ctzll(mask));
    mask &= mask - 1;
    if (k >= MAX_TABLE_READERS) break;
    const std::uint64_t owner = readers_[k].owner.load(std::memory_order_acquire);
    if (owner != 0 && owner != self) return true;
  }
  return false;
}

std::uint32_t DomainTable::domain_count() const noexcept {
  return std::min(header_->domain_count.load(std::memory_order_acquire), MAX_DOMAINS);
}

std::shared_ptr<DomainBackend> DomainTable::backend_for(std::uint32_t d) {
  if (d >= MAX_DOMAINS) return nullptr;
  std::lock_guard<std::mutex> g(mutex_);
  if (local_[d].backend) return local_[d].backend;
  const DomainEntry& e = domains_[d];
  if (e.state.load(std::memory_order_acquire) != DOMAIN_READY || e.owner != 0) return nullptr;
  char text[DOMAIN_SPEC_CAPACITY] = {};
  std::memcpy(text, e.spec, DOMAIN_SPEC_CAPACITY - 1);
  auto b = open_domain(std::string_view(text));
  if (!b) return nullptr;
  local_[d].backend = *b;
  return *b;
}

DomainBackend* DomainTable::backend(std::uint32_t d) { return backend_for(d).get(); }

void DomainTable::recycle_locked(TableRow& r, std::uint64_t seq) noexcept {
  const std::uint64_t old = r.seq.load(std::memory_order_acquire);
  std::uint32_t avail = r.avail.load(std::memory_order_acquire);
  while (avail != 0) {
    const auto d = static_cast<std::uint32_t>(__builtin_ctz(avail));
    avail &= avail - 1;
    const std::uint32_t idx = r.copy[d].load(std::memory_order_acquire);
    // Only the slot still holding the old message: redoing this after a dead recycler is harmless.
    if (idx < per_domain_ && slots(d)[idx].seq.load(std::memory_order_acquire) == old) {
      slots(d)[idx].refs.fetch_and(~ROW_REF, std::memory_order_acq_rel);
    }
    r.copy[d].store(INVALID_COPY, std::memory_order_relaxed);
  }
  r.avail.store(0, std::memory_order_release);
  r.flags.store(0, std::memory_order_release);
  r.seq.store(seq, std::memory_order_release);  // sync point "row-recycle"
}

Status<DomainError> DomainTable::make_current(TableRow& r, std::uint64_t seq) {
  while (true) {
    const std::uint64_t cur = r.seq.load(std::memory_order_acquire);  // sync "row-recycle"
    if (cur == seq) return Ok{};
    if (cur != TABLE_EMPTY_ROW && cur > seq) return unexpected(DomainError::OutOfRange);
    if (!lock(r.row_lock)) return unexpected(DomainError::Busy);
    const std::uint64_t again = r.seq.load(std::memory_order_acquire);
    if (again == TABLE_EMPTY_ROW || again < seq) recycle_locked(r, seq);
    unlock(r.row_lock);
  }
}

bool DomainTable::pin(std::uint32_t d, std::uint32_t idx, std::uint32_t k,
                      std::uint64_t seq) noexcept {
  if (idx >= per_domain_ || k >= MAX_TABLE_READERS) return false;
  CopySlot& s = slots(d)[idx];
  const std::uint64_t bit = 1ull << k;
  std::uint64_t refs = s.refs.load(std::memory_order_acquire);
  bool pinned = false;
  while (refs & ROW_REF) {  // only a copy some row still holds can be pinned
    if (s.refs.compare_exchange_weak(refs, refs | bit, std::memory_order_acq_rel)) {
      pinned = true;
      break;
    }
  }
  if (!pinned) return false;
  if (s.seq.load(std::memory_order_acquire) != seq) {  // recycled and reused meanwhile
    s.refs.fetch_and(~bit, std::memory_order_acq_rel);
    return false;
  }
  return true;
}

Result<DomainPool, Error<DomainError>> DomainTable::pool(std::uint32_t d, std::uint32_t p) {
  if (d >= MAX_DOMAINS || p >= MAX_POOLS_PER_DOMAIN) {
    return unexpected(E{DomainError::OutOfRange, "pool index out of range"});
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (p < local_[d].pools.size() && local_[d].pools[p].valid()) return local_[d].pools[p];
  }
  auto be = backend_for(d);
  if (!be) return unexpected(E{DomainError::Unavailable, "domain not available in this process"});
  PoolRecord& rec = domains_[d].pools[p];
  const std::uint64_t bytes = rec.bytes.load(std::memory_order_acquire);  // sync "pool-ready"
  if (bytes == 0) return unexpected(E{DomainError::OutOfRange, "pool not ready"});
  PoolExport exp;
  std::memcpy(exp.blob, rec.blob, sizeof(exp.blob));
  auto imported = be->import_pool(pool_name(name(), d, p), bytes, exp);
  if (!imported) return unexpected(imported.error());
  std::lock_guard<std::mutex> g(mutex_);
  if (local_[d].pools.size() <= p) local_[d].pools.resize(p + 1);
  local_[d].pools[p] = *imported;
  return *imported;
}

Result<std::uint32_t, Error<DomainError>> DomainTable::claim_slot(std::uint32_t d,
                                                                  std::uint64_t claim_bits,
                                                                  std::uint64_t seq,
                                                                  std::uint64_t size) {
  CopySlot* all = slots(d);
  std::uint32_t idx = INVALID_COPY;
  for (int pass = 0; pass < 2 && idx == INVALID_COPY; ++pass) {
    if (pass == 1) sweep(d);
    for (std::uint32_t i = 0; i < per_domain_; ++i) {
      std::uint64_t zero = 0;
      if (all[i].refs.load(std::memory_order_relaxed) == 0 &&
          all[i].refs.compare_exchange_strong(zero, claim_bits, std::memory_order_acq_rel)) {
        idx = i;
        break;
      }
    }
  }
  if (idx == INVALID_COPY) {
    return unexpected(E{DomainError::OutOfMemory, "all " + std::to_string(per_domain_) +
                                                      " copy slots of the domain are held"});
  }
  CopySlot& s = all[idx];
  s.filler.store(me(), std::memory_order_release);
  s.seq.store(seq, std::memory_order_release);
  s.size.store(size, std::memory_order_release);
  DomainEntry& e = domains_[d];
  const std::uint32_t pools =
      std::min(e.pool_count.load(std::memory_order_acquire), MAX_POOLS_PER_DOMAIN);
  // Reuse the slot's region when it is big enough (and sound: the fields are untrusted).
  if (s.capacity >= size && s.pool < pools &&
      s.offset + s.capacity <= e.pools[s.pool].bytes.load(std::memory_order_acquire)) {
    return idx;
  }
  const std::uint64_t cap = next_pow2(size);
  auto be = backend_for(d);
  if (!be || !lock(e.lock)) {
    s.refs.fetch_and(~claim_bits, std::memory_order_acq_rel);
    return unexpected(E{be ? DomainError::Busy : DomainError::Unavailable, "pool lock"});
  }
  std::uint32_t count =
      std::min(e.pool_count.load(std::memory_order_acquire), MAX_POOLS_PER_DOMAIN);
  std::uint32_t found = INVALID_COPY;
  std::uint64_t offset = 0;
  for (std::uint32_t p = 0; p < count; ++p) {
    const std::uint64_t bytes = e.pools[p].bytes.load(std::memory_order_acquire);
    const std::uint64_t next = e.pools[p].next.load(std::memory_order_relaxed);
    if (next <= bytes && bytes - next >= cap) {
      found = p;
      offset = next;
      e.pools[p].next.store(next + cap, std::memory_order_relaxed);
      break;
    }
  }
  Error<DomainError> failure{DomainError::OutOfMemory, "domain '" + be->spec().str() + "' has " +
                                                           std::to_string(MAX_POOLS_PER_DOMAIN) +
                                                           " full pools"};
  if (found == INVALID_COPY && count < MAX_POOLS_PER_DOMAIN) {
    const std::uint64_t bytes = std::max(options_.min_pool_bytes, cap * 4);
    const std::string pname = pool_name(name(), d, count);
    auto created = be->create_pool(bytes, pname);
    Result<PoolExport, Error<DomainError>> exported = PoolExport{};
    if (created && be->can_export()) exported = be->export_pool(*created);
    if (created && exported) {
      {
        std::lock_guard<std::mutex> g(mutex_);
        if (local_[d].pools.size() <= count) local_[d].pools.resize(count + 1);
        local_[d].pools[count] = *created;
      }
      PoolRecord& rec = e.pools[count];
      std::memcpy(rec.blob, exported->blob, sizeof(rec.blob));
      rec.next.store(cap, std::memory_order_relaxed);
      rec.bytes.store(created->bytes, std::memory_order_release);  // sync "pool-ready"
      e.pool_count.store(count + 1, std::memory_order_release);    // sync "pool-ready"
      found = count;
      offset = 0;
    } else {
      failure = created ? exported.error() : created.error();
    }
  }
  unlock(e.lock);
  if (found == INVALID_COPY) {
    s.refs.fetch_and(~claim_bits, std::memory_order_acq_rel);
    return unexpected(failure);
  }
  s.pool = found;
  s.offset = offset;
  s.capacity = cap;
  return idx;
}

Result<CopyPin, Error<DomainError>> DomainTable::pin_result(std::uint32_t d, std::uint32_t idx,
                                                            bool made) {
  CopySlot& s = slots(d)[idx];
  auto p = pool(d, s.pool);
  if (!p) return unexpected(p.error());
  const std::uint64_t size = s.size.load(std::memory_order_acquire);
  if (s.offset > p->bytes || size > p->bytes - s.offset) {  // untrusted fields
    return unexpected(E{DomainError::OutOfRange, "copy slot outside its pool"});
  }
  CopyPin pin;
  pin.domain = d;
  pin.slot = idx;
  pin.pool = *p;
  pin.offset = s.offset;
  pin.size = size;
  pin.made_copy = made;
  return pin;
}

Result<CopyPin, Error<DomainError>> DomainTable::acquire(std::uint32_t d, std::uint32_t k,
                                                         std::uint64_t seq, const std::byte* host,
                                                         std::uint64_t size) {
  if (d == 0 || d >= domain_count() || k >= MAX_TABLE_READERS) {
    return unexpected(E{DomainError::OutOfRange, "domain or reader index out of range"});
  }
  auto be = backend_for(d);
  if (!be) return unexpected(E{DomainError::Unavailable, "domain not open in this process"});
  const std::uint32_t bit = 1u << d;
  const std::uint64_t my_bit = 1ull << k;
  TableRow& r = row(seq);
  auto copy_into = [&](std::uint32_t idx) -> Status<DomainError> {
    CopySlot& s = slots(d)[idx];
    auto p = pool(d, s.pool);
    if (!p) return unexpected(p.error().code);
    if (auto st = be->copy_from_host(*p, s.offset, host, size); !st) return st;
    domains_[d].copies.fetch_add(1, std::memory_order_relaxed);
    domains_[d].copy_bytes.fetch_add(size, std::memory_order_relaxed);
    return Ok{};
  };
  const std::int64_t deadline = shm::monotonic_ns() + options_.lock_timeout_ns;
  std::uint32_t spins = 0;
  bool overwritten = false;
  while (!overwritten) {
    if (auto st = make_current(r, seq); !st) {
      if (st.error() == DomainError::Busy) return unexpected(E{DomainError::Busy, "row lock"});
      overwritten = true;  // the row has moved on to a newer message
      break;
    }
    if (r.avail.load(std::memory_order_acquire) & bit) {  // sync "copy-publish"
      if (pin(d, r.copy[d].load(std::memory_order_acquire), k, seq)) {
        return pin_result(d, r.copy[d].load(std::memory_order_acquire), false);
      }
      continue;  // recycled between the two loads: look again
    }
    std::uint64_t cur = 0;
    bool mine = r.copy_lock[d].compare_exchange_strong(cur, me(), std::memory_order_acq_rel);
    if (!mine && cur != me() && !owner_alive(cur)) {  // the copier died: take over its lock
      mine = r.copy_lock[d].compare_exchange_strong(cur, me(), std::memory_order_acq_rel);
    }
    if (!mine) {
      if (shm::monotonic_ns() > deadline) return unexpected(E{DomainError::Busy, "copy lock"});
      backoff(spins);  // someone else is copying this message into d: wait for it
      continue;
    }
    if (r.seq.load(std::memory_order_acquire) != seq ||
        (r.avail.load(std::memory_order_acquire) & bit) != 0) {
      unlock(r.copy_lock[d]);
      continue;
    }
    auto idx = claim_slot(d, my_bit, seq, size);
    if (!idx) {
      unlock(r.copy_lock[d]);
      return unexpected(idx.error());
    }
    if (auto st = copy_into(*idx); !st) {
      slots(d)[*idx].refs.fetch_and(~my_bit, std::memory_order_acq_rel);
      unlock(r.copy_lock[d]);
      return unexpected(E{st.error(), "copy into " + be->spec().str()});
    }
    CopySlot& s = slots(d)[*idx];
    if (lock(r.row_lock)) {
      if (r.seq.load(std::memory_order_acquire) == seq) {
        s.refs.fetch_or(ROW_REF, std::memory_order_acq_rel);
        r.copy[d].store(*idx, std::memory_order_relaxed);
        r.avail.fetch_or(bit, std::memory_order_release);  // sync point "copy-publish"
      }
      unlock(r.row_lock);
    }
    s.filler.store(0, std::memory_order_release);
    unlock(r.copy_lock[d]);
    return pin_result(d, *idx, true);
  }
  // The message left the table before anyone copied it for us: a private copy, never shared.
  auto idx = claim_slot(d, my_bit, seq, size);
  if (!idx) return unexpected(idx.error());
  if (auto st = copy_into(*idx); !st) {
    slots(d)[*idx].refs.fetch_and(~my_bit, std::memory_order_acq_rel);
    return unexpected(E{st.error(), "copy into " + be->spec().str()});
  }
  slots(d)[*idx].filler.store(0, std::memory_order_release);
  return pin_result(d, *idx, true);
}

void DomainTable::release(const CopyPin& pin, std::uint32_t k) noexcept {
  if (pin.slot >= per_domain_ || pin.domain >= MAX_DOMAINS || k >= MAX_TABLE_READERS) return;
  slots(pin.domain)[pin.slot].refs.fetch_and(~(1ull << k), std::memory_order_acq_rel);
}

void DomainTable::count_copy(std::uint32_t d, std::uint64_t bytes) noexcept {
  if (d >= MAX_DOMAINS) return;
  domains_[d].copies.fetch_add(1, std::memory_order_relaxed);
  domains_[d].copy_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

Status<DomainError> DomainTable::ensure_host(std::uint64_t seq, std::byte* host,
                                             std::uint64_t size) {
  TableRow& r = row(seq);
  auto pending = [&] {
    return r.seq.load(std::memory_order_acquire) == seq &&
           (r.flags.load(std::memory_order_acquire) & HOST_PENDING) != 0;
  };
  if (!pending()) return Ok{};
  if (!lock(r.copy_lock[0])) return unexpected(DomainError::Busy);
  Status<DomainError> result = Ok{};
  if (pending()) {
    result = unexpected(DomainError::Unavailable);
    std::uint32_t avail = r.avail.load(std::memory_order_acquire) & ~1u;
    while (avail != 0) {
      const auto d = static_cast<std::uint32_t>(__builtin_ctz(avail));
      avail &= avail - 1;
      auto be = backend_for(d);
      const std::uint32_t idx = r.copy[d].load(std::memory_order_acquire);
      if (!be || idx >= per_domain_) continue;
      // Hold the copy with the row's own reference while reading: pin it as "the publisher row".
      CopySlot& s = slots(d)[idx];
      if ((s.refs.load(std::memory_order_acquire) & ROW_REF) == 0 ||
          s.seq.load(std::memory_order_acquire) != seq) {
        continue;
      }
      auto p = pool(d, s.pool);
      if (!p || size > s.size.load(std::memory_order_acquire)) continue;
      if (be->copy_to_host(host, *p, s.offset, size)) {
        domains_[0].copies.fetch_add(1, std::memory_order_relaxed);
        domains_[0].copy_bytes.fetch_add(size, std::memory_order_relaxed);
        r.flags.fetch_and(~HOST_PENDING, std::memory_order_release);
        result = Ok{};
        break;
      }
    }
  }
  unlock(r.copy_lock[0]);
  return result;
}

Result<CopyPin, Error<DomainError>> DomainTable::allocate_for_publish(std::uint32_t d,
                                                                      std::uint64_t size) {
  if (d == 0 || d >= domain_count()) {
    return unexpected(E{DomainError::OutOfRange, "domain index out of range"});
  }
  // Held as if by a row from the start; `filler` (this process) keeps sweepers away until the
  // slot is attached to its message.
  auto idx = claim_slot(d, ROW_REF, TABLE_EMPTY_ROW, size);
  if (!idx) return unexpected(idx.error());
  auto pin = pin_result(d, *idx, false);
  if (!pin) discard_unpublished(CopyPin{d, *idx});
  return pin;
}

Status<DomainError> DomainTable::attach_published(const CopyPin& pin, std::uint64_t seq,
                                                  bool host_pending) {
  if (pin.slot >= per_domain_ || pin.domain == 0 || pin.domain >= MAX_DOMAINS) {
    return unexpected(DomainError::OutOfRange);
  }
  TableRow& r = row(seq);
  if (auto st = make_current(r, seq); !st) return st;
  if (!lock(r.row_lock)) return unexpected(DomainError::Busy);
  CopySlot& s = slots(pin.domain)[pin.slot];
  s.seq.store(seq, std::memory_order_release);
  s.size.store(pin.size, std::memory_order_release);
  r.copy[pin.domain].store(pin.slot, std::memory_order_relaxed);
  if (host_pending) r.flags.fetch_or(HOST_PENDING, std::memory_order_release);
  r.avail.fetch_or(1u << pin.domain, std::memory_order_release);  // sync point "copy-publish"
  unlock(r.row_lock);
  s.filler.store(0, std::memory_order_release);
  return Ok{};
}

void DomainTable::discard_unpublished(const CopyPin& pin) noexcept {
  if (pin.slot >= per_domain_ || pin.domain >= MAX_DOMAINS) return;
  CopySlot& s = slots(pin.domain)[pin.slot];
  s.filler.store(0, std::memory_order_release);
  s.refs.fetch_and(~ROW_REF, std::memory_order_acq_rel);
}

void DomainTable::detach(std::uint64_t seq) noexcept {
  TableRow& r = row(seq);
  if (!lock(r.row_lock)) return;
  if (r.seq.load(std::memory_order_acquire) == seq) recycle_locked(r, seq);
  unlock(r.row_lock);
}

std::uint32_t DomainTable::sweep(std::uint32_t d) {
  if (d >= MAX_DOMAINS) return 0;
  std::uint32_t freed = 0;
  std::uint64_t dead_readers = 0;
  for (std::uint32_t k = 0; k < MAX_TABLE_READERS; ++k) {
    const std::uint64_t w = readers_[k].owner.load(std::memory_order_acquire);
    if (w == 0 || !owner_alive(w)) dead_readers |= 1ull << k;
  }
  for (std::uint32_t i = 0; i < per_domain_; ++i) {
    CopySlot& s = slots(d)[i];
    std::uint64_t refs = s.refs.load(std::memory_order_acquire);
    if (refs == 0) continue;
    std::uint64_t drop = refs & dead_readers & ~ROW_REF;
    if (refs & ROW_REF) {
      const std::uint64_t filler = s.filler.load(std::memory_order_acquire);
      const std::uint64_t seq = s.seq.load(std::memory_order_acquire);
      const TableRow& r = row(seq == TABLE_EMPTY_ROW ? 0 : seq);
      const bool in_row = seq != TABLE_EMPTY_ROW && r.seq.load(std::memory_order_acquire) == seq &&
                          (r.avail.load(std::memory_order_acquire) & (1u << d)) != 0 &&
                          r.copy[d].load(std::memory_order_acquire) == i;
      if (!in_row && !owner_alive(filler)) drop |= ROW_REF;
    }
    if (drop != 0 && (s.refs.fetch_and(~drop, std::memory_order_acq_rel) & ~drop) == 0) ++freed;
  }
  return freed;
}

}  // namespace baton::memory::domain
