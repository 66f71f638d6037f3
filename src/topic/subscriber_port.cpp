#include "baton/topic/subscriber_port.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <array>
#include <vector>

#include "baton/memory/pool_prefault.hpp"
#include "baton/shm/clock.hpp"
#include "baton/shm/futex.hpp"
#include "baton/shm/prefetch.hpp"
#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/return_queue.hpp"
#include "departed_publishers.hpp"

namespace baton::topic {
namespace detail {

// This process's mapping of one publisher: its segment and its chunk pool. Shared by samples so
// a publisher leaving never unmaps memory a sample still reads.
struct Connection {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  std::shared_ptr<shm::Segment> segment;  // this process's one mapping of it (open_shared)
  PublisherHeader* header = nullptr;
  Row* rows = nullptr;
  ReturnQueue* my_queue = nullptr;
  std::uint32_t ring = 1;
  std::uint64_t depth = 1;  // min(subscriber depth, ring)
  memory::PoolView pool;    // used by take() only (the port's thread)
  // The publisher left cleanly (PublisherHeader::leaving, slot released) with rows we had not
  // taken: take() drains them, then drops the connection. Port thread only.
  bool departed = false;
  bool acknowledged = false;  // we mapped everything after seeing `leaving` and said so
  // Samples may be released from any thread, but my_queue has a single producer: concurrent
  // pushes would claim the same entry and lose a chunk. Taken only when a release drops the
  // last reference (found by the stress work).
  std::mutex return_mutex;

  explicit Connection(std::string pool_name) : pool(std::move(pool_name)) {}
};

// The slot and loan bookkeeping; outlives the port while samples are out.
struct SubscriberState {
  std::shared_ptr<Topic> topic;
  std::uint32_t slot = 0;
  SubscriberSlot* shared = nullptr;
  std::uint32_t generation = 0;  // of this claim of the slot: tags our cursors (ReturnQueue)
  std::array<std::shared_ptr<Connection>, MAX_PUBLISHERS> connections{};
  // Bit p: connections[p] is set. take() and has_data() walk these bits, not all 256 slots.
  std::array<std::uint64_t, PUB_MASK_WORDS> connected{};
  std::array<std::uint64_t, MAX_PUBLISHERS> cursor{};
  // Which held[] entries are in use. One byte each, not a mask: only take()'s thread sets an
  // entry (0 -> 1) and only the sample that owns it clears it (1 -> 0, from any thread), so plain
  // stores suffice where a shared mask needed two locked RMWs per sample (issue 20, busy-poll).
  std::array<std::atomic<std::uint8_t>, MAX_LOANS_PER_SUBSCRIBER> held_in_use{};
  // The connection each held entry's sample reads from (take()'s thread writes and reads it).
  // A sample holds no reference count of its connection: one atomic increment and decrement
  // per take (~8 ns, issue 20). Instead a connection dropped while samples of it are out waits
  // here until they are released (free_retired); at most one per held entry.
  std::array<const Connection*, MAX_LOANS_PER_SUBSCRIBER> held_conn{};
  std::vector<std::shared_ptr<Connection>> retired;
  std::uint64_t lost = 0;

  ~SubscriberState() {
    DepartedPublishers::instance().forget(topic->name(), slot);
    topic->release_subscriber(slot);
    // A reliable publisher waiting for room this subscriber held up may go on now: wake it
    // instead of leaving it to sleep out its 10 ms slice (sync point "sleeper-dekker": the
    // release above is the data, its RMWs order it before the waiters load).
    for (const auto& c : connections) {
      if (c) shm::wake_armed_sleepers(&c->header->space_waiters, &c->header->space_seq);
    }
  }

  int acquire_held_index() noexcept {  // take()'s thread only
    for (std::uint32_t j = 0; j < MAX_LOANS_PER_SUBSCRIBER; ++j) {
      if (held_in_use[j].load(std::memory_order_acquire) == 0) {  // "sample-release"
        held_in_use[j].store(1, std::memory_order_relaxed);
        return static_cast<int>(j);
      }
    }
    return -1;
  }
  // The last thing a sample's release does with its connection (sync point "sample-release").
  void release_held_index(std::uint32_t j) noexcept {
    shared->held[j].store(0, std::memory_order_release);
    held_in_use[j].store(0, std::memory_order_release);
  }
  bool has_samples_of(const Connection* c) const noexcept {  // take()'s thread
    for (std::uint32_t j = 0; j < MAX_LOANS_PER_SUBSCRIBER; ++j) {
      if (held_conn[j] == c && held_in_use[j].load(std::memory_order_acquire) != 0) return true;
    }
    return false;
  }
  void free_retired() noexcept {  // take()'s thread
    std::erase_if(retired, [&](const auto& c) { return !has_samples_of(c.get()); });
  }
};

// Drops this subscriber's reference on a chunk of `c`; hands it back if that was the last one.
inline void drop_ref(Connection& c, memory::ChunkControl* ctl, std::uint32_t slot,
                     memory::ChunkRef ref) noexcept {
  if (!drop_subscriber_bit(ctl, slot)) return;
  std::lock_guard<std::mutex> lock(c.return_mutex);  // samples release from any thread
  push_return(c.header, c.my_queue, slot, ref);
}

// Wakes a reliable publisher waiting for room if this take (cursor `before` -> `after`) is the
// one that stops this subscriber from holding back the message it waits to publish
// (PublisherHeader::space_wanted). Only the first take after the publisher armed wakes it, and
// only a take that crosses: with any take waking it, 256 subscribers woke it about once per take
// — each time to rescan every cursor and find the slowest still behind — and the publisher fell
// to ~20 messages/s. A subscriber that holds the publisher back keeps taking until it has
// caught up, and its crossing take wakes; one that does not hold it back has nothing to say.
inline void wake_for_space(PublisherHeader* h, std::uint64_t before, std::uint64_t after,
                           std::uint64_t depth) noexcept {
  if ((h->space_waiters.load(std::memory_order_seq_cst) & shm::SLEEPER_ARMED) == 0) return;
  // Stored before the arm we just saw, so at least as new as the wait it belongs to.
  const std::uint64_t wanted = h->space_wanted.load(std::memory_order_seq_cst);
  if (wanted != 0 && !(before + depth < wanted && after + depth >= wanted)) return;
  shm::wake_armed_sleepers(&h->space_waiters, &h->space_seq);
}

// Drops the connection to publisher slot p; one that samples still read waits in `retired`.
inline void disconnect(SubscriberState& st, std::uint32_t p) noexcept {
  st.free_retired();
  auto& conn = st.connections[p];
  // Never allocates: after free_retired every retired connection has a held entry of its own,
  // and `retired` was reserved for one per entry.
  if (conn && st.has_samples_of(conn.get())) st.retired.push_back(std::move(conn));
  conn.reset();
  st.connected[pub_mask_word(p)] &= ~pub_mask_bit(p);
}

// Calls f(p) for each bit p set in `bits`, in cyclic order from `start`, until f returns true;
// true if it did. Lets take() go round-robin over the connected publishers only.
template <typename F>
inline bool for_each_bit_from(const std::array<std::uint64_t, PUB_MASK_WORDS>& bits,
                              std::uint32_t start, F&& f) {
  const std::uint32_t first = (start / 64) % PUB_MASK_WORDS;
  const std::uint64_t from_start = ~0ull << (start % 64);
  // PUB_MASK_WORDS + 1 steps: the start word's high bits first, its low bits last.
  for (std::uint32_t i = 0; i <= PUB_MASK_WORDS; ++i) {
    const std::uint32_t w = (first + i) % PUB_MASK_WORDS;
    std::uint64_t m = bits[w];
    if (i == 0) m &= from_start;
    if (i == PUB_MASK_WORDS) m &= ~from_start;
    while (m != 0) {
      const std::uint32_t p = w * 64 + static_cast<std::uint32_t>(__builtin_ctzll(m));
      m &= m - 1;
      if (f(p)) return true;
    }
  }
  return false;
}

}  // namespace detail

using detail::Connection;
using detail::SubscriberState;

namespace {

// Whether the row for cursor `cur` holds message `cur` or a later one of the same index (we were
// lapped). A sequence number of another index is corrupt, not data (take() skips such a row).
inline bool holds_unread(std::uint64_t row_seq, std::uint64_t cur, std::uint32_t ring) {
  return row_seq != EMPTY_ROW && row_seq >= cur && (row_seq - cur) % ring == 0;
}

// Advances `cur` over the messages this subscriber can no longer have (lapped, keep-last below
// the ring, a corrupt row; counted in `lost`) and returns the row holding message `cur`, or
// nullptr if it is not published yet. The row itself says whether message `cur` is there: one
// cache line per take in the common case; the tail is read only when we were lapped or keep
// fewer than the ring holds.
inline const Row* next_unread_row(const Connection& c, std::uint64_t& cur,
                                  std::uint64_t& lost) noexcept {
  while (true) {
    const Row& row = c.rows[cur % c.ring];
    const std::uint64_t row_seq = row.seq.load(std::memory_order_acquire);  // "row-publish"
    if (!holds_unread(row_seq, cur, c.ring)) {
      if (row_seq == EMPTY_ROW || row_seq < cur) return nullptr;  // nothing new
      // A row must hold a sequence number of its own index; this one is corrupt. Skip to the
      // publisher's tail instead of trusting it (a corrupt row used to loop forever).
      const std::uint64_t tail = c.header->tail.load(std::memory_order_acquire);
      if (tail > cur) {
        lost += tail - cur;
        cur = tail;
      }
      return nullptr;
    }
    if (row_seq > cur || c.depth < c.ring) {
      // Lapped, or keep-last below the ring: drop what we can no longer hold. The row proves
      // row_seq was published even if the tail store has not landed (or its writer died).
      const std::uint64_t tail =
          std::max(c.header->tail.load(std::memory_order_acquire), row_seq + 1);
      if (tail - cur > c.depth) {
        lost += tail - c.depth - cur;
        cur = tail - c.depth;
        continue;
      }
      if (row_seq != cur) {  // the ring is smaller than the gap: impossible unless corrupt
        lost += tail - cur;
        cur = tail;
        continue;
      }
    }
    return &row;
  }
}

// A chunk pinned by take(): what the sample will hand out.
struct Pinned {
  memory::ChunkRef ref = 0;
  memory::ChunkAccess access{};
  std::uint64_t offset = 0, size = 0;
  std::uint32_t held_index = 0;
};

enum class PinOutcome {
  Pinned,      // `out` holds the message
  NoLoanSlot,  // MAX_LOANS_PER_SUBSCRIBER samples are out already
  Moved,       // the chunk was reused between reading the row and pinning: re-read the row
  Unusable,    // the row names no chunk of the pool, or one whose payload does not fit: skip it
};

// Pins the chunk `row` names for message `cur`: records the loan, resolves the reference, sets
// this subscriber's reference bit and checks the chunk still holds message `cur` with a payload
// that fits (everything read from the chunk is untrusted).
inline PinOutcome pin_message(SubscriberState& st, Connection& c, const Row& row, std::uint64_t cur,
                              Pinned* out) noexcept {
  const memory::ChunkRef ref = row.chunk.load(std::memory_order_acquire);
  const int j = st.acquire_held_index();
  if (j < 0) return PinOutcome::NoLoanSlot;
  // Record the loan before pinning (reclaim-safe order, see header).
  st.shared->held[j].store(held_entry(c.slot, c.generation, ref), std::memory_order_release);
  memory::ChunkAccess access;
  if (!c.pool.try_resolve(ref, &access)) {  // only take() resolves: single-threaded
    st.release_held_index(j);
    return PinOutcome::Unusable;
  }
  memory::ChunkControl* ctl = access.control;
  // Ask for the control line owned: the pin is a fetch_or, which x86 compiles to a load and a
  // lock cmpxchg, and a plain load of a line the publisher wrote last would fetch it shared and
  // then need a second transfer to own it. Start fetching the payload too: the locked RMW would
  // otherwise hold the first payload read back until it completes.
  shm::prefetch_for_write(ctl);
  shm::prefetch_for_read(access.data);
  // Pin with one RMW (a single cache-line transfer): valid only while the publisher still holds
  // the chunk. If it no longer does, our bit is stray and is dropped again below; the publisher
  // lists a chunk only when refs == 0 and it is not listed already, so a chunk that briefly
  // carried a stray bit is never lost nor listed twice.
  const memory::PinResult pin = memory::pin_ref(ctl, st.slot);
  const std::uint64_t size = ctl->payload_size.load(std::memory_order_relaxed);
  const std::uint64_t offset = ctl->payload_offset.load(std::memory_order_relaxed);
  const bool fits = memory::payload_fits(offset, size, access.capacity);  // untrusted
  if (!pin.pinned || ctl->seq.load(std::memory_order_acquire) != cur || !fits) {
    // Overwritten and reused between reading the row and pinning (or a corrupt size).
    if (!pin.ours_already) detail::drop_ref(c, ctl, st.slot, ref);  // ours only if corrupt
    st.release_held_index(j);
    return pin.pinned && !fits ? PinOutcome::Unusable : PinOutcome::Moved;
  }
  *out = Pinned{ref, access, offset, size, static_cast<std::uint32_t>(j)};
  return PinOutcome::Pinned;
}

// After taking message `cur` - 1: if message `cur` is published already (a backlog), start
// moving its control line (owned, for the pin) and first payload line here, and the row line
// after it, so the next take finds them in this core's cache instead of paying the transfers
// (~0.2 us each between the 2-vCPU guest's cores) one after another. A take without a backlog
// finds `cur` unpublished and prefetches nothing: the rows ahead are the ones the publisher is
// writing. Nothing is trusted: the next take reads the row again (acquire) and checks what it
// pins; a row that does not hold `cur`, or names no chunk of the pool, is not prefetched.
inline void prefetch_next_message(Connection& c, std::uint64_t cur) noexcept {
  const Row& row = c.rows[cur % c.ring];
  if (row.seq.load(std::memory_order_relaxed) != cur) return;  // not published yet
  shm::prefetch_for_read(&c.rows[(cur + 4) % c.ring]);         // 4 rows a line: the next line's
  memory::ChunkAccess next;
  if (!c.pool.try_resolve(row.chunk.load(std::memory_order_relaxed), &next)) return;
  shm::prefetch_for_write(next.control);
  shm::prefetch_for_read(next.data);
}

// Attach-time and idle-time work that keeps page faults out of take() (issue 20, cold start;
// memory/pool_prefault.hpp): the rows at attach (our return queue was committed and mapped by
// connect_mapped), then the publisher's data segments and the chunks it has committed since the
// last call.
void premap(Connection& c, bool attach = true) noexcept {
  if (attach) memory::prefault_range(c.rows, c.ring * sizeof(Row), memory::PrefaultFor::Read);
  c.pool.map_ahead(c.header->data_segment_count.load(std::memory_order_acquire));
}

// A connection on the publisher segment `seg` of publisher (p, gen), its geometry validated
// against this build's layout and the mapping's real size; nullptr if it does not fit.
std::shared_ptr<Connection> connect_mapped(const Topic& topic, std::shared_ptr<shm::Segment> seg,
                                           std::uint32_t p, std::uint32_t gen,
                                           std::uint32_t my_slot, std::uint32_t my_depth) {
  if (!seg->contains(PublisherSegmentLayout::header_offset, sizeof(PublisherHeader))) {
    return nullptr;
  }
  auto* h = seg->at<PublisherHeader>(PublisherSegmentLayout::header_offset);
  const std::uint32_t ring = h->ring_capacity;
  // Validate the geometry against this build's layout and the real size before trusting it.
  if (ring == 0 || ring > MAX_RING_CAPACITY ||
      seg->size() != PublisherSegmentLayout::total_size(ring) ||
      h->rows_offset != PublisherSegmentLayout::rows_offset ||
      h->queues_offset != PublisherSegmentLayout::queues_offset(ring)) {
    return nullptr;
  }
  // Our return queue's pages, before we write our cursor there (version 10: a hole until a
  // subscriber of the slot attaches). A full /dev/shm leaves us unattached, to retry.
  if (!commit_return_queue(*seg, h, ring, my_slot)) return nullptr;
  auto c = std::make_shared<Connection>(topic.pool_name(p, gen));
  c->slot = p;
  c->generation = gen;
  c->header = h;
  c->rows = seg->at<Row>(PublisherSegmentLayout::rows_offset);
  c->my_queue = seg->at<ReturnQueue>(PublisherSegmentLayout::queues_offset(ring)) + my_slot;
  c->ring = ring;
  c->depth = std::clamp<std::uint64_t>(my_depth, 1, ring);
  c->segment = std::move(seg);
  premap(*c);
  return c;
}

std::shared_ptr<Connection> connect(const Topic& topic, std::uint32_t p, std::uint32_t gen,
                                    std::uint32_t my_slot, std::uint32_t my_depth) {
  // Fix (stress work): no waiting for `ready`. The publisher marks its segment ready before it
  // activates its slot (and we saw the slot Active), so a segment that is not ready is corrupt
  // or stale. Waiting 100 ms here stalled every take()/has_data(), since refresh() retries a
  // failed connection on each call.
  auto seg = shm::Segment::open_shared(topic.publisher_segment_name(p, gen),
                                       shm::SegmentKind::Publisher, 0);
  if (!seg) return nullptr;
  return connect_mapped(topic, std::move(*seg), p, gen, my_slot, my_depth);
}

// Tells a leaving publisher (PublisherHeader::leaving) that we hold every mapping we need to
// drain it once its names are gone: its segment (the connection's) and its whole pool. False if
// a data segment could not be mapped (then it may wait for us until its timeout).
bool acknowledge_departure(Connection& c, std::uint32_t my_generation) noexcept {
  const std::uint32_t segments = c.header->data_segment_count.load(std::memory_order_acquire);
  if (!c.pool.map_all(std::min(segments, memory::MAX_DATA_SEGMENTS))) return false;
  // Sync point "departure": the publisher reads it seq_cst after arming its sleeper word.
  c.my_queue->drain_generation.store(my_generation, std::memory_order_seq_cst);
  shm::wake_armed_sleepers(&c.header->space_waiters, &c.header->space_seq);
  c.acknowledged = true;
  return true;
}

}  // namespace

void TakenSample::release_held() noexcept {
  detail::drop_ref(*conn_, control_, state_->slot, ref_);
  state_->release_held_index(held_index_);  // cleared only after the bit: reclaim-safe order
  control_ = nullptr;
  data_ = nullptr;
  conn_ = nullptr;
  state_.reset();
}

Result<std::unique_ptr<SubscriberPort>, Error<SubscriberCreateError>> SubscriberPort::create(
    std::shared_ptr<Topic> topic, const SubscriberOptions& options) {
  using E = Error<SubscriberCreateError>;
  if (options.depth == 0 || options.depth > MAX_RING_CAPACITY) {
    return unexpected(E{SubscriberCreateError::InvalidQos,
                        "depth " + std::to_string(options.depth) + " is outside 1.." +
                            std::to_string(MAX_RING_CAPACITY)});
  }
  // May replace `topic` with a reopened handle (its directory was removed as we attached).
  auto slot = Topic::claim_subscriber_slot(topic);
  if (!slot) {
    if (slot.error().code == TopicError::NoFreeSlot) {
      return unexpected(E{SubscriberCreateError::NoFreeSlot,
                          "topic '" + topic->name() + "' already has " +
                              std::to_string(MAX_SUBSCRIBERS) + " subscribers"});
    }
    return unexpected(E{SubscriberCreateError::SegmentFailure, slot.error().detail});
  }
  std::unique_ptr<SubscriberPort> port(new SubscriberPort());
  port->topic_ = topic;
  port->options_ = options;
  auto state = std::make_shared<SubscriberState>();
  state->retired.reserve(MAX_LOANS_PER_SUBSCRIBER);  // disconnect() never allocates
  state->topic = topic;
  state->slot = *slot;
  state->shared = topic->subscriber_slot(*slot);
  state->generation = state->shared->generation.load(std::memory_order_acquire);
  // Relaxed atomic stores: a publisher may still be reading these words of the slot's previous
  // owner (wait_for_space, remote_subscriber_unmapped); it re-checks the slot's generation.
  __atomic_store_n(&state->shared->depth, options.depth, __ATOMIC_RELAXED);
  __atomic_store_n(&state->shared->reliability, static_cast<std::uint8_t>(options.reliability),
                   __ATOMIC_RELAXED);
  state->shared->durability = static_cast<std::uint8_t>(options.durability);
  // Before the slot is activated (its epoch bump is what publishers look for, see stamping()).
  __atomic_store_n(&state->shared->wants_timestamps, options.source_timestamps ? 1 : 0,
                   __ATOMIC_RELAXED);
  port->state_ = state;
  // Attach to the publishers that exist now, then become visible to them.
  port->refresh(true);
  topic->activate_subscriber(*slot);
  return port;
}

SubscriberPort::~SubscriberPort() = default;  // the state frees the slot when samples are gone

std::uint32_t SubscriberPort::slot() const noexcept { return state_->slot; }
std::uint64_t SubscriberPort::lost() const noexcept { return state_->lost; }
// The topic's wake pair, shared by all its subscribers (topic_layout.hpp, TopicHeader).
std::atomic<std::uint32_t>* SubscriberPort::wake_word() const noexcept {
  return &state_->topic->header()->wake_seq;
}
std::atomic<std::uint32_t>* SubscriberPort::waiters_word() const noexcept {
  return &state_->topic->header()->waiters;
}

void SubscriberPort::pick_up_departed() noexcept {
  SubscriberState& st = *state_;
  std::vector<detail::ParkedPublisher> parked;
  try {
    parked = detail::DepartedPublishers::instance().pick_up(topic_->name(), st.slot);
  } catch (...) {
    return;  // out of memory: what was parked for us is lost
  }
  for (const auto& d : parked) {
    if (d.slot >= MAX_PUBLISHERS || !d.mappings || !d.mappings->segment) continue;
    auto& conn = st.connections[d.slot];
    if (!conn) {
      conn = connect_mapped(*topic_, d.mappings->segment, d.slot, d.generation, st.slot,
                            options_.depth);
      if (!conn) continue;
      const ReturnQueue* q = conn->my_queue;
      if (q->cursor_generation.load(std::memory_order_acquire) != st.generation) {
        conn.reset();  // it never matched us: nothing of it is ours to read
        continue;
      }
      st.cursor[d.slot] = q->cursor.load(std::memory_order_acquire);
      st.connected[pub_mask_word(d.slot)] |= pub_mask_bit(d.slot);
    } else if (conn->generation != d.generation) {
      continue;  // a successor in its slot has our connection: the parked rows are lost
    }
    for (std::uint32_t i = 0; i < d.mappings->data.size(); ++i) {
      conn->pool.adopt(i, d.mappings->data[i]);
    }
  }
}

void SubscriberPort::let_go(std::uint32_t p) noexcept {
  SubscriberState& st = *state_;
  auto& conn = st.connections[p];
  // Sync point "departure": `leaving` was stored before the release we saw (acquire), so the
  // rows and the tail read here are final. A crashed publisher never set it: nothing to drain.
  if (conn->header->leaving.load(std::memory_order_acquire) != 0 &&
      st.cursor[p] < conn->header->tail.load(std::memory_order_acquire)) {
    conn->departed = true;  // take() drains it, then drops it (or we do, once it is drained)
    return;
  }
  detail::disconnect(st, p);
}

void SubscriberPort::refresh(bool initial) noexcept {
  const std::uint64_t epoch = topic_->header()->epoch.load(std::memory_order_acquire);
  bool complete = true;
  SubscriberState& st = *state_;
  pick_up_departed();
  // The slots that are active or that we are connected to (bits set before an activation's
  // epoch bump, cleared before a release's): nothing else can change.
  std::array<std::uint64_t, PUB_MASK_WORDS> look = st.connected;
  for (std::uint32_t w = 0; w < PUB_MASK_WORDS; ++w) {
    look[w] |= topic_->header()->active_pubs[w].load(std::memory_order_acquire);
  }
  detail::for_each_bit_from(look, 0, [&](std::uint32_t p) {
    // An active bit past the readable slots is a corrupted mask: its page may be a hole (a
    // publisher raises the slot limit before it claims, so a real one is below it).
    if (!topic_->publisher_slot_readable(p)) return false;
    PublisherSlot* ps = topic_->publisher_slot(p);
    const bool active = slot_state(ps->state.load(std::memory_order_acquire)) == SlotState::Active;
    const std::uint32_t gen = ps->generation.load(std::memory_order_acquire);
    auto& conn = st.connections[p];
    if (conn && (!active || conn->generation != gen)) {
      let_go(p);
      if (conn) {
        // Draining a departed publisher; one that took its slot waits until we are done.
        if (active) complete = false;
        return false;
      }
    }
    if (!active) return false;
    if (conn) {
      // A publisher that is leaving: map what we will drain and tell it (it may wait for us).
      if (!conn->acknowledged && conn->header->leaving.load(std::memory_order_acquire) != 0 &&
          !acknowledge_departure(*conn, st.generation)) {
        complete = false;
      }
      return false;
    }
    conn = connect(*topic_, p, gen, st.slot, options_.depth);
    if (!conn) {
      complete = false;  // not ready yet, or refused: try again on the next refresh
      return false;
    }
    const std::uint64_t tail = conn->header->tail.load(std::memory_order_acquire);
    std::uint64_t start = 0;  // a publisher that appeared after us: everything it published
    ReturnQueue* q = conn->my_queue;
    const std::uint64_t matched =
        q->cursor_generation.load(std::memory_order_acquire) == st.generation
            ? q->cursor.load(std::memory_order_acquire)
            : NOT_ATTACHED;
    if (matched != NOT_ATTACHED && matched <= tail) {
      start = matched;  // the publisher matched us when it was created (see PublisherPort)
    } else if (initial) {
      const bool history = options_.durability == Durability::TransientLocal &&
                           ps->durability == static_cast<std::uint8_t>(Durability::TransientLocal);
      start = history ? tail - std::min<std::uint64_t>(tail, conn->depth) : tail;
    }
    st.cursor[p] = start;
    q->cursor.store(start, std::memory_order_release);
    q->cursor_generation.store(st.generation, std::memory_order_release);  // after the cursor
    st.connected[pub_mask_word(p)] |= pub_mask_bit(p);
    if (conn->header->leaving.load(std::memory_order_acquire) != 0 &&
        !acknowledge_departure(*conn, st.generation)) {
      complete = false;
    }
    return false;
  });
  epoch_ = complete ? epoch : ~0ull;
}

Result<TakenSample, TakeError> SubscriberPort::take() noexcept {
  bool drained = false;
  auto out = take_pass(&drained);
  // Nothing here, but a successor in a drained publisher's slot may have messages already (the
  // pass let the drained one go; the next one's refresh connects the successor).
  if (drained && !out && out.error() == TakeError::NoData) out = take_pass(&drained);
  return out;
}

Result<TakenSample, TakeError> SubscriberPort::take_pass(bool* drained) noexcept {
  if (topic_->header()->epoch.load(std::memory_order_acquire) != epoch_) refresh(false);
  SubscriberState& st = *state_;
  if (!st.retired.empty()) st.free_retired();  // unmap what released samples no longer read
  Result<TakenSample, TakeError> out = unexpected(TakeError::NoData);
  detail::for_each_bit_from(st.connected, round_robin_, [&](std::uint32_t p) {
    Connection* c = st.connections[p].get();
    std::uint64_t cur = st.cursor[p];
    const std::uint64_t cur_before = cur;
    std::uint32_t attempts = 0;
    while (const Row* row = next_unread_row(*c, cur, st.lost)) {
      Pinned pinned;
      switch (pin_message(st, *c, *row, cur, &pinned)) {
        case PinOutcome::Pinned:
          break;
        case PinOutcome::NoLoanSlot:
          st.cursor[p] = cur;
          out = unexpected(TakeError::TooManyLoans);
          return true;
        case PinOutcome::Moved:
          // A row that keeps naming a chunk we cannot pin is corrupt: skip it after a few tries.
          if (++attempts <= 64) continue;  // re-read the row: it has moved on
          [[fallthrough]];
        case PinOutcome::Unusable:
          ++st.lost;
          ++cur;
          attempts = 0;
          continue;
      }
      ++cur;
      st.cursor[p] = cur;
      // Sync point "sleeper-dekker" with PublisherPort::wait_for_space (shm/sleeper_word.hpp):
      // the cursor store is the data. Both sides seq_cst: with a release store and an acquire
      // load the CPU may do the load first (x86 store buffer), read no waiter, and a publisher
      // waiting for this very cursor slept out its 10 ms slice — a stall under fan-out.
      c->my_queue->cursor.store(cur, std::memory_order_seq_cst);
      detail::wake_for_space(c->header, cur_before, cur, c->depth);
      prefetch_next_message(*c, cur);
      round_robin_ = (p + 1) % MAX_PUBLISHERS;
      st.held_conn[pinned.held_index] = c;
      TakenSample& s = out.emplace();
      s.state_ = state_;
      s.conn_ = c;
      s.control_ = pinned.access.control;
      s.data_ = pinned.access.data + pinned.offset;
      s.size_ = pinned.size;
      s.capacity_ = pinned.access.capacity - pinned.offset;
      s.offset_ = pinned.offset;
      s.seq_ = cur - 1;
      s.ref_ = pinned.ref;
      s.held_index_ = pinned.held_index;
      s.pub_slot_ = p;
      s.pub_gen_ = c->generation;
      return true;
    }
    st.cursor[p] = cur;
    if (c->departed) {
      // Drained: let the departed publisher go, and look at its slot again (a successor may
      // have waited for this, see refresh).
      detail::disconnect(st, p);
      epoch_ = ~0ull;
      *drained = true;
    }
    return false;
  });
  return out;
}

bool SubscriberPort::has_data() noexcept {
  if (topic_->header()->epoch.load(std::memory_order_acquire) != epoch_) refresh(false);
  SubscriberState& st = *state_;
  if (!st.retired.empty()) st.free_retired();
  return detail::for_each_bit_from(st.connected, 0, [&](std::uint32_t p) {
    const Connection* c = st.connections[p].get();
    const std::uint64_t cur = st.cursor[p];
    const std::uint64_t row_seq =
        c->rows[cur % c->ring].seq.load(std::memory_order_acquire);  // "row-publish"
    return holds_unread(row_seq, cur, c->ring);
  });
}

bool SubscriberPort::ready() noexcept { return has_data() || (also_ready_ && also_ready_()); }

bool SubscriberPort::wait_blocking(std::int64_t deadline_ns) noexcept {
  std::atomic<std::uint32_t>* const waiters = waiters_word();
  std::atomic<std::uint32_t>* const wake = wake_word();
  while (true) {
    premap_connections();
    // Sync point "sleeper-dekker" with PublisherPort::notify_subscribers (shm/sleeper_word.hpp).
    const std::uint32_t observed = shm::announce_sleeper(waiters, wake);
    if (ready()) {
      shm::retract_sleeper(waiters);
      return true;
    }
    std::int64_t timeout = -1;
    if (deadline_ns >= 0) {
      timeout = deadline_ns - shm::monotonic_ns();
      if (timeout <= 0) {
        shm::retract_sleeper(waiters);
        return false;
      }
    }
    // Sleep in slices of at most 100 ms so a publisher appearing (epoch change) is noticed even
    // if it never wakes us.
    shm::futex_wait(wake, observed,
                    timeout < 0 ? 100'000'000 : std::min<std::int64_t>(timeout, 100'000'000));
    shm::retract_sleeper(waiters);
    if (ready()) return true;
  }
}

void SubscriberPort::premap_connections() noexcept {
  detail::for_each_bit_from(state_->connected, 0, [&](std::uint32_t p) {
    premap(*state_->connections[p], false);
    return false;
  });
}

bool SubscriberPort::spin_until(std::int64_t until_ns, std::int64_t deadline_ns) noexcept {
  // Once per spin, before it: a busy-poll subscriber never sleeps, so this is its only idle
  // moment to map chunks committed after it attached (their first take faulted before). Costs
  // one load of each publisher's segment count and each growing segment's committed count.
  premap_connections();
  for (std::uint32_t i = 1;; ++i) {
    if (ready()) return true;
    shm::cpu_relax();
    if ((i & 255) == 0) {
      const std::int64_t now = shm::monotonic_ns();
      if ((deadline_ns >= 0 && now >= deadline_ns) || (until_ns >= 0 && now >= until_ns)) {
        return ready();
      }
    }
  }
}

bool SubscriberPort::wait(std::chrono::nanoseconds timeout) noexcept {
  const std::int64_t start = shm::monotonic_ns();
  const std::int64_t deadline = timeout.count() < 0 ? -1 : start + timeout.count();
  if (ready()) return true;
  switch (options_.wait_mode) {
    case WaitMode::Blocking:
      return wait_blocking(deadline);
    case WaitMode::BusyPoll:
      return spin_until(-1, deadline);
    case WaitMode::Adaptive:
      break;
  }
  // Adaptive: sleep through the predicted gap, spin around the expected arrival, then sleep.
  const auto plan = predictor_.plan(start, options_.spin_time.count());
  bool found = false;
  if (plan.sleep_until_ns > start) {
    // Timed sleeps must end on time: the default 50 us timer slack would eat the spin window.
    // Set on every adaptive sleep (one cheap system call before a sleep of the predicted gap),
    // not once per thread through a thread_local: see shm/participant.cpp's thread_cache() for
    // why the library keeps no thread_local.
    (void)::prctl(PR_SET_TIMERSLACK, 1);
    const std::int64_t until =
        deadline >= 0 ? std::min(deadline, plan.sleep_until_ns) : plan.sleep_until_ns;
    found = wait_blocking(until);
    if (!found) predictor_.observe_sleep(until, shm::monotonic_ns());
  }
  if (!found) found = spin_until(plan.spin_until_ns, deadline);
  if (!found) found = wait_blocking(deadline);
  if (found) predictor_.observe(shm::monotonic_ns());
  return found;
}

}  // namespace baton::topic
