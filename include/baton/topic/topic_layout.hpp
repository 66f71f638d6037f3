// Shared-memory layouts of the topic layer.
//
// A topic is one small "directory" segment (kind Topic) naming its type and holding a slot per
// publisher and per subscriber. Each publisher owns a Publisher segment (its ring of rows and one
// return queue per subscriber slot) and its chunk pool (memory layer). Bump
// shm::SEGMENT_LAYOUT_VERSION when anything here changes width, order or meaning.
//
// Slot state words pack the claimer's pid with the state, so a claim and its owner become
// visible in one atomic step and a crash between "claimed" and "owner written" cannot happen.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "baton/memory/chunk_layout.hpp"
#include "baton/shm/segment_layout.hpp"
#include "baton/shm/segment_lifecycle_layout.hpp"

namespace baton::topic {

// 256 so that a service takes 256 clients (each client publishes on the service's request topic).
// What a slot costs every topic: 64 bytes of the topic segment (16 KiB in all); a subscriber's
// cursor per publisher lives in that publisher's segment (ReturnQueue::cursor), and readers scan
// active_pubs, so an unused slot is never read on the publish / take path.
inline constexpr std::uint32_t MAX_PUBLISHERS = 256;
inline constexpr std::uint32_t PUB_MASK_WORDS = (MAX_PUBLISHERS + 63) / 64;
// One reference bit each in a chunk's control words (memory/chunk_refs.hpp). What a slot costs:
// 256 bytes of the topic segment and one 1 152-byte return queue in every publisher's segment.
inline constexpr std::uint32_t MAX_SUBSCRIBERS = 256;
static_assert(MAX_SUBSCRIBERS <= memory::MAX_SUBSCRIBER_BITS);
inline constexpr std::uint32_t SUB_MASK_WORDS = (MAX_SUBSCRIBERS + 63) / 64;
inline constexpr std::uint32_t MAX_LOANS_PER_SUBSCRIBER = 16;
inline constexpr std::uint32_t RETURN_QUEUE_CAPACITY = 256;
inline constexpr std::uint32_t MAX_RING_CAPACITY = 1u << 16;
inline constexpr std::uint32_t TYPE_NAME_CAPACITY = 128;
inline constexpr std::uint64_t NOT_ATTACHED = ~0ull;  // subscriber cursor before attaching
inline constexpr std::uint64_t EMPTY_ROW = ~0ull;

// Slot states (low 8 bits of SlotWord); the pid of the claimer sits in the high 32 bits.
enum class SlotState : std::uint8_t { Free = 0, Claimed = 1, Active = 2, Reclaiming = 3 };
constexpr std::uint64_t slot_word(SlotState s, std::uint32_t pid) {
  return (static_cast<std::uint64_t>(pid) << 32) | static_cast<std::uint8_t>(s);
}
constexpr SlotState slot_state(std::uint64_t w) { return static_cast<SlotState>(w & 0xFF); }
constexpr std::uint32_t slot_pid(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

enum class Reliability : std::uint8_t { BestEffort = 0, Reliable = 1 };
enum class Durability : std::uint8_t { Volatile = 0, TransientLocal = 1 };

// | off | width | field            | writer          | readers | ordering                     |
// |   0 |   128 | type_name        | creator         | all     | before segment-ready         |
// | 128 |    32 | type_hash        | creator         | all     | before segment-ready         |
// | 160 |     4 | max_publishers   | creator         | all     | before segment-ready         |
// | 164 |     4 | max_subscribers  | creator         | all     | before segment-ready         |
// | 168 |     8 | epoch            | any slot change | all     | release / acquire "epoch"    |
// | 176 |    32 | active_subs[4]   | slot owners     | pubs    | release / acquire            |
// | 208 |    32 | active_pubs[4]   | slot owners     | subs    | release / acquire            |
// | 240 |     8 | lifecycle        | closer (CAS)    | claimers| seq_cst "segment-close"      |
// | 248 |     8 | closer_start_time| closer          | closers | relaxed; 0 before Open       |
// | 256 |     4 | wake_seq         | publishers      | subs    | futex word "sleeper-dekker"  |
// | 260 |     4 | waiters          | sleeping subs   | pubs    | shm/sleeper_word.hpp         |
// | 264 |     8 | reclaimed_at     | janitors (CAS)  | janitors| relaxed; a hint              |
// | 272 |     4 | pub_slot_limit   | claimers (CAS)  | scanners| seq_cst "segment-close"      |
// | 276 |     4 | sub_slot_limit   | claimers (CAS)  | scanners| seq_cst "segment-close"      |
//
// active_subs: bit k % 64 of word k / 64 is set while subscriber slot k is active (version 5;
// one word held 63 slots before). Read it through for_each_active_subscriber below.
// active_pubs: the same for publisher slots (version 6; one word of 16 slots before).
//
// lifecycle / closer_start_time: the segment lifecycle of shm/segment_lifecycle.hpp. A directory
// is removed when its last endpoint goes (close_topic_if_unused in topic.hpp); the claims are the
// publisher and subscriber slots: a claimer CASes its slot Free -> Claimed (seq_cst), then checks
// admits_claim(); on false it sets the slot Free again and reopens the topic by name.
//
// wake_seq / waiters (version 8, on their own line): the topic's wake pair. Every subscriber of
// the topic sleeps on this one futex word (its blocking waits and the wait sets it is in), so a
// publish wakes all of them with one FUTEX_WAKE and reads one line, not one wake pair per
// subscriber slot. Why: with N sleeping subscribers the publisher made up to N wake calls per
// message, and on two cores the woken subscribers preempted it between them, so the last
// subscriber's delay grew by a whole subscriber's run per slot ahead of it (issue 20, fan-out).
//
// pub_slot_limit / sub_slot_limit (version 10): slots at or past the limit were never claimed,
// and their pages are a hole in /dev/shm. Only the header is committed when the directory is
// created; a claimer that reaches the limit commits the slot's pages through its mapping
// (shm::Segment::commit, an error on a full /dev/shm, never a SIGBUS) and raises the limit
// past the slot before it CASes the claim, so a closer that reads the limit after its CAS to
// Closing sees every claim that could have missed it. Scanners (claimers, reclaimers, closers,
// ROS graph events) read slots only below the limit: a read of a hole allocates a page. Why:
// 256 + 256 slots committed up front were 80 KiB of every topic's /dev/shm, and a subscriber's
// first read of its slot mapped up to 64 KiB of them (fault-around), 19x iceoryx2's allocation
// for a 64 B stream (issue 20, memory). Untrusted: clamped to the slot count (topic_slot_limit).
struct TopicHeader {
  char type_name[TYPE_NAME_CAPACITY];
  std::uint8_t type_hash[32];
  std::uint32_t max_publishers;
  std::uint32_t max_subscribers;
  std::atomic<std::uint64_t> epoch;  // bumped on every slot activation / release
  std::atomic<std::uint64_t> active_subs[SUB_MASK_WORDS];
  std::atomic<std::uint64_t> active_pubs[PUB_MASK_WORDS];  // bit p % 64 of word p / 64
  std::atomic<std::uint64_t> lifecycle;  // lifecycle_word(state, closer pid); 0 = Open
  // The closer's start time (pid reuse guard), written after its CAS, zeroed before it gives
  // the directory back to Open: 0 means "not recorded yet, the pid alone decides".
  std::atomic<std::uint64_t> closer_start_time;
  alignas(64) std::atomic<std::uint32_t> wake_seq;  // futex word: publishers bump it to wake
  std::atomic<std::uint32_t> waiters;               // sleeper count + ARMED (shm/sleeper_word)
  // CLOCK_MONOTONIC ns of the last periodic reclaim pass over this topic, by any process's
  // janitor (Topic::reclaim_dead_if_due). A hint only: 0 (a segment of the first version-8
  // build) or a value from the future means "due".
  std::atomic<std::uint64_t> reclaimed_at;
  std::atomic<std::uint32_t> pub_slot_limit;
  std::atomic<std::uint32_t> sub_slot_limit;
  std::uint8_t reserved_wake[40];
};
static_assert(SUB_MASK_WORDS == 4);
static_assert(PUB_MASK_WORDS == 4);
static_assert(sizeof(TopicHeader) == 320);
static_assert(offsetof(TopicHeader, lifecycle) == 240);
static_assert(offsetof(TopicHeader, closer_start_time) == 248);
static_assert(offsetof(TopicHeader, type_hash) == 128);
static_assert(offsetof(TopicHeader, max_publishers) == 160);
static_assert(offsetof(TopicHeader, epoch) == 168);
static_assert(offsetof(TopicHeader, active_subs) == 176);
static_assert(offsetof(TopicHeader, active_pubs) == 208);
static_assert(offsetof(TopicHeader, wake_seq) == 256);
static_assert(offsetof(TopicHeader, waiters) == 260);
static_assert(offsetof(TopicHeader, reclaimed_at) == 264);
static_assert(offsetof(TopicHeader, pub_slot_limit) == 272);
static_assert(offsetof(TopicHeader, sub_slot_limit) == 276);
static_assert(std::is_standard_layout_v<TopicHeader>);

constexpr std::uint32_t sub_mask_word(std::uint32_t k) { return k / 64; }
constexpr std::uint64_t sub_mask_bit(std::uint32_t k) { return 1ull << (k % 64); }
constexpr std::uint32_t pub_mask_word(std::uint32_t p) { return p / 64; }
constexpr std::uint64_t pub_mask_bit(std::uint32_t p) { return 1ull << (p % 64); }

// Calls f(k) for every subscriber slot k marked active in `h` (the words are read one at a time:
// a slot changing meanwhile may or may not be seen, as with a single word read a moment
// earlier or later).
template <typename F>
void for_each_active_subscriber(const TopicHeader* h, F&& f,
                                std::memory_order order = std::memory_order_acquire) {
  for (std::uint32_t w = 0; w < SUB_MASK_WORDS; ++w) {
    std::uint64_t subs = h->active_subs[w].load(order);
    while (subs != 0) {
      const auto k = w * 64 + static_cast<std::uint32_t>(__builtin_ctzll(subs));
      subs &= subs - 1;
      if (k < MAX_SUBSCRIBERS) f(k);
    }
  }
}

// How many slots of a kind may have been claimed (TopicHeader::pub_slot_limit or
// sub_slot_limit, clamped to `count`): scan below it only.
inline std::uint32_t topic_slot_limit(const std::atomic<std::uint32_t>& limit, std::uint32_t count,
                                      std::memory_order order = std::memory_order_acquire) {
  return std::min(limit.load(order), count);
}

// Lifecycle of a topic directory (TopicHeader::lifecycle): the shm layer's, under the names the
// topic layer has always used.
using TopicLifecycle = shm::LifecycleState;
using shm::lifecycle_state;
using shm::lifecycle_word;

// | off | width | field        | writer | readers     |
// |   0 |     8 | state        | claimer / reclaimer (CAS) | all |
// |   8 |     8 | start_time   | claimer; 0 before Free | reclaimers (liveness) |
// |  16 |     4 | generation   | claimer (bumped per claim) | subs (segment names) |
// |  20 |     4 | depth        | claimer | subs |
// |  24 |     1 | reliability  | claimer | subs |
// |  25 |     1 | durability   | claimer | subs |
// |  26 |     6 | reserved     | - | - |
// |  32 |     8 | lease_ns     | owner (before liveliness_generation) | subs |
// |  40 |     8 | asserted_ns  | owner (each assertion) | subs |
// |  48 |     4 | liveliness_generation | owner (release, after lease_ns) | subs (acquire) |
// |  52 |    12 | reserved     | - | - |
//
// lease_ns / asserted_ns: a publisher with manual liveliness and a finite lease (rmw_baton_cpp's
// LIVELINESS_CHANGED, docs/design/ros2.md) publishes its lease and the CLOCK_MONOTONIC time of its
// last assertion here. They count only while liveliness_generation equals the slot's generation:
// the bytes are not cleared between owners, and a publisher that never writes them (automatic
// liveliness, or a build from before these fields, which left them reserved) is alive while its
// slot is Active, as before. Readers use the values as numbers only (never as sizes or offsets).
struct alignas(64) PublisherSlot {
  std::atomic<std::uint64_t> state;
  // Zeroed before the slot is set Free, so a claimer's start time reads as "not yet recorded"
  // (0: the pid alone decides liveness) until it stores its own, never as the previous owner's.
  std::atomic<std::uint64_t> start_time;
  std::atomic<std::uint32_t> generation;
  std::uint32_t depth;
  std::uint8_t reliability;
  std::uint8_t durability;
  std::uint8_t reserved_0[6];
  std::atomic<std::uint64_t> lease_ns;
  std::atomic<std::uint64_t> asserted_ns;
  std::atomic<std::uint32_t> liveliness_generation;
  std::uint8_t reserved_1[12];
};
static_assert(sizeof(PublisherSlot) == 64);
static_assert(offsetof(PublisherSlot, start_time) == 8);
static_assert(offsetof(PublisherSlot, generation) == 16);
static_assert(offsetof(PublisherSlot, reliability) == 24);
static_assert(offsetof(PublisherSlot, lease_ns) == 32);
static_assert(offsetof(PublisherSlot, liveliness_generation) == 48);

// Subscriber slot, 256 bytes, each group on its own cache line:
// line 0: state, start_time, generation, depth, reliability, durability, wants_timestamps
//         (claimer; wants_timestamps: 1 if the subscriber reads source timestamps, so its
//         topic's publishers stamp: PublisherPort::stamping, version 9)
// line 1: reserved (the subscriber's wake pair until version 7; since version 8 every
//         subscriber sleeps on its topic's, TopicHeader::wake_seq / waiters)
// lines 2-3: held[j], the subscriber's loan records (see held_entry below); written before the
//            refs bit is set and cleared after it is dropped, so a reclaimer finds every loan.
// The cursor this subscriber keeps for each publisher is in that publisher's segment
// (ReturnQueue::cursor), not here: cursors[MAX_PUBLISHERS] here would cost every topic 2 KiB
// per subscriber slot (512 KiB) once publishers went from 16 to 256 (version 6).
struct alignas(64) SubscriberSlot {
  std::atomic<std::uint64_t> state;
  std::atomic<std::uint64_t> start_time;  // as PublisherSlot::start_time
  std::atomic<std::uint32_t> generation;
  std::uint32_t depth;
  std::uint8_t reliability;
  std::uint8_t durability;
  std::uint8_t wants_timestamps;  // SubscriberOptions::source_timestamps (version 9)
  std::uint8_t reserved_0[37];
  alignas(64) std::uint8_t reserved_1[64];
  alignas(64) std::atomic<std::uint64_t> held[MAX_LOANS_PER_SUBSCRIBER];
};
static_assert(sizeof(SubscriberSlot) == 256);
static_assert(offsetof(SubscriberSlot, start_time) == 8);
static_assert(offsetof(SubscriberSlot, wants_timestamps) == 26);
static_assert(offsetof(SubscriberSlot, reserved_1) == 64);
static_assert(offsetof(SubscriberSlot, held) == 128);

// held entry: bit 63 valid | bits 40..59 publisher generation (low 20 bits) | bits 32..39
// publisher slot | bits 0..31 chunk reference (version 6; 4 slot bits and 24 generation bits
// before).
constexpr std::uint64_t HELD_VALID = 1ull << 63;
constexpr std::uint32_t HELD_GEN_MASK = 0xFFFFF;
static_assert(MAX_PUBLISHERS <= 256, "held entries carry the publisher slot in 8 bits");
constexpr std::uint64_t held_entry(std::uint32_t pub_slot, std::uint32_t pub_gen,
                                   std::uint32_t chunk) {
  return HELD_VALID | (static_cast<std::uint64_t>(pub_gen & HELD_GEN_MASK) << 40) |
         (static_cast<std::uint64_t>(pub_slot & 0xFF) << 32) | chunk;
}
constexpr std::uint32_t held_pub_slot(std::uint64_t e) { return (e >> 32) & 0xFF; }
constexpr std::uint32_t held_pub_gen(std::uint64_t e) { return (e >> 40) & HELD_GEN_MASK; }
constexpr std::uint32_t held_chunk(std::uint64_t e) { return static_cast<std::uint32_t>(e); }

// [SegmentHeader 64][TopicHeader 320][PublisherSlot x 8][SubscriberSlot x 12][pad to 4 KiB]
// [PublisherSlot x 248][SubscriberSlot x 244]                          total 82 432 bytes
//
// The first slots of each kind share the header's page (version 11): a topic with up to 8
// publishers and 12 subscribers holds one page of directory, where its first subscriber slot
// used to sit four pages past the header (a 64 B stream held two directory pages, and each
// endpoint process mapped both; issue 20, memory). Slot i is at slot_offset<SlotT>(i): no
// reader may index a slot table as one array. On a kernel with larger pages the layout is the
// same; the head slots only share a page with more.
struct TopicSegmentLayout {
  static constexpr std::uint64_t header_offset = sizeof(shm::SegmentHeader);
  static constexpr std::uint32_t head_publisher_slots = 8;
  static constexpr std::uint32_t head_subscriber_slots = 12;
  static constexpr std::uint64_t head_publishers_offset = 384;  // 64-aligned after the header
  static constexpr std::uint64_t head_subscribers_offset =
      head_publishers_offset + head_publisher_slots * sizeof(PublisherSlot);
  static constexpr std::uint64_t head_end =
      head_subscribers_offset + head_subscriber_slots * sizeof(SubscriberSlot);
  static constexpr std::uint64_t rest_publishers_offset = 4096;
  static constexpr std::uint64_t rest_subscribers_offset =
      rest_publishers_offset + (MAX_PUBLISHERS - head_publisher_slots) * sizeof(PublisherSlot);
  static constexpr std::uint64_t total_size =
      rest_subscribers_offset + (MAX_SUBSCRIBERS - head_subscriber_slots) * sizeof(SubscriberSlot);

  // Offset of publisher slot p (< MAX_PUBLISHERS) or subscriber slot k (< MAX_SUBSCRIBERS).
  template <typename SlotT>
  static constexpr std::uint64_t slot_offset(std::uint32_t i) {
    if constexpr (std::is_same_v<SlotT, PublisherSlot>) {
      return i < head_publisher_slots
                 ? head_publishers_offset + i * sizeof(PublisherSlot)
                 : rest_publishers_offset + (i - head_publisher_slots) * sizeof(PublisherSlot);
    } else {
      static_assert(std::is_same_v<SlotT, SubscriberSlot>);
      return i < head_subscriber_slots
                 ? head_subscribers_offset + i * sizeof(SubscriberSlot)
                 : rest_subscribers_offset + (i - head_subscriber_slots) * sizeof(SubscriberSlot);
    }
  }
};
static_assert(TopicSegmentLayout::header_offset + sizeof(TopicHeader) <=
              TopicSegmentLayout::head_publishers_offset);
static_assert(TopicSegmentLayout::head_end <= TopicSegmentLayout::rest_publishers_offset);
static_assert(TopicSegmentLayout::rest_subscribers_offset % alignof(SubscriberSlot) == 0);
static_assert(TopicSegmentLayout::slot_offset<SubscriberSlot>(MAX_SUBSCRIBERS - 1) +
                  sizeof(SubscriberSlot) ==
              TopicSegmentLayout::total_size);

// ---- Publisher segment ----
// [SegmentHeader][PublisherHeader 192][Row x ring_capacity][ReturnQueue x MAX_SUBSCRIBERS]
//
// PublisherHeader:
// line 0: ring_capacity, return_queue_capacity, rows_offset, queues_offset,
//         data_segment_count (publisher; read by cleaners to unlink the pool),
//         leaving (publisher: 1 from the start of a clean close on, release; every row is
//         final then. A subscriber that finds it maps the whole pool and says so in its return
//         queue's drain_generation, and drains the unread rows once the slot is released;
//         0 = open, or the owner crashed: nothing to drain. Version 7, reserved before),
//         committed_queues (bit k % 64 of word k / 64: return queue k's pages are committed in
//         /dev/shm. Set (release) by whoever commits them, before anything is written there:
//         the subscriber in slot k when it attaches, or the publisher matching it at creation.
//         Never cleared. Version 10, reserved before)
//
// Only the head (SegmentHeader, PublisherHeader, rows) is committed when the segment is
// created; the 256 return queues (288 KiB) are a hole until a subscriber attaches (version 10;
// all were committed before, 19x iceoryx2's /dev/shm for a 64 B stream, issue 20). Nobody reads
// or writes a queue whose bit is clear: a read of a hole in tmpfs allocates a page, and raises
// SIGBUS where /dev/shm is full.
// line 1: tail — sequence number the next publish will use (publisher, release "row-publish")
// line 2: space_seq (futex; subscribers bump it when `space_waiters` is armed), space_waiters
//         (a sleeper word, shm/sleeper_word.hpp: the publisher while it waits for room),
//         returns_pending (bit k % 64: return queue k may have entries; subscribers set, the
//         publisher clears and then drains queues k, k + 64, ... of each bit it took),
//         space_wanted (publisher, before it arms space_waiters: 1 + the sequence number it
//         waits to publish; 0 = not recorded. A reliable subscriber wakes it only with the take
//         that stops its own cursor from holding that number back, see wake_for_space)
struct alignas(64) PublisherHeader {
  std::uint32_t ring_capacity;
  std::uint32_t return_queue_capacity;
  std::uint64_t rows_offset;
  std::uint64_t queues_offset;
  std::atomic<std::uint32_t> data_segment_count;
  std::atomic<std::uint32_t> leaving;
  std::atomic<std::uint64_t> committed_queues[SUB_MASK_WORDS];
  alignas(64) std::atomic<std::uint64_t> tail;
  std::uint64_t reserved_2[7];
  alignas(64) std::atomic<std::uint32_t> space_seq;
  std::atomic<std::uint32_t> space_waiters;
  std::atomic<std::uint64_t> returns_pending;
  std::atomic<std::uint64_t> space_wanted;
  std::uint64_t reserved_3[5];
};
static_assert(sizeof(PublisherHeader) == 192);
static_assert(offsetof(PublisherHeader, data_segment_count) == 24);
static_assert(offsetof(PublisherHeader, leaving) == 28);
static_assert(offsetof(PublisherHeader, committed_queues) == 32);
static_assert(offsetof(PublisherHeader, tail) == 64);
static_assert(offsetof(PublisherHeader, space_seq) == 128);
static_assert(offsetof(PublisherHeader, returns_pending) == 136);
static_assert(offsetof(PublisherHeader, space_wanted) == 144);

constexpr std::uint64_t returns_pending_bit(std::uint32_t slot) { return 1ull << (slot % 64); }

// Whether return queue k's pages are committed (PublisherHeader::committed_queues), acquire:
// what its committer wrote before setting the bit is visible after a true.
inline bool return_queue_committed(const PublisherHeader* h, std::uint32_t k) noexcept {
  return k < MAX_SUBSCRIBERS &&
         (h->committed_queues[sub_mask_word(k)].load(std::memory_order_acquire) & sub_mask_bit(k));
}

// One published message. The publisher writes chunk, then seq (release "row-publish"); a reader
// loads seq (acquire), then chunk, and confirms by the chunk's own seq after pinning it.
struct Row {
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint32_t> chunk;
  std::uint32_t reserved_0;
};
static_assert(sizeof(Row) == 16);

// Single-producer (the subscriber in that slot, or the reclaimer after it died) single-consumer
// (the publisher) queue of chunk references whose last reference the producer dropped.
//
// Its producer line also holds the subscriber's cursor on this publisher (version 6; it was
// SubscriberSlot::cursors[p]): `cursor` is the next sequence number subscriber slot k reads
// from this publisher, valid only while `cursor_generation` equals slot k's current
// SubscriberSlot::generation (claims start at 1, so the zeroed queue of a new segment matches
// no live subscriber: "not attached"). The subscriber stores cursor, then cursor_generation
// (release) when it attaches, and the cursor after each take (seq_cst, sync point
// "sleeper-dekker"); a reliable publisher reads them for flow control, and when it is created
// it stores 0 for every subscriber already active ("matched": it holds back for them from its
// first message). A slot's next owner has a new generation, so nobody clears the words when a
// subscriber leaves or dies. Values are only compared, never used as sizes or offsets.
//
// drain_generation (version 7): the subscriber's generation once it has mapped this publisher's
// segment and whole pool after seeing PublisherHeader::leaving, so it can drain its unread rows
// after the names are unlinked; a leaving reliable publisher waits for it (PublisherPort's
// departure, sync point "departure"). Compared with the slot's generation like the cursor.
struct alignas(64) ReturnQueue {
  std::atomic<std::uint32_t> head;  // consumer
  std::uint8_t reserved_0[60];
  alignas(64) std::atomic<std::uint32_t> tail;  // producer
  std::atomic<std::uint32_t> overflowed;        // producer: a reference could not be queued
  std::atomic<std::uint64_t> cursor;            // producer (the subscriber); see above
  std::atomic<std::uint32_t> cursor_generation;
  std::atomic<std::uint32_t> drain_generation;  // producer; see above
  std::uint8_t reserved_1[40];
  std::uint32_t entries[RETURN_QUEUE_CAPACITY];
};
static_assert(sizeof(ReturnQueue) == 128 + 4 * RETURN_QUEUE_CAPACITY);
static_assert(offsetof(ReturnQueue, tail) == 64);
static_assert(offsetof(ReturnQueue, cursor) == 72);
static_assert(offsetof(ReturnQueue, cursor_generation) == 80);
static_assert(offsetof(ReturnQueue, drain_generation) == 84);

struct PublisherSegmentLayout {
  static constexpr std::uint64_t header_offset = 64;
  static constexpr std::uint64_t rows_offset = header_offset + sizeof(PublisherHeader);
  static constexpr std::uint64_t queues_offset(std::uint32_t ring_capacity) {
    return (rows_offset + ring_capacity * sizeof(Row) + 63) / 64 * 64;
  }
  static constexpr std::uint64_t queue_offset(std::uint32_t ring_capacity, std::uint32_t k) {
    return queues_offset(ring_capacity) + k * sizeof(ReturnQueue);
  }
  static constexpr std::uint64_t total_size(std::uint32_t ring_capacity) {
    return queue_offset(ring_capacity, MAX_SUBSCRIBERS);
  }
};

}  // namespace baton::topic
