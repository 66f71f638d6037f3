// The header every baton shared-memory segment begins with.
//
// Bump SEGMENT_LAYOUT_VERSION whenever the width, order or meaning of any field of this header
// or of any layout a segment kind places after it changes. New fields are appended only; readers
// respect header_size. SegmentTest.layout_version_is_pinned (tests/shm/segment_test.cpp) pins the
// value.
//
// | off | width | field              | writer  | readers | ordering                       |
// |-----|-------|--------------------|---------|---------|--------------------------------|
// |   0 |     8 | magic              | creator | all     | plain, before `ready`          |
// |   8 |     2 | layout_version     | creator | all     | plain, before `ready`          |
// |  10 |     2 | header_size        | creator | all     | plain, before `ready`          |
// |  12 |     4 | kind               | creator | all     | plain, before `ready`          |
// |  16 |     8 | total_size         | creator | all     | plain, before `ready`          |
// |  24 |     4 | creator_pid        | creator | cleanup | plain, before `ready`          |
// |  28 |     4 | ready              | creator | all     | release (creator) / acquire;   |
// |     |       |                    | remover |         | CAS by a stale remover (below) |
// |  32 |     8 | creator_start_time | creator | cleanup | plain, before `ready`          |
// |  40 |    24 | reserved           | -       | -       | zero                           |
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace baton::shm {

inline constexpr std::uint64_t SEGMENT_MAGIC = 0x314d48534e544142ull;  // "BATNSHM1" little endian
// 2: TopicHeader::lifecycle. 3: ChunkControl::payload_offset (a version-2 reader would read a
// sample published at an offset from the chunk's start, i.e. the wrong bytes: it must refuse).
// 4: the waiters words carry an ARMED bit (shm/sleeper_word.hpp); a version-3 sleeper never sets
// it, so a version-4 publisher would never wake it. 5: 256 subscribers per topic (ChunkControl
// grows a second line of reference words, TopicHeader::active_subs four words, one return queue
// per slot); a version-4 process would read slot 63 on as absent. 6: 256 publishers per topic
// (TopicHeader::active_pubs four words, 8 publisher-slot bits in held entries, subscriber
// cursors moved from SubscriberSlot into the publisher's return queues); a version-5 process
// would misread every subscriber slot. 7: a publisher's clean close is announced
// (PublisherHeader::leaving) and acknowledged (ReturnQueue::drain_generation) so subscribers
// drain its unread rows; a version-6 subscriber would never acknowledge, and every version-7
// reliable publisher would wait out its timeout on close. 8: every subscriber of a topic sleeps
// on the topic's wake pair (TopicHeader::wake_seq / waiters), no longer on its slot's; a
// version-7 publisher would wake only the slots' words, and a version-8 one would never wake a
// version-7 subscriber. 9: publishers stamp a message's source time only while a subscriber of
// the topic asks for it (SubscriberSlot::wants_timestamps); a version-8 subscriber never asks,
// so a version-9 publisher would hand it 0 where it read the publish time. 10: a publisher
// segment's return queues are committed as subscribers attach (PublisherHeader::
// committed_queues); a version-9 subscriber would not say so, and a version-10 publisher would
// never drain its queue. 11: a topic directory's first 8 publisher and 12 subscriber slots sit
// in the header's page (TopicSegmentLayout::slot_offset); a version-10 build would read every
// slot at the old offsets.
inline constexpr std::uint16_t SEGMENT_LAYOUT_VERSION = 11;
inline constexpr std::uint32_t SEGMENT_READY = 0x52454459u;  // "YDER"

// `ready` holds 0 while the creator initialises the segment, SEGMENT_READY once it is done, or
// stale_removal_ready(pid) while process `pid` removes a segment whose creator died before
// finishing it (Segment::remove_if_stale; pids are below 2^22 on Linux, so the tag bit is free).
// Every reader treats any value but SEGMENT_READY as "not ready", as builds before this value did.
inline constexpr std::uint32_t STALE_REMOVAL_TAG = 0x80000000u;
constexpr std::uint32_t stale_removal_ready(std::uint32_t pid) { return STALE_REMOVAL_TAG | pid; }
constexpr bool is_stale_removal(std::uint32_t ready) { return (ready & STALE_REMOVAL_TAG) != 0; }

// What a segment holds; opening a segment as the wrong kind is refused.
enum class SegmentKind : std::uint32_t {
  Topic = 1,        // topic directory: type identity, publisher and subscriber slots
  Publisher = 2,    // one publisher's ring of rows and its subscribers' return queues
  Data = 3,         // one publisher's chunk pool segment (one size class)
  Graph = 4,        // the registry of participants, nodes and endpoints
  DomainTable = 5,  // one publisher's per-domain copy table (memory/domain/domain_table_layout)
  DomainPool = 6,   // a host-memory pool of a copying domain (staging)
  Test = 99,        // used by tests only
};

struct SegmentHeader {
  std::uint64_t magic;
  std::uint16_t layout_version;
  std::uint16_t header_size;
  std::uint32_t kind;
  std::uint64_t total_size;
  std::uint32_t creator_pid;
  std::atomic<std::uint32_t> ready;
  std::uint64_t creator_start_time;
  std::uint64_t reserved_0[3];
};

static_assert(sizeof(SegmentHeader) == 64);
static_assert(alignof(SegmentHeader) == 8);
static_assert(offsetof(SegmentHeader, layout_version) == 8);
static_assert(offsetof(SegmentHeader, header_size) == 10);
static_assert(offsetof(SegmentHeader, kind) == 12);
static_assert(offsetof(SegmentHeader, total_size) == 16);
static_assert(offsetof(SegmentHeader, creator_pid) == 24);
static_assert(offsetof(SegmentHeader, ready) == 28);
static_assert(offsetof(SegmentHeader, creator_start_time) == 32);
static_assert(std::is_standard_layout_v<SegmentHeader>);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

}  // namespace baton::shm
