// Shared-memory layout of the graph registry: one segment (kind Graph) per user and namespace,
// named shm::segment_name("g", "registry"), holding three fixed-size tables.
//
//   [SegmentHeader 64][RegistryHeader 192][ParticipantEntry x 256][NodeEntry x 1024]
//   [EndpointEntry x 4096]                                         total 2,441,472 bytes
//   (rows past the tables' high-water marks are never touched; see "Rows in use")
//
// Bump REGISTRY_LAYOUT_VERSION whenever the width, order or meaning of any field below changes,
// or a capacity changes (the registry header carries its own version, so the segment header's
// version need not move). tests/graph/registry_test.cpp pins the value.
//
// Entry state words. Every entry begins with a 64-bit state word packing
//   bits 32..63  pid of the owner (claimer), or of the reclaimer while Reclaiming
//   bits  8..31  generation: bumped by every claim, kept while Free (ABA guard for CAS)
//   bits  0..7   EntryState
// so a claim and its owner become visible in one atomic step, and a CAS on the word can never
// confuse one registration with a later one of the same entry by the same process.
//
// Every other field is a relaxed atomic (strings are packed 8 bytes per 64-bit word, little-
// endian, so a hexdump still reads as text). Readers use the state word as a seqlock:
//   load state (acquire) == Active -> load fields (relaxed) -> fence(acquire) -> reload state;
//   an unchanged word means the fields belong to that registration. The owner writes fields
//   only while Claimed, then publishes with state = Active (release), sync point "entry-active".
//
// Nothing read from this segment is trusted: lengths are checked against capacities, indices
// against table sizes, enum values against their ranges, before use.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "baton/shm/segment_layout.hpp"

namespace baton::graph {

// Bump when anything in this file changes width, order, meaning or capacity.
// 2: EndpointEntry::gid. 3: RegistryHeader::lifecycle + closer_start_time (the registry is
// removed when its last participant leaves): a version-2 build would neither check the lifecycle
// when registering nor close the registry, so it could register in a removed registry.
// 4: RegistryHeader::nodes_used + endpoints_used (rows past them are never touched): a version-3
// build would claim and read rows past the marks without moving them.
// 5: RegistryHeader::participants_used, and only the header is committed at creation (rows are
// committed as the marks pass them): a version-4 build would read and claim participant rows
// past the mark, pages that are a hole in /dev/shm.
inline constexpr std::uint32_t REGISTRY_LAYOUT_VERSION = 5;
inline constexpr std::uint64_t REGISTRY_MAGIC = 0x3147455254534752ull;  // "RGSTREG1" LE

inline constexpr std::uint32_t MAX_PARTICIPANTS = 256;
inline constexpr std::uint32_t MAX_NODES = 1024;
inline constexpr std::uint32_t MAX_ENDPOINTS = 4096;
inline constexpr std::uint32_t NODE_NAME_CAPACITY = 128;      // bytes, no terminator needed
inline constexpr std::uint32_t NAMESPACE_CAPACITY = 128;      // bytes
inline constexpr std::uint32_t ENDPOINT_NAME_CAPACITY = 256;  // topic / service name, bytes
inline constexpr std::uint32_t TYPE_NAME_CAPACITY = 128;      // as topic::TYPE_NAME_CAPACITY
inline constexpr std::uint32_t GENERATION_MASK = 0xFFFFFF;

enum class EntryState : std::uint8_t { Free = 0, Claimed = 1, Active = 2, Reclaiming = 3 };

constexpr std::uint64_t entry_word(EntryState s, std::uint32_t pid, std::uint32_t gen) {
  return (static_cast<std::uint64_t>(pid) << 32) |
         (static_cast<std::uint64_t>(gen & GENERATION_MASK) << 8) | static_cast<std::uint8_t>(s);
}
constexpr std::uint8_t entry_state_raw(std::uint64_t w) { return static_cast<std::uint8_t>(w); }
constexpr EntryState entry_state(std::uint64_t w) { return static_cast<EntryState>(w & 0xFF); }
constexpr std::uint32_t entry_pid(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }
constexpr std::uint32_t entry_gen(std::uint64_t w) {
  return static_cast<std::uint32_t>(w >> 8) & GENERATION_MASK;
}
constexpr bool entry_state_valid(std::uint64_t w) { return entry_state_raw(w) <= 3; }

// | off | width | field              | writer  | readers | ordering                          |
// |-----|-------|--------------------|---------|---------|-----------------------------------|
// |   0 |     8 | magic              | creator | all     | plain, before segment-ready       |
// |   8 |     4 | layout_version     | creator | all     | plain, before segment-ready       |
// |  12 |     4 | max_participants   | creator | all     | plain, before segment-ready       |
// |  16 |     4 | max_nodes          | creator | all     | plain, before segment-ready       |
// |  20 |     4 | max_endpoints      | creator | all     | plain, before segment-ready       |
// |  24 |     4 | participant_size   | creator | all     | plain, before segment-ready       |
// |  28 |     4 | node_size          | creator | all     | plain, before segment-ready       |
// |  32 |     4 | endpoint_size      | creator | all     | plain, before segment-ready       |
// |  36 |     4 | reserved_0         | -       | -       | zero                              |
// |  40 |     8 | participants_off   | creator | all     | plain, before segment-ready       |
// |  48 |     8 | nodes_off          | creator | all     | plain, before segment-ready       |
// |  56 |     8 | endpoints_off      | creator | all     | plain, before segment-ready       |
// |  64 |     8 | epoch              | any     | all     | acq_rel RMW / acquire, "epoch"    |
// |  72 |     4 | nodes_used         | claimers| all     | acq_rel CAS / acquire, "rows-used"|
// |  76 |     4 | endpoints_used     | claimers| all     | acq_rel CAS / acquire, "rows-used"|
// |  80 |     4 | participants_used  | claimers| all     | seq_cst CAS / load, "rows-used",  |
// |     |       |                    |         |         | "segment-close"                   |
// |  84 |    44 | reserved_2         | -       | -       | zero                              |
// | 128 |     8 | lifecycle          | closer  | claimers| seq_cst "segment-close"           |
// | 136 |     8 | closer_start_time  | closer  | closers | relaxed; 0 before Open            |
// | 144 |     8 | reclaimed_at       | janitors| janitors| relaxed CAS; a hint                |
// | 152 |    40 | reserved_3         | -       | -       | zero                              |
//
// reclaimed_at: CLOCK_MONOTONIC ns of the last periodic reclaim pass by any participant's
// janitor (Registry::reclaim_dead_if_due), so the janitors take turns instead of each checking
// every participant twice a second. Former reserved space and only a hint, so no version bump:
// a build that leaves it 0 scans every period as before, and 0 or a time from the future reads
// as "due".
// Rows in use: nodes_used / endpoints_used count the rows of their table ever claimed; a claim
// takes a Free row below the mark or moves the mark up by one (CAS) and takes the row there.
// Rows at or past the mark are zero, Free and untouched, so a snapshot or a claim reads only the
// pages of rows in use: a registry holding ten endpoints costs each process a few pages instead
// of the 2.3 MiB of full tables (a tmpfs page becomes resident once read). The marks never move
// down; a corrupt mark is clamped to the table size, and a too-small one only makes claims move
// it past the rows already there (a claim takes a row only by CAS from Free).
// participants_used (version 5) is the participant table's mark. Its claimers move it (seq_cst)
// before they CAS a row, and the closer reads it (seq_cst) after its CAS to Closing, so the
// closer's scan (sync point "segment-close") still sees every claim that could have missed it.
//
// Committed pages (version 5): the file is created with only the header committed; a claim that
// moves a mark first commits the new row's pages through its mapping (shm::Segment::commit: an
// error on a full /dev/shm, never a SIGBUS later), so every row below a mark is committed and
// every row past it is a hole nobody reads. Why: the fallocated tables were 2.3 MiB of /dev/shm
// per namespace, and a process's first read of a row mapped up to 64 KiB of its neighbours
// (fault-around maps pages that are in the page cache, and a fallocated page is): 24 KiB of
// every endpoint process's shared memory, beside iceoryx2's 20 KiB for a whole 64 B stream
// (issue 20, memory).
//
// epoch starts at the creator's monotonic clock (ns), not 1, so a registry created anew under
// the same name (after the previous one was removed) never repeats an epoch a reader cached.
// lifecycle / closer_start_time: the segment lifecycle of shm/segment_lifecycle.hpp, with the
// participant entries as the claims. The registry is removed when its last participant leaves:
//   ~ParticipantHandle: frees its entry, then the closer's half (any live participant -> kept).
//   register_participant: CAS an entry Free -> Claimed (seq_cst), then admits_claim(); false ->
//   the entry is freed again and RegisterError::Closed returned (the caller reopens by name).
// Nodes and endpoints need no check of their own: they are registered under a live participant,
// which keeps the registry open. Readers (snapshots) of a removed registry just see it empty.
struct alignas(64) RegistryHeader {
  std::uint64_t magic;
  std::uint32_t layout_version;
  std::uint32_t max_participants;
  std::uint32_t max_nodes;
  std::uint32_t max_endpoints;
  std::uint32_t participant_size;
  std::uint32_t node_size;
  std::uint32_t endpoint_size;
  std::uint32_t reserved_0;
  std::uint64_t participants_offset;
  std::uint64_t nodes_offset;
  std::uint64_t endpoints_offset;
  // Own cache line: bumped after every activation, removal and reclaim.
  alignas(64) std::atomic<std::uint64_t> epoch;
  // High-water marks: node / endpoint / participant rows at or past them have never been
  // claimed, so claims and readers stop there (see "Rows in use" above). Untrusted: clamped to
  // the table size.
  std::atomic<std::uint32_t> nodes_used;
  std::atomic<std::uint32_t> endpoints_used;
  std::atomic<std::uint32_t> participants_used;
  std::uint32_t reserved_2[11];
  // Own cache line: written only by closers, read by registering participants.
  alignas(64) std::atomic<std::uint64_t> lifecycle;  // shm::lifecycle_word; 0 = Open
  std::atomic<std::uint64_t> closer_start_time;
  std::atomic<std::uint64_t> reclaimed_at;
  std::uint64_t reserved_3[5];
};
static_assert(sizeof(RegistryHeader) == 192);
static_assert(offsetof(RegistryHeader, reclaimed_at) == 144);
static_assert(alignof(RegistryHeader) == 64);
static_assert(offsetof(RegistryHeader, layout_version) == 8);
static_assert(offsetof(RegistryHeader, max_participants) == 12);
static_assert(offsetof(RegistryHeader, max_nodes) == 16);
static_assert(offsetof(RegistryHeader, max_endpoints) == 20);
static_assert(offsetof(RegistryHeader, participant_size) == 24);
static_assert(offsetof(RegistryHeader, node_size) == 28);
static_assert(offsetof(RegistryHeader, endpoint_size) == 32);
static_assert(offsetof(RegistryHeader, participants_offset) == 40);
static_assert(offsetof(RegistryHeader, nodes_offset) == 48);
static_assert(offsetof(RegistryHeader, endpoints_offset) == 56);
static_assert(offsetof(RegistryHeader, epoch) == 64);
static_assert(offsetof(RegistryHeader, nodes_used) == 72);
static_assert(offsetof(RegistryHeader, endpoints_used) == 76);
static_assert(offsetof(RegistryHeader, participants_used) == 80);
static_assert(offsetof(RegistryHeader, lifecycle) == 128);
static_assert(offsetof(RegistryHeader, closer_start_time) == 136);
static_assert(std::is_standard_layout_v<RegistryHeader>);

// A process taking part (one per Context).
// | off | width | field      | writer                       | readers    | ordering            |
// |-----|-------|------------|------------------------------|------------|---------------------|
// |   0 |     8 | state      | claimer / reclaimer (CAS)    | all        | "entry-active"      |
// |   8 |     8 | start_time | claimer; zeroed before Free  | reclaimers | relaxed, via state  |
// |  16 |    48 | reserved_0 | -                            | -          | zero                |
// start_time is zeroed before the word goes Free (release), so a reclaimer that sees a new
// claim's word never pairs it with the previous owner's start time (0 means "pid decides").
struct alignas(64) ParticipantEntry {
  std::atomic<std::uint64_t> state;
  std::atomic<std::uint64_t> start_time;
  std::uint64_t reserved_0[6];
};
static_assert(sizeof(ParticipantEntry) == 64);
static_assert(offsetof(ParticipantEntry, start_time) == 8);
static_assert(std::is_standard_layout_v<ParticipantEntry>);

// A node; belongs to participant (index, generation).
// | off | width | field           | writer (while Claimed) | readers | ordering               |
// |-----|-------|-----------------|------------------------|---------|------------------------|
// |   0 |     8 | state           | owner / reclaimer CAS  | all     | "entry-active" seqlock |
// |   8 |     4 | participant     | owner                  | all     | relaxed                |
// |  12 |     4 | participant_gen | owner                  | all     | relaxed                |
// |  16 |     2 | name_len        | owner                  | all     | relaxed                |
// |  18 |     2 | namespace_len   | owner                  | all     | relaxed                |
// |  20 |    12 | reserved_0/1    | -                      | -       | zero                   |
// |  32 |   128 | name            | owner                  | all     | relaxed, 16 words      |
// | 160 |   128 | namespace       | owner                  | all     | relaxed, 16 words      |
// | 288 |    32 | reserved_2      | -                      | -       | zero                   |
struct alignas(64) NodeEntry {
  std::atomic<std::uint64_t> state;
  std::atomic<std::uint32_t> participant;
  std::atomic<std::uint32_t> participant_gen;
  std::atomic<std::uint16_t> name_len;
  std::atomic<std::uint16_t> namespace_len;
  std::uint32_t reserved_0;
  std::uint64_t reserved_1;
  std::atomic<std::uint64_t> name[NODE_NAME_CAPACITY / 8];
  std::atomic<std::uint64_t> namespace_[NAMESPACE_CAPACITY / 8];
  std::uint64_t reserved_2[4];
};
static_assert(sizeof(NodeEntry) == 320);
static_assert(offsetof(NodeEntry, participant) == 8);
static_assert(offsetof(NodeEntry, participant_gen) == 12);
static_assert(offsetof(NodeEntry, name_len) == 16);
static_assert(offsetof(NodeEntry, namespace_len) == 18);
static_assert(offsetof(NodeEntry, name) == 32);
static_assert(offsetof(NodeEntry, namespace_) == 160);
static_assert(std::is_standard_layout_v<NodeEntry>);

// What an endpoint is (stored as one byte; values outside the enum are corrupt).
enum class EndpointKind : std::uint8_t { Publisher = 0, Subscription = 1, Service = 2, Client = 3 };

// A publisher, subscription, service server or client; belongs to a node and its participant.
// | off | width | field           | writer (while Claimed) | readers | ordering               |
// |-----|-------|-----------------|------------------------|---------|------------------------|
// |   0 |     8 | state           | owner / reclaimer CAS  | all     | "entry-active" seqlock |
// |   8 |     4 | participant     | owner                  | all     | relaxed                |
// |  12 |     4 | participant_gen | owner                  | all     | relaxed                |
// |  16 |     4 | node            | owner                  | all     | relaxed                |
// |  20 |     4 | node_gen        | owner                  | all     | relaxed                |
// |  24 |     1 | kind            | owner                  | all     | relaxed (EndpointKind) |
// |  25 |     1 | reliability     | owner                  | all     | relaxed (0 BE, 1 rel.) |
// |  26 |     1 | durability      | owner                  | all     | relaxed (0 vol, 1 TL)  |
// |  27 |     1 | reserved_0      | -                      | -       | zero                   |
// |  28 |     4 | depth           | owner                  | all     | relaxed                |
// |  32 |     2 | name_len        | owner                  | all     | relaxed                |
// |  34 |     2 | type_name_len   | owner                  | all     | relaxed                |
// |  36 |    12 | reserved_1/2    | -                      | -       | zero                   |
// |  48 |    32 | type_hash       | owner                  | all     | relaxed, 4 words       |
// |  80 |   256 | name            | owner                  | all     | relaxed, 32 words      |
// | 336 |   128 | type_name       | owner                  | all     | relaxed, 16 words      |
// | 464 |    16 | gid             | owner                  | all     | relaxed, 2 words       |
// | 480 |    32 | reserved_3      | -                      | -       | zero                   |
// gid: the endpoint's global id as its ROS layer names it (rmw_baton_cpp: the rmw gid, so graph
// queries report the gid rmw_get_gid_for_publisher and message infos carry); 0 when none.
struct alignas(64) EndpointEntry {
  std::atomic<std::uint64_t> state;
  std::atomic<std::uint32_t> participant;
  std::atomic<std::uint32_t> participant_gen;
  std::atomic<std::uint32_t> node;
  std::atomic<std::uint32_t> node_gen;
  std::atomic<std::uint8_t> kind;
  std::atomic<std::uint8_t> reliability;
  std::atomic<std::uint8_t> durability;
  std::uint8_t reserved_0;
  std::atomic<std::uint32_t> depth;
  std::atomic<std::uint16_t> name_len;
  std::atomic<std::uint16_t> type_name_len;
  std::uint32_t reserved_1;
  std::uint64_t reserved_2;
  std::atomic<std::uint64_t> type_hash[4];
  std::atomic<std::uint64_t> name[ENDPOINT_NAME_CAPACITY / 8];
  std::atomic<std::uint64_t> type_name[TYPE_NAME_CAPACITY / 8];
  std::atomic<std::uint64_t> gid[2];
  std::uint64_t reserved_3[4];
};
static_assert(sizeof(EndpointEntry) == 512);
static_assert(offsetof(EndpointEntry, participant) == 8);
static_assert(offsetof(EndpointEntry, participant_gen) == 12);
static_assert(offsetof(EndpointEntry, node) == 16);
static_assert(offsetof(EndpointEntry, node_gen) == 20);
static_assert(offsetof(EndpointEntry, kind) == 24);
static_assert(offsetof(EndpointEntry, reliability) == 25);
static_assert(offsetof(EndpointEntry, durability) == 26);
static_assert(offsetof(EndpointEntry, depth) == 28);
static_assert(offsetof(EndpointEntry, name_len) == 32);
static_assert(offsetof(EndpointEntry, type_name_len) == 34);
static_assert(offsetof(EndpointEntry, type_hash) == 48);
static_assert(offsetof(EndpointEntry, name) == 80);
static_assert(offsetof(EndpointEntry, type_name) == 336);
static_assert(offsetof(EndpointEntry, gid) == 464);
static_assert(std::is_standard_layout_v<EndpointEntry>);

static_assert(std::atomic<std::uint8_t>::is_always_lock_free);
static_assert(std::atomic<std::uint16_t>::is_always_lock_free);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
// Every byte of a string word is used, and atomics of those widths have no hidden state.
static_assert(sizeof(std::atomic<std::uint64_t>) == 8 && sizeof(std::atomic<std::uint8_t>) == 1);

struct RegistrySegmentLayout {
  static constexpr std::uint64_t header_offset = sizeof(shm::SegmentHeader);
  static constexpr std::uint64_t participants_offset = header_offset + sizeof(RegistryHeader);
  static constexpr std::uint64_t nodes_offset =
      participants_offset + std::uint64_t{MAX_PARTICIPANTS} * sizeof(ParticipantEntry);
  static constexpr std::uint64_t endpoints_offset =
      nodes_offset + std::uint64_t{MAX_NODES} * sizeof(NodeEntry);
  static constexpr std::uint64_t total_size =
      endpoints_offset + std::uint64_t{MAX_ENDPOINTS} * sizeof(EndpointEntry);
};
static_assert(RegistrySegmentLayout::header_offset == 64);
static_assert(RegistrySegmentLayout::participants_offset == 256);
static_assert(RegistrySegmentLayout::nodes_offset == 16640);
static_assert(RegistrySegmentLayout::endpoints_offset == 344320);
static_assert(RegistrySegmentLayout::total_size == 2441472);
static_assert(RegistrySegmentLayout::participants_offset % 64 == 0);
static_assert(RegistrySegmentLayout::nodes_offset % 64 == 0);
static_assert(RegistrySegmentLayout::endpoints_offset % 64 == 0);

}  // namespace baton::graph
