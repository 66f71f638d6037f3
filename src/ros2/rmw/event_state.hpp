// What an rmw_baton_cpp publisher or subscription remembers for its QoS events (rmw_event.cpp):
// the match counts last reported, the lost count last reported, and its deadline and liveliness
// clocks (period_tracker.hpp, qos_clocks.cpp). Guarded by `mutex`.
//
// Matches are counted from the topic directory: the current count is its active slots of the
// other kind (plus foreign DDS endpoints on the wire); the cumulative count grows by every
// completed slot claim since the event was initialised (a slot's generation is bumped once per
// claim), so an endpoint that came and went between two looks is still counted.
#pragma once

#include <rmw/event.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "baton/topic/topic.hpp"
#include "period_tracker.hpp"

namespace baton::ros2::rmw {

struct MatchedTracker {
  bool started = false;
  uint64_t claims = 0;  // completed claims of the other kind's slots, as last seen
  size_t wire = 0;      // foreign DDS endpoints, as last seen
  size_t total = 0;     // cumulative matches since the event was initialised
  size_t current = 0;
  size_t reported_total = 0;    // as of the last rmw_take_event
  size_t reported_current = 0;  // as of the last rmw_take_event
};

struct EndpointEvents {
  std::mutex mutex;
  MatchedTracker matched;
  uint64_t lost_reported = 0;          // SubscriberPort::lost() as of the last rmw_take_event
  size_t alive_reported = 0;           // liveliness changed: alive publishers as of the last take
  size_t not_alive_reported = 0;       // and not alive ones (lease ran out)
  uint64_t incompatible_reported = 0;  // QosPeers::seen().total as of the last take
  // Finite deadline (publishers and subscriptions) and manual liveliness lease (publishers). Set
  // once by start_qos_clocks before the endpoint is shared: `period_ns` / `lease_ns` may be read
  // without the mutex to skip the clocks of endpoints that have none.
  DeadlineTracker deadline;
  LeaseTracker lease;
  // A publisher's slot in the topic directory when its lease is shared with subscriptions in
  // other processes (topic_layout.hpp: lease_ns / asserted_ns); null otherwise.
  baton::topic::PublisherSlot* shared_lease = nullptr;
};

// --- QoS clocks (qos_clocks.cpp) ---

// Starts the endpoint's deadline and (for a publisher: `slot` is its slot in the topic directory,
// null for a subscription) liveliness clocks from `qos` (in effect), now. A publisher with manual
// liveliness and a finite lease publishes the lease and its assertions in `slot`.
void start_qos_clocks(EndpointEvents& e, const rmw_qos_profile_t& qos,
                      baton::topic::PublisherSlot* slot);
// A publisher published: its deadline is renewed and its liveliness asserted.
void published(EndpointEvents& e);
// rmw_publisher_assert_liveliness.
void liveliness_asserted(EndpointEvents& e);
// A subscription handed a sample to the user: its deadline is renewed at the sample's publish
// time (`source_realtime_ns`, the publisher's system clock; 0 when unknown: now).
void sample_arrived(EndpointEvents& e, int64_t source_realtime_ns);
// A subscription's matched shared-memory publishers whose lease ran out (manual liveliness, read
// from their slots in the directory of `topic`, those below its slot limit), leaving out the slots
// `skip(slot, generation)` names; and when the next alive one's lease runs out (monotonic ns, -1:
// none).
struct LeaseCensus {
  size_t not_alive = 0;
  int64_t next_expiry_ns = -1;
};
template <typename Skip>
LeaseCensus lease_census(const baton::topic::Topic& topic, int64_t now, Skip skip);

// Brings the clocks up to date (a subscription with samples waiting counts no new miss: one of
// them may have come in time, its take settles it). Caller holds e.mutex.
void advance_qos_clocks(EndpointEvents& e, bool samples_waiting);

// True for the event types of publishers (rmw/event.h lists them after the subscriptions').
inline bool is_publisher_event_type(rmw_event_type_t type) {
  return type >= RMW_EVENT_LIVELINESS_LOST && type < RMW_EVENT_TYPE_MAX;
}

// True for the event types whose changes only a look at the topic shows (matched, message lost,
// liveliness changed): rmw_wait rechecks them every EVENT_RECHECK. Incompatible-QoS events change
// with the graph only, and rmw_wait is woken for those (ShutdownWake::graph_changed); the others
// never change.
inline bool event_needs_recheck(rmw_event_type_t type) {
  return type == RMW_EVENT_PUBLICATION_MATCHED || type == RMW_EVENT_SUBSCRIPTION_MATCHED ||
         type == RMW_EVENT_MESSAGE_LOST || type == RMW_EVENT_LIVELINESS_CHANGED;
}

// When time alone makes `event` ready (a deadline or a lease due), in monotonic ns; -1 if it
// never does. rmw_wait sleeps no longer than that.
int64_t event_due_ns(const rmw_event_t* event);

// True if rmw_take_event on `event` (made by rmw_{publisher,subscription}_event_init) would
// report a change. rmw_wait asks this before and, for lack of a wake-up word for these changes,
// every EVENT_RECHECK while it waits.
bool event_ready(const rmw_event_t* event);
inline constexpr std::chrono::milliseconds EVENT_RECHECK{100};

// A value that changes whenever the state of the event of `type` on the endpoint impl
// `endpoint` changes (a match, a loss, ...), taken or not: what listener callbacks are told
// about (callback_listener.hpp). 0 for events that never change.
uint64_t event_signature(rmw_event_type_t type, void* endpoint);

template <typename Skip>
LeaseCensus lease_census(const baton::topic::Topic& topic, int64_t now, Skip skip) {
  LeaseCensus c;
  for (uint32_t i = 0, limit = topic.publisher_slot_limit(); i < limit; ++i) {
    const baton::topic::PublisherSlot& slot = *topic.publisher_slot(i);
    const uint32_t generation = slot.generation.load(std::memory_order_acquire);
    if (baton::topic::slot_state(slot.state.load(std::memory_order_acquire)) !=
            baton::topic::SlotState::Active ||
        slot.liveliness_generation.load(std::memory_order_acquire) != generation ||
        skip(i, generation))
      continue;
    // Numbers from another process: compared, never used as sizes. A lease past INT64_MAX or an
    // assertion in the future just reads as alive.
    const uint64_t lease = slot.lease_ns.load(std::memory_order_relaxed);
    const uint64_t asserted = slot.asserted_ns.load(std::memory_order_relaxed);
    if (lease == 0 || lease > static_cast<uint64_t>(INT64_MAX) ||
        asserted > static_cast<uint64_t>(now))
      continue;
    const uint64_t age = static_cast<uint64_t>(now) - asserted;
    if (age >= lease) {
      ++c.not_alive;
    } else {
      const uint64_t left = lease - age;  // > 0; the sum saturates: the lease is untrusted
      const int64_t expiry = left > static_cast<uint64_t>(INT64_MAX - now)
                                 ? INT64_MAX
                                 : now + static_cast<int64_t>(left);
      if (c.next_expiry_ns < 0 || expiry < c.next_expiry_ns) c.next_expiry_ns = expiry;
    }
  }
  return c;
}

}  // namespace baton::ros2::rmw
