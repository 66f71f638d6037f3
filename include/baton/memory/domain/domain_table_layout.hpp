// Layout of a domain copy table: one per publisher (topic, publisher slot, generation), beside
// (not inside) the publisher's ring. Row i describes message seq where seq % ring == i, and says
// in which memory domains a copy of that message exists, who is copying it, and where the copy
// lives. A message is copied into a domain at most once; later readers in the domain share it.
//
// [SegmentHeader 64][DomainTableHeader 64][ReaderEntry x 64][DomainEntry x 32]
// [CopySlot x 32 * slots_per_domain][TableRow x ring_capacity]
//
// Crash safety. Every lock word holds its owner (pid << 32 | low 32 bits of the owner's start
// time), so a lock whose owner died is broken by the next contender. Copy slots carry reference
// *bits*, not counts (bit 63: the row holds the copy; bit k: subscriber slot k reads it), so
// dropping a reference twice is harmless and the references of a dead reader can be found and
// dropped (ReaderEntry k names the process behind bit k). A copy whose copier died before
// publishing it holds only the copier's bit and is swept like any dead reader's.
//
// Bump shm::SEGMENT_LAYOUT_VERSION when anything here changes width, order or meaning.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "baton/shm/segment_layout.hpp"

namespace baton::memory::domain {

inline constexpr std::uint32_t MAX_DOMAINS = 32;  // per topic publisher; host is 0
// One reader bit per subscriber slot 0..62 (the slots whose chunk reference bit shares the
// publisher's word): a device-domain subscriber must take one of those (topic::SubscriberPort).
inline constexpr std::uint32_t MAX_TABLE_READERS = 63;
inline constexpr std::uint32_t MAX_POOLS_PER_DOMAIN = 8;
inline constexpr std::uint32_t DOMAIN_SPEC_CAPACITY = 24;
inline constexpr std::uint32_t INVALID_COPY = 0xFFFFFFFFu;
inline constexpr std::uint64_t TABLE_EMPTY_ROW = ~0ull;
inline constexpr std::uint64_t ROW_REF = 1ull << 63;  // CopySlot::refs: the row holds the copy
inline constexpr std::uint32_t HOST_PENDING = 1u;     // TableRow::flags: host bytes not written yet

// Owner words (locks, readers, fillers): 0 = none.
constexpr std::uint64_t owner_word(std::uint32_t pid, std::uint64_t start_time) {
  return (static_cast<std::uint64_t>(pid) << 32) | (start_time & 0xFFFFFFFFu);
}
constexpr std::uint32_t owner_pid(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

// | off | width | field            | writer  | readers | ordering                  |
// |   0 |     4 | ring_capacity    | creator | all     | before segment-ready      |
// |   4 |     4 | slots_per_domain | creator | all     | before segment-ready      |
// |   8 |     8 | readers_offset   | creator | all     | before segment-ready      |
// |  16 |     8 | domains_offset   | creator | all     | before segment-ready      |
// |  24 |     8 | slots_offset     | creator | all     | before segment-ready      |
// |  32 |     8 | rows_offset      | creator | all     | before segment-ready      |
// |  40 |     4 | domain_count     | registrants (CAS) | all | acq_rel "domain-register" |
// |  44 |     4 | reserved_0       | -       | -       | zero                      |
// |  48 |     8 | reader_mask      | readers | publishers | acq_rel: bit k = slot k registered |
// |  56 |     8 | reserved_1       | -       | -       | zero                      |
struct DomainTableHeader {
  std::uint32_t ring_capacity;
  std::uint32_t slots_per_domain;
  std::uint64_t readers_offset;
  std::uint64_t domains_offset;
  std::uint64_t slots_offset;
  std::uint64_t rows_offset;
  std::atomic<std::uint32_t> domain_count;
  std::uint32_t reserved_0;
  std::atomic<std::uint64_t> reader_mask;
  std::uint64_t reserved_1;
};
static_assert(sizeof(DomainTableHeader) == 64);
static_assert(offsetof(DomainTableHeader, slots_per_domain) == 4);
static_assert(offsetof(DomainTableHeader, readers_offset) == 8);
static_assert(offsetof(DomainTableHeader, domains_offset) == 16);
static_assert(offsetof(DomainTableHeader, slots_offset) == 24);
static_assert(offsetof(DomainTableHeader, rows_offset) == 32);
static_assert(offsetof(DomainTableHeader, domain_count) == 40);
static_assert(offsetof(DomainTableHeader, reader_mask) == 48);
static_assert(std::is_standard_layout_v<DomainTableHeader>);
static_assert(std::is_trivially_copyable_v<std::uint64_t>);

// The process behind subscriber slot k's reference bits (owner word; 0 = none).
// | 0 | 8 | owner | the subscriber (register) | sweepers | release / acquire |
struct ReaderEntry {
  std::atomic<std::uint64_t> owner;
};
static_assert(sizeof(ReaderEntry) == 8);

// One pool of a domain: `bytes` (0 until ready, release "pool-ready"), bump-allocated by `next`,
// `blob` = what importers need (PoolExport::blob).
// | 0 | 8 | bytes | creator (under DomainEntry::lock) | importers | release / acquire "pool-ready"
// | | 8 | 8 | next  | allocators (fetch_add)            | -         | relaxed | |16 |64 | blob  |
// creator, before bytes             | importers | before "pool-ready"            |
struct PoolRecord {
  std::atomic<std::uint64_t> bytes;
  std::atomic<std::uint64_t> next;
  std::uint8_t blob[64];
};
static_assert(sizeof(PoolRecord) == 80);
static_assert(offsetof(PoolRecord, blob) == 16);

// A registered domain. `spec` is the DomainSpec text; `owner` is 0 for domains whose pools are
// shared by every process, or the registering process for per-process domains (backends that
// cannot export, e.g. OpenCL SC): their copies are meaningful to that process only.
// |   0 | 24 | spec      | registrant, before state=READY | all | release / acquire "domain-ready"
// | |  24 |  4 | state     | registrant (CAS FREE->CLAIMED->READY) | all | acq_rel | |  28 |  4 |
// pool_count| pool creator (under lock)      | all | release / acquire "pool-ready"   | |  32 |  8
// | owner     | registrant                     | all | before "domain-ready"            | |  40 |
// 8 | lock      | pool creators (owner word CAS) | -   | acq_rel                          | |  48 |
// 8 | copies    | copiers (fetch_add)            | tests, tools | relaxed                 | |  56 |
// 8 | copy_bytes| copiers (fetch_add)            | tests, tools | relaxed                 | |  64
// |640 | pools     | see PoolRecord                                                       |
struct DomainEntry {
  char spec[DOMAIN_SPEC_CAPACITY];
  std::atomic<std::uint32_t> state;
  std::atomic<std::uint32_t> pool_count;
  std::uint64_t owner;
  std::atomic<std::uint64_t> lock;
  std::atomic<std::uint64_t> copies;
  std::atomic<std::uint64_t> copy_bytes;
  PoolRecord pools[MAX_POOLS_PER_DOMAIN];
};
static_assert(sizeof(DomainEntry) == 704);
static_assert(offsetof(DomainEntry, state) == 24);
static_assert(offsetof(DomainEntry, pool_count) == 28);
static_assert(offsetof(DomainEntry, owner) == 32);
static_assert(offsetof(DomainEntry, lock) == 40);
static_assert(offsetof(DomainEntry, copies) == 48);
static_assert(offsetof(DomainEntry, pools) == 64);
static_assert(std::is_standard_layout_v<DomainEntry>);
inline constexpr std::uint32_t DOMAIN_FREE = 0, DOMAIN_CLAIMED = 1, DOMAIN_READY = 2;

// One copy of one message in one domain, in a region of one of the domain's pools. A slot is free
// when refs == 0; an allocator claims it by CAS 0 -> its own bit, so it alone writes the region
// fields and the bytes, then publishes the slot into the row (refs |= ROW_REF).
// |  0 | 8 | refs     | readers, row, copier (RMW)      | all      | acq_rel                     |
// |  8 | 8 | seq      | claimer                         | pinners  | before "copy-publish"       |
// | 16 | 8 | size     | claimer                         | pinners  | before "copy-publish"       |
// | 24 | 4 | pool     | claimer                         | pinners  | before "copy-publish"       |
// | 28 | 4 | reserved_0                                                                       |
// | 32 | 8 | offset   | claimer                         | pinners  | before "copy-publish"       |
// | 40 | 8 | capacity | claimer                         | pinners  | before "copy-publish"       |
// | 48 | 8 | filler   | claimer (owner word, 0 when published) | sweepers | release / acquire |
// | 56 | 8 | reserved_1                                                                       |
struct alignas(64) CopySlot {
  std::atomic<std::uint64_t> refs;
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> size;
  std::uint32_t pool;
  std::uint32_t reserved_0;
  std::uint64_t offset;
  std::uint64_t capacity;
  std::atomic<std::uint64_t> filler;
  std::uint64_t reserved_1;
};
static_assert(sizeof(CopySlot) == 64);
static_assert(offsetof(CopySlot, seq) == 8);
static_assert(offsetof(CopySlot, pool) == 24);
static_assert(offsetof(CopySlot, offset) == 32);
static_assert(offsetof(CopySlot, filler) == 48);

// One message's copies. Only the holder of row_lock changes seq, avail, flags and copy[]; the
// holder of copy_lock[d] is the one process copying the message into domain d.
// |   0 |   8 | seq       | row_lock holder | all | release / acquire "row-recycle"   |
// |   8 |   8 | row_lock  | owner word CAS  | -   | acq_rel                           |
// |  16 |   4 | avail     | row_lock holder | all | release / acquire "copy-publish"  |
// |  20 |   4 | flags     | row_lock holder, host copier | all | release / acquire  |
// |  24 | 128 | copy[32]  | row_lock holder | pinners | before "copy-publish"         |
// | 152 | 256 | copy_lock[32] | copiers (owner word CAS) | - | acq_rel                 |
// | 408 |  40 | reserved  | -               | -   | zero                              |
struct alignas(64) TableRow {
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> row_lock;
  std::atomic<std::uint32_t> avail;
  std::atomic<std::uint32_t> flags;
  std::atomic<std::uint32_t> copy[MAX_DOMAINS];
  std::atomic<std::uint64_t> copy_lock[MAX_DOMAINS];
  std::uint64_t reserved_0[5];
};
static_assert(sizeof(TableRow) == 448);
static_assert(offsetof(TableRow, row_lock) == 8);
static_assert(offsetof(TableRow, avail) == 16);
static_assert(offsetof(TableRow, flags) == 20);
static_assert(offsetof(TableRow, copy) == 24);
static_assert(offsetof(TableRow, copy_lock) == 152);
static_assert(std::is_standard_layout_v<TableRow>);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct DomainTableLayout {
  static constexpr std::uint64_t header_offset = sizeof(shm::SegmentHeader);
  static constexpr std::uint64_t readers_offset = header_offset + sizeof(DomainTableHeader);
  static constexpr std::uint64_t domains_offset =
      readers_offset + 64 * sizeof(ReaderEntry);  // 64 entries: one line-aligned block
  static constexpr std::uint64_t slots_offset =
      (domains_offset + MAX_DOMAINS * sizeof(DomainEntry) + 63) / 64 * 64;
  static constexpr std::uint64_t rows_offset(std::uint32_t slots_per_domain) {
    return slots_offset + std::uint64_t{MAX_DOMAINS} * slots_per_domain * sizeof(CopySlot);
  }
  static constexpr std::uint64_t total_size(std::uint32_t ring, std::uint32_t slots_per_domain) {
    return rows_offset(slots_per_domain) + std::uint64_t{ring} * sizeof(TableRow);
  }
};
static_assert(DomainTableLayout::slots_offset % 64 == 0);

}  // namespace baton::memory::domain
