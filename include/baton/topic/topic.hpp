// A process's handle on one topic's directory segment: type identity, publisher and subscriber
// slots, and reclaiming what dead participants held. Shared (std::shared_ptr) by every port of
// the process on that topic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "baton/common/result.hpp"
#include "baton/shm/segment.hpp"
#include "baton/shm/segment_lifecycle.hpp"
#include "baton/topic/intra_process.hpp"
#include "baton/topic/readable_slots.hpp"
#include "baton/topic/topic_layout.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::topic {

enum class TopicError : std::uint8_t {
  InvalidName,       // Topic names are non-empty and at most 200 characters.
  TypeMismatch,      // The topic exists with another type name or hash: fix the type or name.
  SegmentFailure,    // The directory segment could not be created or opened, or /dev/shm had
                     // no room for a slot's page; see the detail.
  Corrupt,           // The directory segment failed validation; `baton clean` removes it.
  NoFreeSlot,        // MAX_PUBLISHERS / MAX_SUBSCRIBERS endpoints are already attached.
  PermissionDenied,  // The segment belongs to another user.
  Closed,  // The directory was removed as this endpoint attached (its last endpoint elsewhere
           // went): reopen the topic by name (claim_*_slot(std::shared_ptr<Topic>&) does).
};

constexpr std::string_view to_string(TopicError e) noexcept {
  switch (e) {
    case TopicError::InvalidName:
      return "invalid topic name";
    case TopicError::TypeMismatch:
      return "message type mismatch";
    case TopicError::SegmentFailure:
      return "shared memory segment failure";
    case TopicError::Corrupt:
      return "corrupt topic segment";
    case TopicError::NoFreeSlot:
      return "too many endpoints on topic";
    case TopicError::PermissionDenied:
      return "permission denied";
    case TopicError::Closed:
      return "topic directory removed while attaching";
  }
  return "unknown";
}

struct TopicOptions {
  std::uint32_t segment_mode = 0600;
};

// What closing a topic directory did (Topic::close_if_unused, close_topic_if_unused): Removed,
// InUse (a live endpoint holds or is claiming a slot) or Busy (a live closer is at it).
using CloseVerdict = shm::CloseVerdict;

// Lifetime of the directory segment: it exists while any process has an endpoint on the topic.
// When a process drops its last handle (~Topic), the directory is removed if no live endpoint
// is left anywhere (close_topic_if_unused, protocol in topic_layout.hpp); a process attaching at
// that moment finds the directory closed and reopens the topic by name, so all processes always
// meet in one directory.
class Topic {
 public:
  static Result<std::shared_ptr<Topic>, Error<TopicError>> open_or_create(
      const std::string& name, const TypeInfo& type, const TopicOptions& options = {});
  // Reclaims what dead endpoints held, then removes the directory if no live endpoint is left.
  ~Topic();
  Topic(const Topic&) = delete;
  Topic& operator=(const Topic&) = delete;

  // False once the directory is being removed or gone: new endpoints need a fresh handle.
  bool is_open() const noexcept;
  // Reclaims what dead endpoints held, then removes the directory if no live endpoint is left
  // (what ~Topic does). Endpoints attaching meanwhile reopen the topic by name.
  CloseVerdict close_if_unused();

  const std::string& name() const noexcept { return name_; }
  const TypeInfo& type() const noexcept { return type_; }
  std::uint32_t segment_mode() const noexcept { return options_.segment_mode; }

  TopicHeader* header() const noexcept {
    return segment_.at<TopicHeader>(TopicSegmentLayout::header_offset);
  }
  PublisherSlot* publisher_slot(std::uint32_t p) const noexcept {
    return segment_.at<PublisherSlot>(TopicSegmentLayout::slot_offset<PublisherSlot>(p));
  }
  SubscriberSlot* subscriber_slot(std::uint32_t k) const noexcept {
    return segment_.at<SubscriberSlot>(TopicSegmentLayout::slot_offset<SubscriberSlot>(k));
  }

  // Slots at or past these were never claimed (TopicHeader::pub_slot_limit / sub_slot_limit):
  // whoever walks every slot stops there, and reads no uncommitted page (a limit corrupted past
  // the committed pages is cut where they end, readable_slots.hpp).
  std::uint32_t publisher_slot_limit() const noexcept {
    return readable_limit<PublisherSlot>(
        segment_, topic_slot_limit(header()->pub_slot_limit, MAX_PUBLISHERS), readable_pub_);
  }
  std::uint32_t subscriber_slot_limit() const noexcept {
    return readable_limit<SubscriberSlot>(
        segment_, topic_slot_limit(header()->sub_slot_limit, MAX_SUBSCRIBERS), readable_sub_);
  }
  // Whether slot p / k can be read: below the slot limit, cut as above. A slot named by a
  // shared mask or entry past it is corruption, to be skipped. Once a slot was found readable
  // this is one process-private load.
  bool publisher_slot_readable(std::uint32_t p) const noexcept {
    return p < readable_pub_.load(std::memory_order_relaxed) || p < publisher_slot_limit();
  }
  bool subscriber_slot_readable(std::uint32_t k) const noexcept {
    return k < readable_sub_.load(std::memory_order_relaxed) || k < subscriber_slot_limit();
  }
  // Calls f(k) for every subscriber slot k marked active (TopicHeader::active_subs) that can be
  // read (a bit set past the readable slots is skipped: its page may be a hole).
  template <typename F>
  void for_each_active_subscriber(F&& f,
                                  std::memory_order order = std::memory_order_acquire) const {
    topic::for_each_active_subscriber(
        header(),
        [&](std::uint32_t k) {
          if (subscriber_slot_readable(k)) f(k);
        },
        order);
  }

  // Names derived from (slot, generation): unique per claim, so a crashed claim's leftovers
  // never collide with a live one.
  std::string publisher_segment_name(std::uint32_t slot, std::uint32_t generation) const;
  std::string pool_name(std::uint32_t slot, std::uint32_t generation) const;

  // Claims a free slot for this process (state Claimed); returns its index. Closed: the
  // directory was removed meanwhile (nothing claimed) — use the overloads below.
  Result<std::uint32_t, TopicError> claim_publisher_slot();
  Result<std::uint32_t, TopicError> claim_subscriber_slot();
  // As above, but when the directory was closed under `topic`, reopens the topic by name (same
  // type and options), stores the new handle in `topic` and claims there; retries a bounded
  // number of times. Errors: NoFreeSlot, or what reopening reported.
  static Result<std::uint32_t, Error<TopicError>> claim_publisher_slot(
      std::shared_ptr<Topic>& topic);
  static Result<std::uint32_t, Error<TopicError>> claim_subscriber_slot(
      std::shared_ptr<Topic>& topic);
  // Publishes a claimed slot (Active) or gives it back (Free), bumping the epoch either way.
  void activate_publisher(std::uint32_t p);
  void activate_subscriber(std::uint32_t k);
  void release_publisher(std::uint32_t p);
  void release_subscriber(std::uint32_t k);

  // Finds slots whose owners died and reclaims what they held: a dead publisher's segments are
  // unlinked; a dead subscriber's loans are dropped and handed back to their publishers. Safe to
  // call from any process at any time; returns the number of slots reclaimed.
  std::uint32_t reclaim_dead();
  // The periodic pass of a janitor that runs every `period`: reclaim_dead(), unless any
  // process's janitor ran it on this topic within the last half period (then 0). Why: every
  // process on a topic runs a janitor, and each pass checks every slot's owner, so N processes
  // on one topic made N x N liveness checks per period (256 subscriber processes: ~66 000 per
  // half second, about a fifth of the CPU the subscribers spent taking a 200 Hz stream). The
  // janitors now take turns; a dead owner is still found within about one period.
  std::uint32_t reclaim_dead_if_due(std::chrono::nanoseconds period);

  // Number of active publishers / subscribers (a snapshot; may be stale immediately).
  std::uint32_t publisher_count() const;
  std::uint32_t subscriber_count() const;

  // The unique-ownership hand-over queues of this handle's typed subscriptions
  // (intra_process.hpp).
  IntraQueues& intra() const noexcept { return intra_; }
  // True if the topic has exactly `count` active subscribers and all of them are in this
  // process: then `count` intra-process queues are every subscriber there is.
  bool all_subscribers_in_this_process(std::size_t count) const;

 private:
  friend bool remove_topic_if_unused(const std::string& name);  // wraps a found directory
  Topic(std::string name, TypeInfo type, TopicOptions options, shm::Segment segment)
      : name_(std::move(name)),
        type_(std::move(type)),
        options_(options),
        segment_(std::move(segment)) {}
  void reclaim_publisher(std::uint32_t p, std::uint64_t claimed_word);
  template <typename Claim>
  static Result<std::uint32_t, Error<TopicError>> claim_reopening(std::shared_ptr<Topic>& topic,
                                                                  Claim claim);
  void reclaim_subscriber(std::uint32_t k, std::uint64_t claimed_word);

  std::string name_;
  TypeInfo type_;
  TopicOptions options_;
  shm::Segment segment_;
  mutable IntraQueues intra_;  // process-local, not in shared memory
  // How many slots of each kind this process has found readable (readable_limit); private.
  mutable std::atomic<std::uint32_t> readable_pub_{0};
  mutable std::atomic<std::uint32_t> readable_sub_{0};
};

// Validates a mapped topic directory; empty when sound, otherwise what is wrong.
std::string validate_topic_segment(const shm::Segment& seg);

// The closing side of the protocol in topic_layout.hpp, on a mapped, validated directory.
// Claims held by dead processes do not keep it (their segments are the reclaimers' business).
CloseVerdict close_topic_if_unused(shm::Segment& seg);

// True if a live process holds (or is claiming) a slot of the mapped, validated directory: what
// keeps it from being removed. A snapshot (seq_cst loads, as the closer's scan).
bool topic_has_live_claim(const shm::Segment& seg);

// Removes the topic's directory segment if no live endpoint uses it, after reclaiming what dead
// ones held. Returns true if removed. Race-free against processes attaching meanwhile.
bool remove_topic_if_unused(const std::string& name);

}  // namespace baton::topic
