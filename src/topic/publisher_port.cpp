#include "baton/topic/publisher_port.hpp"

#include <algorithm>
#include <cstring>

#include "baton/memory/domain/domain_table.hpp"
#include "baton/shm/clock.hpp"
#include "baton/shm/futex.hpp"
#include "baton/shm/participant.hpp"
#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "baton/topic/return_queue.hpp"
#include "departed_publishers.hpp"

namespace baton::topic {

Result<std::unique_ptr<PublisherPort>, Error<PublisherCreateError>> PublisherPort::create(
    std::shared_ptr<Topic> topic, const PublisherOptions& options) {
  using E = Error<PublisherCreateError>;
  if (options.depth == 0 || options.depth > MAX_RING_CAPACITY) {
    return unexpected(E{PublisherCreateError::InvalidQos, "depth " + std::to_string(options.depth) +
                                                              " is outside 1.." +
                                                              std::to_string(MAX_RING_CAPACITY)});
  }
  // May replace `topic` with a reopened handle (its directory was removed as we attached).
  auto slot = Topic::claim_publisher_slot(topic);
  if (!slot) {
    if (slot.error().code == TopicError::NoFreeSlot) {
      return unexpected(
          E{PublisherCreateError::NoFreeSlot, "topic '" + topic->name() + "' already has " +
                                                  std::to_string(MAX_PUBLISHERS) + " publishers"});
    }
    return unexpected(E{PublisherCreateError::SegmentFailure, slot.error().detail});
  }
  std::unique_ptr<PublisherPort> port(new PublisherPort());
  port->topic_ = topic;
  port->options_ = options;
  port->slot_ = *slot;
  PublisherSlot* ps = topic->publisher_slot(*slot);
  port->generation_ = ps->generation.load(std::memory_order_acquire);
  ps->depth = options.depth;
  ps->reliability = static_cast<std::uint8_t>(options.reliability);
  ps->durability = static_cast<std::uint8_t>(options.durability);

  const std::uint32_t ring = options.depth;
  const std::string name = topic->publisher_segment_name(*slot, port->generation_);
  shm::SegmentOptions seg_opts;
  seg_opts.mode = topic->segment_mode();
  // The head only: each return queue is committed when its subscriber attaches (version 10).
  seg_opts.commit_prefix = PublisherSegmentLayout::queues_offset(ring);
  auto seg = shm::Segment::create(name, PublisherSegmentLayout::total_size(ring),
                                  shm::SegmentKind::Publisher, seg_opts);
  if (!seg && seg.error().code == shm::SegmentCreateError::AlreadyExists) {
    shm::Segment::unlink(name);  // garbage of a crashed claim with our unique name
    seg = shm::Segment::create(name, PublisherSegmentLayout::total_size(ring),
                               shm::SegmentKind::Publisher, seg_opts);
  }
  if (!seg) {
    topic->release_publisher(*slot);
    return unexpected(E{PublisherCreateError::SegmentFailure, seg.error().detail});
  }
  // Shared (Segment::share) so subscribers in this process reuse this very mapping: fewer
  // mappings, and the row-publish release / acquire pair is on one address, which is what
  // ThreadSanitizer needs to see it (two mappings of one file hide it; scripts/sanitize.sh).
  seg->close_backing_file();  // queues are committed through the mappings (Segment::commit)
  port->segment_ = std::make_shared<shm::Segment>(std::move(*seg));
  auto* h = port->segment_->at<PublisherHeader>(PublisherSegmentLayout::header_offset);
  h->ring_capacity = ring;
  h->return_queue_capacity = RETURN_QUEUE_CAPACITY;
  h->rows_offset = PublisherSegmentLayout::rows_offset;
  h->queues_offset = PublisherSegmentLayout::queues_offset(ring);
  port->header_ = h;
  port->rows_ = port->segment_->at<Row>(PublisherSegmentLayout::rows_offset);
  port->queues_ = port->segment_->at<ReturnQueue>(PublisherSegmentLayout::queues_offset(ring));
  for (std::uint32_t i = 0; i < ring; ++i) {
    port->rows_[i].seq.store(EMPTY_ROW, std::memory_order_relaxed);
    port->rows_[i].chunk.store(memory::INVALID_CHUNK, std::memory_order_relaxed);
  }
  port->ring_.assign(ring, memory::INVALID_CHUNK);
  // What this publisher can hold at once: its ring, the loan being filled, a sample a reader
  // holds. The pool sizes a class's first segment for it and commits up to it ahead of loans.
  memory::PoolConfig pool = options.pool;
  if (pool.expected_outstanding == 0) pool.expected_outstanding = ring + 2;
  port->options_.pool = pool;
  port->pool_ =
      std::make_unique<memory::ChunkPool>(topic->pool_name(*slot, port->generation_), pool);
  port->pool_->track_segment_count(&h->data_segment_count);
  // Match the subscribers that exist now, as DDS matches a new writer with its readers: they
  // read from our first message on, and a reliable publisher holds back for them from that very
  // message — not only once each has noticed us (which it does lazily, on its next take).
  // Before the segment is ready, so no subscriber writes its cursor meanwhile (ReturnQueue).
  // A subscriber whose queue finds no room in a full /dev/shm is not matched: it attaches by
  // itself later, once it can commit the queue (SubscriberPort's connect).
  topic->for_each_active_subscriber([&](std::uint32_t k) {
    if (!commit_return_queue(*port->segment_, h, ring, k)) return;
    port->known_queues_[sub_mask_word(k)] |= sub_mask_bit(k);
    ReturnQueue* q = port->queues_ + k;
    q->cursor.store(0, std::memory_order_relaxed);
    q->cursor_generation.store(
        topic->subscriber_slot(k)->generation.load(std::memory_order_acquire),
        std::memory_order_relaxed);  // published by mark_ready (release)
  });
  port->segment_->mark_ready();
  shm::Segment::share(port->segment_);
  topic->activate_publisher(*slot);
  // Wake them: a sleeping subscriber attaches now, while idle, not inside its first take.
  port->notify_subscribers();
  return port;
}

PublisherPort::~PublisherPort() {
  if (!topic_) return;
  leave();
  topic_->release_publisher(slot_);
  // The ring keeps its publisher references: a subscriber draining the unread rows pins their
  // chunks like any other (pin_ref needs the publisher bit), and nobody reuses a chunk of a pool
  // that is gone, so they need no handing back.
  segment_->unlink();
  pool_.reset();  // unlinks data segments; subscribers' mappings stay valid
  // The copy table domain subscribers made for us (and its staging pools): they remove it only
  // when they leave after us, so a publisher that outlived them left it in /dev/shm for good
  // (~6 MiB a table in the accel tests). Mappings stay valid for any still attached.
  memory::domain::DomainTable::unlink(domain_table_name(*topic_, slot_, generation_));
}

void PublisherPort::leave() noexcept {
  // Sync point "departure": `leaving` (release), then the epoch bump that makes subscribers look
  // (acquire); every row and the tail are final before it.
  header_->leaving.store(1, std::memory_order_seq_cst);
  park_for_local_subscribers();
  topic_->header()->epoch.fetch_add(1, std::memory_order_acq_rel);
  notify_subscribers();  // sleeping subscribers wake, look, map and acknowledge
  if (options_.reliability == Reliability::Reliable) wait_for_remote_subscribers();
}

void PublisherPort::park_for_local_subscribers() noexcept {
  const std::uint32_t me = shm::self().pid;
  std::array<std::uint64_t, SUB_MASK_WORDS> waiting{};
  bool any = false;
  topic_->for_each_active_subscriber([&](std::uint32_t k) {
    const SubscriberSlot* s = topic_->subscriber_slot(k);
    const ReturnQueue* q = queue(k);
    if (q == nullptr || slot_pid(s->state.load(std::memory_order_acquire)) != me ||
        q->cursor_generation.load(std::memory_order_acquire) !=
            s->generation.load(std::memory_order_acquire) ||
        q->cursor.load(std::memory_order_acquire) >= tail_) {
      return;  // another process's, not attached to us, or nothing left to read
    }
    waiting[sub_mask_word(k)] |= sub_mask_bit(k);
    any = true;
  });
  if (!any) return;
  try {
    auto mappings = std::make_shared<detail::DepartedMappings>();
    mappings->segment = segment_;
    mappings->data = pool_->mappings();
    detail::DepartedPublishers::instance().park(topic_->name(), slot_, generation_, waiting,
                                                std::move(mappings));
  } catch (...) {
    // Out of memory: those subscribers lose the unread rows, as before departures were drained.
  }
}

bool PublisherPort::remote_subscriber_unmapped() const noexcept {
  const std::uint32_t me = shm::self().pid;
  bool unmapped = false;
  topic_->for_each_active_subscriber([&](std::uint32_t k) {
    if (unmapped) return;
    const SubscriberSlot* s = topic_->subscriber_slot(k);
    if (__atomic_load_n(&s->reliability, __ATOMIC_RELAXED) !=
        static_cast<std::uint8_t>(Reliability::Reliable))
      return;
    const std::uint64_t word = s->state.load(std::memory_order_acquire);
    if (slot_pid(word) == me) return;  // parked for it (park_for_local_subscribers)
    const std::uint32_t gen = s->generation.load(std::memory_order_acquire);
    const ReturnQueue* q = queue(k);
    if (q == nullptr || q->cursor_generation.load(std::memory_order_acquire) != gen) {
      return;  // not attached
    }
    // seq_cst: sync point "departure" with the subscriber's take / acknowledgement, as in
    // wait_for_space ("sleeper-dekker").
    if (q->cursor.load(std::memory_order_seq_cst) >= tail_) return;          // read it all
    if (q->drain_generation.load(std::memory_order_seq_cst) == gen) return;  // mapped it all
    if (!shm::is_alive({slot_pid(word), s->start_time.load(std::memory_order_relaxed)})) return;
    unmapped = true;
  });
  return unmapped;
}

void PublisherPort::wait_for_remote_subscribers() noexcept {
  if (!remote_subscriber_unmapped()) return;
  // Any take wakes us (wake_for_space), and so does each acknowledgement.
  header_->space_wanted.store(0, std::memory_order_seq_cst);
  const std::int64_t deadline = shm::monotonic_ns() + options_.reliable_timeout.count();
  while (true) {
    const std::uint32_t observed =
        shm::announce_sleeper(&header_->space_waiters, &header_->space_seq);
    const std::int64_t now = shm::monotonic_ns();
    if (!remote_subscriber_unmapped() || now >= deadline) {
      shm::retract_sleeper(&header_->space_waiters);
      return;
    }
    // Slices of 10 ms: a subscriber that dies meanwhile wakes nobody (is_alive above skips it).
    shm::futex_wait(&header_->space_seq, observed,
                    std::min<std::int64_t>(deadline - now, 10'000'000));
    shm::retract_sleeper(&header_->space_waiters);
  }
}

void PublisherPort::release_taken() noexcept {
  if (options_.durability != Durability::Volatile) return;
  const std::uint64_t ring = ring_.size();
  const std::uint64_t oldest = std::max(unreleased_from_, tail_ > ring ? tail_ - ring : 0);
  std::uint64_t taken = tail_;  // every message below it was taken by all
  topic_->for_each_active_subscriber([&](std::uint32_t k) {
    if (taken <= oldest) return;  // nothing to let go: skip the rest
    const SubscriberSlot* s = topic_->subscriber_slot(k);
    const ReturnQueue* q = queue(k);
    if (q == nullptr || q->cursor_generation.load(std::memory_order_acquire) !=
                            s->generation.load(std::memory_order_acquire)) {
      taken = 0;  // not attached to us yet: it may read from our first message
      return;
    }
    // Acquire: the subscriber pinned a message before its cursor passed it (SubscriberPort::
    // take), so a reader still holding one keeps it through its own bit ("chunk-pin").
    taken = std::min(taken, q->cursor.load(std::memory_order_acquire));
  });
  for (std::uint64_t seq = oldest; seq < taken; ++seq) {
    const auto index = static_cast<std::uint32_t>(seq % ring);
    if (ring_[index] == memory::INVALID_CHUNK) continue;
    // The row keeps its seq and names no chunk: a reader that still comes for it (one matched
    // late, see SubscriberPort::refresh) skips it as lost at once instead of pinning a chunk
    // that may hold another message by then.
    rows_[index].chunk.store(memory::INVALID_CHUNK, std::memory_order_relaxed);
    pool_->release_publisher_ref(ring_[index]);
    ring_[index] = memory::INVALID_CHUNK;
  }
  unreleased_from_ = std::max(oldest, taken);
}

ReturnQueue* PublisherPort::queue_cold(std::uint32_t k) const noexcept {
  if (!return_queue_committed(header_, k)) return nullptr;
  // The bit is shared memory, so untrusted: map the pages with a commit, which fails where a
  // read of a hole on a full /dev/shm would raise SIGBUS. Once per queue.
  if (!commit_return_queue_pages(*segment_, options_.depth, k)) return nullptr;
  known_queues_[sub_mask_word(k)] |= sub_mask_bit(k);
  return queues_ + k;
}

void PublisherPort::reuse_taken() noexcept {
  release_taken();
  collect_returns();
}

bool PublisherPort::try_loan(std::uint64_t size, ChunkLoan* out, LoanError* error) noexcept {
  if (pool_->next_is_cold(size)) {
    reuse_taken();
    if (!pool_->has_free(size)) {
      // Cold: before growing, make sure nothing is only held by the dead.
      topic_->reclaim_dead();
      collect_returns();
    }
  }
  memory::Allocation a;
  memory::AllocError failed{};
  if (!pool_->try_allocate(size, &a, &failed)) {
    *error = failed == memory::AllocError::TooLarge ? LoanError::TooLarge : LoanError::OutOfMemory;
    return false;
  }
  *out = ChunkLoan{a.ref, a.data, a.capacity};
  return true;
}

void PublisherPort::discard(const ChunkLoan& loan) noexcept {
  // Only a chunk still on loan: a published one belongs to the ring (see publish()).
  if (loan.ref != memory::INVALID_CHUNK && pool_->on_loan(loan.ref)) {
    pool_->end_loan(loan.ref);
    pool_->release_publisher_ref(loan.ref);
  }
}

void PublisherPort::collect_returns() noexcept {
  // Look before the exchange: a loan of a large message checks for returns whenever its next
  // chunk is cold (reuse_taken), and mostly none are pending; the exchange is a locked RMW on a
  // line the subscribers write (issue 20, busy-poll at 64 MiB). A bit set just after the look
  // stays set for the next call, as one set just after the exchange would.
  if (header_->returns_pending.load(std::memory_order_relaxed) == 0) return;
  std::uint64_t pending = header_->returns_pending.exchange(0, std::memory_order_acq_rel);
  bool overflow = false;
  while (pending != 0) {
    const auto bit = static_cast<std::uint32_t>(__builtin_ctzll(pending));
    pending &= pending - 1;
    // Bit b stands for queues b, b + 64, ... (returns_pending_bit): drain each of them.
    for (std::uint32_t k = bit; k < MAX_SUBSCRIBERS; k += 64) {
      ReturnQueue* q = queue(k);
      if (q == nullptr) continue;  // never committed: nobody could push there
      std::uint32_t head = q->head.load(std::memory_order_relaxed);
      const std::uint32_t tail = q->tail.load(std::memory_order_acquire);  // sync "return-push"
      if (tail - head > RETURN_QUEUE_CAPACITY) {  // corrupt indices: skip them, sweep instead
        head = tail;
        overflow = true;
      }
      for (; head != tail; ++head) pool_->give_back(q->entries[head % RETURN_QUEUE_CAPACITY]);
      q->head.store(head, std::memory_order_release);
      if (q->overflowed.exchange(0, std::memory_order_acq_rel) != 0) overflow = true;
    }
  }
  if (overflow) pool_->sweep();
}

bool PublisherPort::wait_for_space(std::uint64_t seq) noexcept {
  // Cheap path: between scans, publishing below space_limit_ cannot overrun anyone. The limit
  // never reaches past one ring ahead, so a reliable subscriber that attaches meanwhile is seen
  // before its first unread row could be overwritten.
  if (seq < space_limit_) return true;
  const std::uint32_t ring = options_.depth;
  // Recomputes the limit from every attached reliable subscriber's cursor; true if `seq` fits.
  auto has_space = [&]() {
    std::uint64_t limit = seq + ring;
    topic_->for_each_active_subscriber([&](std::uint32_t k) {
      SubscriberSlot* s = topic_->subscriber_slot(k);
      if (__atomic_load_n(&s->reliability, __ATOMIC_RELAXED) !=
          static_cast<std::uint8_t>(Reliability::Reliable))
        return;
      // The cursor in our segment counts only if this very claim of slot k stored it.
      const ReturnQueue* q = queue(k);
      if (q == nullptr || q->cursor_generation.load(std::memory_order_acquire) !=
                              s->generation.load(std::memory_order_acquire)) {
        return;  // not attached to us yet
      }
      // seq_cst: one side of the Dekker pair with SubscriberPort::take (see there).
      const std::uint64_t cursor = q->cursor.load(std::memory_order_seq_cst);
      if (cursor > seq) return;  // ahead of seq, or never attached (NOT_ATTACHED)
      limit = std::min(limit, cursor + std::clamp<std::uint64_t>(
                                           __atomic_load_n(&s->depth, __ATOMIC_RELAXED), 1, ring));
    });
    space_limit_ = limit;
    return seq < limit;
  };
  if (has_space()) return true;
  // A subscriber that is taking frees a row within one take (~0.2 us), one being woken within
  // its wake-up (30-100 us here): look again, for up to 100 us, before sleeping. Sleeping at once
  // made a stream without pause oscillate (issue 20, scenario A): the publisher slept on every full
  // queue, the subscriber's crossing take paid the futex wake (a system call inside take), drained
  // the queue and slept itself, and the publisher's next publish paid a wake in turn; the messages
  // waited out both wake-ups. Rescanning every 16 pauses, not on every one: each scan reads the
  // cursors' lines, which the subscribers write on every take. The look is adaptive (space_spin_,
  // see there): where it does not pay, it shrinks to half a microsecond.
  if (space_spin_.look(-1, 16, has_space)) return true;
  // Before arming (sync point "sleeper-dekker"): which take may wake us (wake_for_space).
  header_->space_wanted.store(seq + 1, std::memory_order_seq_cst);
  const std::int64_t deadline = shm::monotonic_ns() + options_.reliable_timeout.count();
  std::int64_t next_reclaim = shm::monotonic_ns() + 100'000'000;
  while (true) {
    // "sleeper-dekker", see SubscriberPort::take
    const std::uint32_t observed =
        shm::announce_sleeper(&header_->space_waiters, &header_->space_seq);
    if (has_space()) {
      shm::retract_sleeper(&header_->space_waiters);
      return true;
    }
    const std::int64_t now = shm::monotonic_ns();
    if (now >= deadline) {
      shm::retract_sleeper(&header_->space_waiters);
      // Fix (stress work): last chance before giving up. The periodic reclaim below first runs
      // after 100 ms, so with a shorter reliable_timeout a reliable subscriber that died with a
      // full queue was never reclaimed and every later publish timed out, forever.
      return topic_->reclaim_dead() != 0 && has_space();
    }
    shm::futex_wait(&header_->space_seq, observed,
                    std::min<std::int64_t>(deadline - now, 10'000'000));
    shm::retract_sleeper(&header_->space_waiters);
    if (shm::monotonic_ns() >= next_reclaim) {  // a reliable subscriber may have died while full
      topic_->reclaim_dead();
      next_reclaim = shm::monotonic_ns() + 100'000'000;
    }
  }
}

Status<PublishError> PublisherPort::publish(const ChunkLoan& loan, std::uint64_t size,
                                            std::uint64_t offset) noexcept {
  if (loan.ref == memory::INVALID_CHUNK) return unexpected(PublishError::InvalidLoan);
  memory::ChunkAccess access;
  const bool resolved = pool_->try_resolve(loan.ref, &access);
  // Fix (stress work): a loan already published (or discarded) is refused. It used to be
  // accepted: the chunk sat in the ring twice and lost its publisher reference twice, so it was
  // freed and reused while a row still named it. The pool's private loan table decides; the
  // chunk's shared control words are not trusted for this.
  if (!resolved || access.data != loan.data || !pool_->on_loan(loan.ref)) {
    return unexpected(PublishError::InvalidLoan);
  }
  if (!memory::payload_fits(offset, size, access.capacity)) {
    return unexpected(PublishError::SizeTooLarge);
  }
  const std::uint64_t seq = tail_;
  const std::uint32_t index = static_cast<std::uint32_t>(seq % options_.depth);
  // Only a reliable publisher waits; a best-effort one never holds anyone up.
  pool_->end_loan(loan.ref);  // consumed from here on, published or dropped
  if (options_.reliability == Reliability::Reliable && !wait_for_space(seq)) {
    pool_->release_publisher_ref(loan.ref);
    return unexpected(PublishError::ReliableTimeout);
  }
  memory::ChunkControl* ctl = access.control;
  ctl->payload_size.store(size, std::memory_order_relaxed);
  ctl->payload_offset.store(offset, std::memory_order_relaxed);  // before "row-publish", as seq
  ctl->seq.store(seq, std::memory_order_relaxed);
  ctl->timestamp_ns.store(stamping() ? shm::realtime_ns() : 0,
                          std::memory_order_relaxed);  // before "row-publish", as seq
  const memory::ChunkRef evicted = ring_[index];
  ring_[index] = loan.ref;
  rows_[index].chunk.store(loan.ref, std::memory_order_relaxed);
  rows_[index].seq.store(seq, std::memory_order_release);  // sync point "row-publish"
  tail_ = seq + 1;
  header_->tail.store(tail_, std::memory_order_release);  // sync point "row-publish"
  notify_subscribers();
  // Bookkeeping after the message is visible: it is off the subscriber's critical path.
  if (evicted != memory::INVALID_CHUNK) pool_->release_publisher_ref(evicted);
  if (pool_->next_is_cold(size)) {
    // The next loan would take a chunk not written yet: reuse one the subscribers are done with
    // if there is one (the loan looks again if not: by then they have read more); if it would
    // have to grow the pool, commit its chunk now, while the subscribers read this message,
    // instead of inside that loan (bench/pool_growth).
    reuse_taken();
    if (!pool_->has_free(size)) pool_->prepare_ahead(size);
  }
  pool_->prefetch_next(size);  // warm the next loan while the subscribers read this one
  return Ok{};
}

bool PublisherPort::stamping() noexcept {
  if (!options_.source_timestamps) return false;
  // Acquire: a subscriber stores wants_timestamps before the activation's epoch bump.
  const std::uint64_t epoch = topic_->header()->epoch.load(std::memory_order_acquire);
  if (epoch == stamp_epoch_) return stamping_;
  bool asked = false;
  topic_->for_each_active_subscriber([&](std::uint32_t k) {
    asked = asked || __atomic_load_n(&topic_->subscriber_slot(k)->wants_timestamps,
                                     __ATOMIC_RELAXED) != 0;  // a byte: only tested
  });
  stamp_epoch_ = epoch;
  stamping_ = asked;
  return asked;
}

void PublisherPort::notify_subscribers() noexcept {
  // Sync point "sleeper-dekker" with SubscriberPort::wait_blocking and WaitSet
  // (shm/sleeper_word.hpp): tail store, fence, then the topic's waiters word. Every subscriber
  // of the topic sleeps on the topic's wake pair, so one FUTEX_WAKE wakes them all: with a
  // call per subscriber, the woken ones preempted the publisher between its calls on a
  // two-core machine, and the last subscriber waited for all the others' runs (issue 20).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  TopicHeader* h = topic_->header();
  shm::wake_armed_sleepers(&h->waiters, &h->wake_seq);
}

std::uint32_t PublisherPort::ring_occupancy() const noexcept {
  return static_cast<std::uint32_t>(
      std::count_if(ring_.begin(), ring_.end(), [](auto r) { return r != memory::INVALID_CHUNK; }));
}

}  // namespace baton::topic
