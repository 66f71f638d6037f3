#include "baton/topic/topic.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include "baton/memory/chunk_refs.hpp"
#include "baton/memory/domain/domain_table.hpp"
#include "baton/memory/pool_view.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/shm/periodic_turn.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "baton/topic/return_queue.hpp"

namespace baton::topic {
namespace {

constexpr std::size_t MAX_TOPIC_NAME = 200;

bool owner_alive(std::uint64_t word, std::uint64_t start_time) {
  // start_time may not be written yet right after a claim: then the pid alone decides.
  shm::ParticipantId id{slot_pid(word), start_time};
  return shm::is_alive(id);
}

// Sets a slot Free. Fix (stress work): the owner's start time is cleared first, in the same
// release as the state. It used to survive the release, so in the window between a new
// claimer's CAS and its start_time store, reclaim_dead() paired the new pid with the previous
// owner's start time, judged the live claimer dead and reclaimed its slot under it.
template <typename SlotT>
void set_free(SlotT* s) {
  s->start_time.store(0, std::memory_order_relaxed);
  s->state.store(slot_word(SlotState::Free, 0), std::memory_order_release);  // sync "slot-claim"
}

std::string type_name_of(const TopicHeader* h) {
  return std::string(h->type_name, strnlen(h->type_name, TYPE_NAME_CAPACITY));
}

// True if a live process holds a slot (Claimed, Active, or Reclaiming a dead one's). The closer's
// half of sync point "segment-close": seq_cst loads, after its seq_cst CAS to Closing.
template <typename SlotT>
bool live_claim_in(const shm::Segment& seg, std::uint32_t count) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const SlotT& slot = *seg.at<SlotT>(TopicSegmentLayout::slot_offset<SlotT>(i));
    const std::uint64_t w = slot.state.load(std::memory_order_seq_cst);
    const SlotState st = slot_state(w);
    if (st == SlotState::Free) continue;
    // A reclaimer's word carries its own pid next to the dead owner's start time.
    if (owner_alive(w, st == SlotState::Reclaiming ? 0 : slot.start_time.load())) return true;
  }
  return false;
}

shm::SegmentLifecycle lifecycle_of(const shm::Segment& seg) {
  auto* h = seg.at<TopicHeader>(TopicSegmentLayout::header_offset);
  return shm::SegmentLifecycle(h->lifecycle, h->closer_start_time);
}

}  // namespace

bool topic_has_live_claim(const shm::Segment& seg) {
  // The limits after the CAS to Closing, seq_cst: a claimer raises them before its claim.
  const auto* h = seg.at<TopicHeader>(TopicSegmentLayout::header_offset);
  // Cut to the slots whose pages can be read (readable_slots.hpp: a corrupted limit).
  const std::uint32_t pubs = readable_slots<PublisherSlot>(
      seg, 0, topic_slot_limit(h->pub_slot_limit, MAX_PUBLISHERS, std::memory_order_seq_cst));
  const std::uint32_t subs = readable_slots<SubscriberSlot>(
      seg, 0, topic_slot_limit(h->sub_slot_limit, MAX_SUBSCRIBERS, std::memory_order_seq_cst));
  return live_claim_in<PublisherSlot>(seg, pubs) || live_claim_in<SubscriberSlot>(seg, subs);
}

std::string validate_topic_segment(const shm::Segment& seg) {
  if (seg.size() != TopicSegmentLayout::total_size) {
    return "size " + std::to_string(seg.size()) + ", expected " +
           std::to_string(TopicSegmentLayout::total_size);
  }
  const auto* h = seg.at<TopicHeader>(TopicSegmentLayout::header_offset);
  if (h->max_publishers != MAX_PUBLISHERS || h->max_subscribers != MAX_SUBSCRIBERS) {
    return "slot counts " + std::to_string(h->max_publishers) + "/" +
           std::to_string(h->max_subscribers) + " differ from this build's";
  }
  if (strnlen(h->type_name, TYPE_NAME_CAPACITY) == TYPE_NAME_CAPACITY) {
    return "type name not terminated";
  }
  return {};
}

Result<std::shared_ptr<Topic>, Error<TopicError>> Topic::open_or_create(
    const std::string& name, const TypeInfo& type, const TopicOptions& options) {
  using E = Error<TopicError>;
  if (name.empty() || name.size() > MAX_TOPIC_NAME) {
    return unexpected(E{TopicError::InvalidName, "topic name '" + name + "' must have 1.." +
                                                     std::to_string(MAX_TOPIC_NAME) +
                                                     " characters"});
  }
  if (type.name.empty() || type.name.size() >= TYPE_NAME_CAPACITY) {
    return unexpected(E{TopicError::InvalidName, "type name '" + type.name + "' must have 1.." +
                                                     std::to_string(TYPE_NAME_CAPACITY - 1) +
                                                     " characters"});
  }
  const std::string seg_name = shm::segment_name("t", name);
  shm::ClosingWait closing;
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto opened = shm::Segment::open(seg_name, shm::SegmentKind::Topic);
    if (opened) {
      std::string why = validate_topic_segment(*opened);
      if (!why.empty()) {
        return unexpected(E{TopicError::Corrupt,
                            "topic '" + name + "': " + why + " (run `baton clean` to remove it)"});
      }
      const auto* h = opened->at<TopicHeader>(TopicSegmentLayout::header_offset);
      if (!lifecycle_of(*opened).is_open()) {
        // Being removed: let its closer finish (or finish for a dead one), then open anew.
        if (closing.settle(*opened, lifecycle_of(*opened),
                           [&] { return topic_has_live_claim(*opened); })) {
          --attempt;
        }
        continue;
      }
      const std::string found = type_name_of(h);
      if (found != type.name || std::memcmp(h->type_hash, type.hash.data(), 32) != 0) {
        // Nobody alive uses it: the old type is history, replace the topic (closed by the
        // protocol, so nobody attaching meanwhile keeps using the old directory).
        if (close_topic_if_unused(*opened) != CloseVerdict::InUse) {
          std::this_thread::yield();
          continue;
        }
        TypeInfo theirs;
        theirs.name = found;
        std::memcpy(theirs.hash.data(), h->type_hash, 32);
        return unexpected(E{TopicError::TypeMismatch,
                            "topic '" + name + "' carries type '" + found + "' (hash " +
                                theirs.hash_hex().substr(0, 16) + "…), this endpoint uses '" +
                                type.name + "' (hash " + type.hash_hex().substr(0, 16) + "…)"});
      }
      return std::shared_ptr<Topic>(new Topic(name, type, options, std::move(*opened)));
    }
    const auto code = opened.error().code;
    if (code == shm::SegmentOpenError::PermissionDenied) {
      return unexpected(E{TopicError::PermissionDenied, opened.error().detail});
    }
    if (code == shm::SegmentOpenError::Stale || code == shm::SegmentOpenError::Incompatible ||
        code == shm::SegmentOpenError::Corrupt) {
      if (code == shm::SegmentOpenError::Stale) {  // its creator died before finishing it
        shm::Segment::remove_if_stale(seg_name);
        continue;
      }
      return unexpected(
          E{TopicError::Corrupt, opened.error().detail + " (run `baton clean` to remove it)"});
    }
    // Fix (stress work): open() already waited for the creator; retrying used to wait again, 50
    // times over, so a directory whose live creator never finished (or whose ready word was
    // corrupt) stalled open_or_create for 50 s. Report it instead.
    if (code == shm::SegmentOpenError::NotReady) {
      return unexpected(E{TopicError::SegmentFailure, opened.error().detail});
    }
    if (code != shm::SegmentOpenError::DoesNotExist) {
      return unexpected(E{TopicError::SegmentFailure, opened.error().detail});
    }
    shm::SegmentOptions seg_opts;
    seg_opts.mode = options.segment_mode;
    // The header's page (with the head slots): claimers commit the other slots they reach
    // (TopicHeader::pub_slot_limit).
    seg_opts.commit_prefix = TopicSegmentLayout::head_end;
    auto created = shm::Segment::create(seg_name, TopicSegmentLayout::total_size,
                                        shm::SegmentKind::Topic, seg_opts);
    if (!created) {
      if (created.error().code == shm::SegmentCreateError::AlreadyExists) continue;  // lost race
      return unexpected(E{TopicError::SegmentFailure, created.error().detail});
    }
    created->close_backing_file();  // slots are committed through the mappings
    auto* h = created->at<TopicHeader>(TopicSegmentLayout::header_offset);
    std::memcpy(h->type_name, type.name.data(), type.name.size());
    std::memcpy(h->type_hash, type.hash.data(), 32);
    h->max_publishers = MAX_PUBLISHERS;
    h->max_subscribers = MAX_SUBSCRIBERS;
    created->mark_ready();
    return std::shared_ptr<Topic>(new Topic(name, type, options, std::move(*created)));
  }
  if (closing.busy_closer() != 0) {
    return unexpected(E{TopicError::SegmentFailure,
                        "topic '" + name + "': its directory is being removed by process " +
                            std::to_string(closing.busy_closer()) +
                            ", which does not finish; retry"});
  }
  return unexpected(E{TopicError::SegmentFailure,
                      "topic '" + name + "': could not open or create its segment (contention)"});
}

std::string Topic::publisher_segment_name(std::uint32_t slot, std::uint32_t generation) const {
  return shm::segment_name("p",
                           name_ + "." + std::to_string(slot) + "." + std::to_string(generation));
}

std::string Topic::pool_name(std::uint32_t slot, std::uint32_t generation) const {
  return name_ + "." + std::to_string(slot) + "." + std::to_string(generation);
}

// One kind of slot in a directory: how many there are, the limit below which they may have
// been claimed (TopicHeader::pub_slot_limit / sub_slot_limit), and how far this process has
// found them readable (Topic::readable_pub_ / readable_sub_).
template <typename SlotT>
struct SlotTable {
  shm::Segment* segment;
  std::uint32_t count;
  std::atomic<std::uint32_t>* limit;
  std::atomic<std::uint32_t>* readable;

  // The slots below the limit that can be read (readable_slots.hpp).
  std::uint32_t claimable(std::memory_order order = std::memory_order_acquire) const {
    return readable_limit<SlotT>(*segment, topic_slot_limit(*limit, count, order), *readable);
  }
  SlotT& at(std::uint32_t i) const {
    return *segment->at<SlotT>(TopicSegmentLayout::slot_offset<SlotT>(i));
  }
};

// Makes slot i claimable: commits its pages, then raises the limit past it (seq_cst, before the
// claim: the claimer's half of sync point "segment-close" covers the limit too). False if
// /dev/shm has no room for the page.
template <typename SlotT>
static bool open_slot(shm::Segment& segment, const SlotTable<SlotT>& t, std::uint32_t i) {
  if (!segment.commit(TopicSegmentLayout::slot_offset<SlotT>(i), sizeof(SlotT), false)) {
    return false;
  }
  std::uint32_t seen = t.limit->load(std::memory_order_seq_cst);
  while (seen < i + 1 && !t.limit->compare_exchange_weak(seen, i + 1, std::memory_order_seq_cst)) {
  }
  return true;
}

template <typename SlotT>
static Result<std::uint32_t, TopicError> claim_in(shm::Segment& segment,
                                                  shm::SegmentLifecycle lifecycle,
                                                  const SlotTable<SlotT>& t) {
  const shm::ParticipantId me = shm::self();
  for (std::uint32_t i = 0; i < t.count; ++i) {
    // Past the limit, or a slot the limit covers whose page cannot be read (corrupted limit):
    // commit its page first (an error, not a SIGBUS, where /dev/shm is full).
    if (i >= t.claimable(std::memory_order_seq_cst) && !open_slot(segment, t, i)) {
      return unexpected(TopicError::SegmentFailure);
    }
    std::uint64_t expected = slot_word(SlotState::Free, 0);
    // The claimer's pid enters with the claim itself (sync point "slot-claim"); seq_cst for
    // sync point "segment-close" (the claimer's half: claim, then read the lifecycle).
    SlotT& slot = t.at(i);
    if (slot.state.compare_exchange_strong(expected, slot_word(SlotState::Claimed, me.pid),
                                           std::memory_order_seq_cst)) {
      if (!lifecycle.admits_claim()) {
        set_free(&slot);  // a closer may not have seen the claim: nothing may stay here
        return unexpected(TopicError::Closed);
      }
      slot.start_time.store(me.start_time, std::memory_order_relaxed);
      // Release: whoever reads the new generation (acquire) also sees the claim's state.
      slot.generation.fetch_add(1, std::memory_order_release);
      return i;
    }
  }
  return unexpected(TopicError::NoFreeSlot);
}

// What a claimer that found every slot taken (after its own reclaim_dead) sees in them.
enum class FullSlots {
  HeldByTheLiving,  // every slot belongs to a live owner: the topic is full
  FreeNow,          // a slot came free since: claim again
  BeingFreed,       // a live process is reclaiming a dead owner's slot (or a death is unreclaimed)
};

template <typename SlotT>
static FullSlots look_at_full_slots(const SlotTable<SlotT>& t) {
  FullSlots seen = FullSlots::HeldByTheLiving;
  const std::uint32_t count = t.claimable();
  for (std::uint32_t i = 0; i < count; ++i) {
    const SlotT& slot = t.at(i);
    const std::uint64_t w = slot.state.load(std::memory_order_acquire);
    const SlotState st = slot_state(w);
    if (st == SlotState::Free) return FullSlots::FreeNow;
    // A Reclaiming slot is Free as soon as its (live) reclaimer is done; one whose reclaimer or
    // owner died is reclaimed by our next reclaim_dead.
    if (st == SlotState::Reclaiming ||
        !owner_alive(w, slot.start_time.load(std::memory_order_relaxed))) {
      seen = FullSlots::BeingFreed;
    }
  }
  return seen;
}

// Claims a slot, reclaiming dead owners' slots when none is free. Fix (stress work,
// ServiceCrashTest): a claimer used to report NoFreeSlot while another process was reclaiming a
// dead owner's slot (its reclaim_dead CASed the slot to Reclaiming first, so ours skipped it), or
// had just freed one: a live client whose pool ran dry reclaimed the last dead client's request
// slot just as a replacement process claimed it, and the replacement's 32nd client was refused.
// Such a slot is free in moments (a reclaim unlinks a few segments): wait for it, 200 us at a
// time, as for a closer (ClosingWait), up to MAX_RECLAIM_WAITS (a reclaimer stopped meanwhile).
template <typename SlotT, typename Reclaim>
static Result<std::uint32_t, TopicError> claim_or_reclaim(shm::Segment& segment,
                                                          const SlotTable<SlotT>& t,
                                                          Reclaim reclaim_dead) {
  constexpr int MAX_RECLAIM_WAITS = 10000;
  auto r = claim_in(segment, lifecycle_of(segment), t);
  for (int waits = 0; !r && r.error() == TopicError::NoFreeSlot; ++waits) {
    reclaim_dead();
    r = claim_in(segment, lifecycle_of(segment), t);
    if (r || r.error() != TopicError::NoFreeSlot || waits == MAX_RECLAIM_WAITS) break;
    const FullSlots seen = look_at_full_slots(t);
    if (seen == FullSlots::HeldByTheLiving) break;
    if (seen == FullSlots::BeingFreed) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return r;
}

Result<std::uint32_t, TopicError> Topic::claim_publisher_slot() {
  const SlotTable<PublisherSlot> t{&segment_, MAX_PUBLISHERS, &header()->pub_slot_limit,
                                   &readable_pub_};
  return claim_or_reclaim(segment_, t, [this] { reclaim_dead(); });
}

Result<std::uint32_t, TopicError> Topic::claim_subscriber_slot() {
  const SlotTable<SubscriberSlot> t{&segment_, MAX_SUBSCRIBERS, &header()->sub_slot_limit,
                                    &readable_sub_};
  auto r = claim_or_reclaim(segment_, t, [this] { reclaim_dead(); });
  if (r) {
    SubscriberSlot* s = subscriber_slot(*r);
    for (auto& h : s->held) h.store(0, std::memory_order_relaxed);
  }
  return r;
}

template <typename Claim>
Result<std::uint32_t, Error<TopicError>> Topic::claim_reopening(std::shared_ptr<Topic>& topic,
                                                                Claim claim) {
  using E = Error<TopicError>;
  // Each round means a closer removed the directory between our open and our claim; a new
  // directory needs a new last-endpoint-leaves race to be closed again, so rounds are rare.
  for (int round = 0; round < 100; ++round) {
    auto slot = ((*topic).*claim)();
    if (slot) return *slot;
    if (slot.error() == TopicError::SegmentFailure) {
      return unexpected(E{slot.error(), "topic '" + topic->name() +
                                            "': no room in /dev/shm for a slot's page (free "
                                            "space there or enlarge it)"});
    }
    if (slot.error() != TopicError::Closed) {
      return unexpected(E{slot.error(), "topic '" + topic->name() + "' has no free slot (" +
                                            std::to_string(MAX_PUBLISHERS) + " publishers / " +
                                            std::to_string(MAX_SUBSCRIBERS) + " subscribers)"});
    }
    auto reopened = open_or_create(topic->name(), topic->type(), topic->options_);
    if (!reopened) return unexpected(reopened.error());
    topic = std::move(*reopened);
  }
  return unexpected(E{TopicError::Closed, "topic '" + topic->name() +
                                              "': its directory was removed under every attach "
                                              "attempt (endpoints come and go too fast); retry"});
}

Result<std::uint32_t, Error<TopicError>> Topic::claim_publisher_slot(
    std::shared_ptr<Topic>& topic) {
  return claim_reopening(topic, static_cast<Result<std::uint32_t, TopicError> (Topic::*)()>(
                                    &Topic::claim_publisher_slot));
}

Result<std::uint32_t, Error<TopicError>> Topic::claim_subscriber_slot(
    std::shared_ptr<Topic>& topic) {
  return claim_reopening(topic, static_cast<Result<std::uint32_t, TopicError> (Topic::*)()>(
                                    &Topic::claim_subscriber_slot));
}

// This process's last handle: remove the directory if nobody else is left (a process attaching
// meanwhile reopens; topic_layout.hpp).
Topic::~Topic() { close_if_unused(); }

CloseVerdict Topic::close_if_unused() {
  reclaim_dead();
  return close_topic_if_unused(segment_);
}

bool Topic::is_open() const noexcept { return lifecycle_of(segment_).is_open(); }

void Topic::activate_publisher(std::uint32_t p) {
  PublisherSlot* s = publisher_slot(p);
  s->state.store(slot_word(SlotState::Active, shm::self().pid), std::memory_order_release);
  header()->active_pubs[pub_mask_word(p)].fetch_or(pub_mask_bit(p), std::memory_order_acq_rel);
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

void Topic::activate_subscriber(std::uint32_t k) {
  SubscriberSlot* s = subscriber_slot(k);
  s->state.store(slot_word(SlotState::Active, shm::self().pid), std::memory_order_release);
  header()->active_subs[sub_mask_word(k)].fetch_or(sub_mask_bit(k), std::memory_order_acq_rel);
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

void Topic::release_publisher(std::uint32_t p) {
  header()->active_pubs[pub_mask_word(p)].fetch_and(~pub_mask_bit(p), std::memory_order_acq_rel);
  set_free(publisher_slot(p));
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

void Topic::release_subscriber(std::uint32_t k) {
  header()->active_subs[sub_mask_word(k)].fetch_and(~sub_mask_bit(k), std::memory_order_acq_rel);
  set_free(subscriber_slot(k));
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

std::uint32_t Topic::reclaim_dead_if_due(std::chrono::nanoseconds period) {
  return shm::take_periodic_turn(header()->reclaimed_at, period) ? reclaim_dead() : 0;
}

std::uint32_t Topic::reclaim_dead() {
  std::uint32_t reclaimed = 0;
  const std::uint64_t reclaiming = slot_word(SlotState::Reclaiming, shm::self().pid);
  for (std::uint32_t p = 0, limit = publisher_slot_limit(); p < limit; ++p) {
    PublisherSlot* s = publisher_slot(p);
    std::uint64_t w = s->state.load(std::memory_order_acquire);
    SlotState st = slot_state(w);
    if (st == SlotState::Free) continue;
    // A reclaimer that died mid-way leaves Reclaiming with its own pid: take over from it.
    if (owner_alive(w, st == SlotState::Reclaiming ? 0 : s->start_time.load())) continue;
    if (!s->state.compare_exchange_strong(w, reclaiming, std::memory_order_acq_rel)) continue;
    reclaim_publisher(p, w);
    ++reclaimed;
  }
  for (std::uint32_t k = 0, limit = subscriber_slot_limit(); k < limit; ++k) {
    SubscriberSlot* s = subscriber_slot(k);
    std::uint64_t w = s->state.load(std::memory_order_acquire);
    SlotState st = slot_state(w);
    if (st == SlotState::Free) continue;
    if (owner_alive(w, st == SlotState::Reclaiming ? 0 : s->start_time.load())) continue;
    if (!s->state.compare_exchange_strong(w, reclaiming, std::memory_order_acq_rel)) continue;
    reclaim_subscriber(k, w);
    ++reclaimed;
  }
  return reclaimed;
}

void Topic::reclaim_publisher(std::uint32_t p, std::uint64_t) {
  PublisherSlot* s = publisher_slot(p);
  header()->active_pubs[pub_mask_word(p)].fetch_and(~pub_mask_bit(p), std::memory_order_acq_rel);
  const std::uint32_t gen = s->generation.load(std::memory_order_acquire);
  const std::string pub_name = publisher_segment_name(p, gen);
  std::uint32_t data_segments = memory::MAX_DATA_SEGMENTS;
  if (auto seg = shm::Segment::open(pub_name, shm::SegmentKind::Publisher, 0)) {
    if (seg->contains(PublisherSegmentLayout::header_offset, sizeof(PublisherHeader))) {
      auto* h = seg->at<PublisherHeader>(PublisherSegmentLayout::header_offset);
      data_segments = std::min(h->data_segment_count.load(std::memory_order_acquire),
                               memory::MAX_DATA_SEGMENTS);
    }
  }
  shm::Segment::unlink(pub_name);
  // The count may lag a growth in progress when the owner died: unlink one past it too.
  const std::string pool = pool_name(p, gen);
  for (std::uint32_t i = 0; i <= data_segments && i < memory::MAX_DATA_SEGMENTS; ++i) {
    shm::Segment::unlink(memory::data_segment_name(pool, i));
  }
  // The copy table domain subscribers made for this publisher, as ~PublisherPort removes it: a
  // domain subscriber removes it only when it leaves after the slot changed, so a SIGKILLed
  // publisher's table otherwise stayed until its last domain subscriber left.
  memory::domain::DomainTable::unlink(domain_table_name(*this, p, gen));
  set_free(s);
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

void Topic::reclaim_subscriber(std::uint32_t k, std::uint64_t) {
  SubscriberSlot* s = subscriber_slot(k);
  header()->active_subs[sub_mask_word(k)].fetch_and(~sub_mask_bit(k), std::memory_order_acq_rel);
  for (auto& held : s->held) {
    const std::uint64_t e = held.load(std::memory_order_acquire);
    if ((e & HELD_VALID) == 0) continue;
    const std::uint32_t p = held_pub_slot(e);
    const std::uint32_t gen = held_pub_gen(e);
    if (!publisher_slot_readable(p)) {  // names a slot never claimed: a corrupt entry
      held.store(0, std::memory_order_release);
      continue;
    }
    PublisherSlot* ps = publisher_slot(p);
    const std::uint64_t pw = ps->state.load(std::memory_order_acquire);
    // Only a live publisher of the same generation can use the chunk again.
    if (slot_state(pw) != SlotState::Active ||
        (ps->generation.load(std::memory_order_acquire) & HELD_GEN_MASK) != gen) {
      held.store(0, std::memory_order_release);
      continue;
    }
    const std::uint32_t full_gen = ps->generation.load(std::memory_order_acquire);
    auto pub_seg =
        shm::Segment::open(publisher_segment_name(p, full_gen), shm::SegmentKind::Publisher, 0);
    if (!pub_seg ||
        !pub_seg->contains(PublisherSegmentLayout::header_offset, sizeof(PublisherHeader))) {
      held.store(0, std::memory_order_release);
      continue;
    }
    auto* ph = pub_seg->at<PublisherHeader>(PublisherSegmentLayout::header_offset);
    const std::uint32_t ring = ph->ring_capacity;
    const std::uint64_t queue_at = PublisherSegmentLayout::queue_offset(ring, k);
    memory::PoolView view(pool_name(p, full_gen));
    auto chunk = view.resolve(held_chunk(e));
    // Only a committed queue: the dead subscriber committed it before it could hold a chunk of
    // this publisher, so a clear bit means a corrupt entry, and a write to the hole could fault.
    // The bit is shared memory too: its pages are mapped with a commit first, which fails where
    // a hole on a full /dev/shm would raise SIGBUS (as PublisherPort::queue_cold does).
    if (ring <= MAX_RING_CAPACITY && chunk && pub_seg->contains(queue_at, sizeof(ReturnQueue)) &&
        return_queue_committed(ph, k) && commit_return_queue_pages(*pub_seg, ring, k)) {
      auto* q = pub_seg->at<ReturnQueue>(queue_at);
      // If the bit is already gone the subscriber died mid-release: hand the chunk back anyway;
      // the publisher lists it only if it really is free and not listed yet.
      if (!drop_subscriber_ref(chunk->control, ph, q, k, held_chunk(e)) &&
          memory::refs_clear(chunk->control)) {
        push_return(ph, q, k, held_chunk(e));
      }
    }
    held.store(0, std::memory_order_release);
  }
  // A subscriber that died asleep stays counted in the topic's waiters word (TopicHeader): the
  // word is shared, so its count cannot be taken back here. Harmless: a publisher makes the wake
  // call only for the ARMED bit, which only a sleeper arming sets (at most one call it left).
  set_free(s);
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);
}

std::uint32_t Topic::publisher_count() const {
  std::uint32_t n = 0;
  for (const auto& w : header()->active_pubs) {
    n += static_cast<std::uint32_t>(__builtin_popcountll(w.load(std::memory_order_acquire)));
  }
  return n;
}

std::uint32_t Topic::subscriber_count() const {
  std::uint32_t n = 0;
  for_each_active_subscriber([&](std::uint32_t) { ++n; });
  return n;
}

bool Topic::all_subscribers_in_this_process(std::size_t count) const {
  const std::uint32_t me = shm::self().pid;
  std::size_t n = 0;
  bool all_mine = true;
  for_each_active_subscriber([&](std::uint32_t k) {
    ++n;
    if (slot_pid(subscriber_slot(k)->state.load(std::memory_order_acquire)) != me) {
      all_mine = false;
    }
  });
  return all_mine && n == count;
}

CloseVerdict close_topic_if_unused(shm::Segment& seg) {
  return lifecycle_of(seg).close_if_unused(seg, [&] { return topic_has_live_claim(seg); });
}

bool remove_topic_if_unused(const std::string& name) {
  auto seg = shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 0);
  if (!seg) return false;
  if (!validate_topic_segment(*seg).empty()) return seg->unlink();
  // Through a Topic handle, which can reclaim dead endpoints' segments first.
  const auto* h = seg->at<TopicHeader>(TopicSegmentLayout::header_offset);
  TypeInfo type;
  type.name = type_name_of(h);
  std::memcpy(type.hash.data(), h->type_hash, 32);
  std::shared_ptr<Topic> topic(new Topic(name, type, TopicOptions{}, std::move(*seg)));
  return topic->close_if_unused() == CloseVerdict::Removed;
}

}  // namespace baton::topic
