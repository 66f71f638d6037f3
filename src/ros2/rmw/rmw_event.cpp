// rmw_baton_cpp: QoS events — what baton really knows. Matched (publication and subscription:
// counts of the topic directory's slots, plus foreign DDS endpoints on the wire, less the peers
// whose QoS is incompatible), message lost (SubscriberPort::lost(): messages a best-effort or
// keep-last subscription was lapped on), incompatible QoS (requested and offered: the distinct
// shared-memory peers qos_peers.hpp found incompatible, with the last policy), liveliness
// changed (a subscription's matched publishers, alive or not: automatic liveliness holds while a
// publisher's process lives, and a dead process's slot is reclaimed; a publisher with manual
// liveliness and a finite lease shares its lease and last assertion in its topic slot, and is not
// alive once the lease ran out), deadline missed
// (offered and requested: the endpoint's own deadline clock, period_tracker.hpp) and liveliness
// lost (a publisher's own lease clock under manual liveliness with a finite lease). Events that
// cannot happen to an endpoint are supported and never fire (a deadline missed with an infinite
// deadline). Incompatible-type events are UNSUPPORTED with the reason: rclpy's and rclcpp's
// default handlers catch that.
//
// An rmw_event_t's `data` is the endpoint's impl (as in rmw_cyclonedds_cpp: rcl's rmw_event_fini
// only zeroes the handle, so the event owns nothing); its state lives in the impl's `events`.
// One event of each type per endpoint, as rclpy makes them: two would share the "last reported"
// counts.
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>
#include <rmw/rmw.h>

#include <algorithm>

#include "baton/shm/clock.hpp"
#include "event_state.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

// Why an event type is not reported; null for the supported ones.
const char* unsupported_reason(rmw_event_type_t type) {
  switch (type) {
    case RMW_EVENT_PUBLICATION_MATCHED:
    case RMW_EVENT_SUBSCRIPTION_MATCHED:
    case RMW_EVENT_MESSAGE_LOST:
    case RMW_EVENT_LIVELINESS_CHANGED:
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE:
    case RMW_EVENT_LIVELINESS_LOST:
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_OFFERED_DEADLINE_MISSED:
      return nullptr;
    case RMW_EVENT_SUBSCRIPTION_INCOMPATIBLE_TYPE:
    case RMW_EVENT_PUBLISHER_INCOMPATIBLE_TYPE:
      return "a type mismatch is refused when the newcomer attaches (its create fails with an "
             "error naming both types), so a live endpoint never has an incompatible peer";
    default:
      return "unknown event type";
  }
}

// The matched counts of an endpoint right now, from one pass over the topic's slots. A slot is
// matched once it is Active: a Claimed slot (an endpoint still being created) adds neither to
// `current` nor to `claims` (its generation was bumped at claim: count the one before), so an
// event never reports a match whose endpoint is not counted yet (total 1, current 0). Per slot the
// generation is read before the state: the claim's bump is a release after the state CAS, so a
// bumped generation comes with a state of Claimed or later.
struct MatchSnapshot {
  uint64_t claims = 0;
  size_t current = 0;
  size_t wire = 0;
};

// `slot(i)` is slot i of the kind counted, for i below `count` (the kind's slot limit).
template <typename SlotAt>
MatchSnapshot snapshot_of(SlotAt slot, uint32_t count, size_t wire) {
  MatchSnapshot m;
  for (uint32_t i = 0; i < count; ++i) {
    const auto* s = slot(i);
    uint64_t generation = s->generation.load(std::memory_order_acquire);
    const auto state = baton::topic::slot_state(s->state.load(std::memory_order_acquire));
    if (state == baton::topic::SlotState::Active) {
      ++m.current;
    } else if (state == baton::topic::SlotState::Claimed && generation > 0) {
      --generation;  // not matched before it is active
    }
    m.claims += generation;
  }
  m.current += wire;
  m.wire = wire;
  return m;
}

// Peers with an incompatible QoS are not matched: left out of the current count, and their
// claims out of the cumulative one.
MatchSnapshot without_incompatible(MatchSnapshot m, QosPeers& peers) {
  m.current = without(m.current - m.wire, peers.incompatible_now()) + m.wire;
  m.claims -= std::min<uint64_t>(m.claims, peers.seen().total);
  return m;
}

MatchSnapshot snapshot(PublisherImpl& p) {  // matched = the topic's subscriptions
  const baton::topic::Topic& t = p.publisher.port().topic();
  return without_incompatible(
      snapshot_of([&t](uint32_t k) { return t.subscriber_slot(k); }, t.subscriber_slot_limit(),
                  baton::wire::foreign_readers(p.wire.get())),  // wire
      *p.qos_peers);
}

MatchSnapshot snapshot(SubscriptionImpl& s) {  // matched = the topic's publishers
  const baton::topic::Topic& t = s.subscription->port().topic();
  return without_incompatible(
      snapshot_of([&t](uint32_t p) { return t.publisher_slot(p); }, t.publisher_slot_limit(),
                  s.bridge->foreign_writers()),  // wire
      *s.qos_peers);
}

// Folds a snapshot into the tracker: every claim since the last look is one more match (even if
// that endpoint is gone again), as is every new foreign DDS endpoint. The caller holds the mutex.
void update(MatchedTracker& m, const MatchSnapshot& now) {
  if (!m.started) {
    m.started = true;
    m.claims = now.claims;
    m.wire = now.wire;
    m.total = now.current;
    m.current = now.current;
    return;
  }
  // Per-slot counters only grow, but a reopened directory restarts them and a peer found
  // incompatible after its claim was counted takes one back: only growth is a new match.
  if (now.claims > m.claims) m.total += now.claims - m.claims;
  m.claims = now.claims;
  if (now.wire > m.wire) m.total += now.wire - m.wire;
  m.wire = now.wire;
  m.current = now.current;
  // A slot claimed before the event started and activated after it was in neither count.
  m.total = std::max(m.total, m.current);
}

template <typename Impl>
bool matched_ready(Impl& impl) {
  std::lock_guard<std::mutex> lock(impl.events.mutex);
  update(impl.events.matched, snapshot(impl));
  const MatchedTracker& m = impl.events.matched;
  return m.total != m.reported_total || m.current != m.reported_current;
}

// The tracker brought up to date (a copy, for event_signature).
template <typename Impl>
MatchedTracker matched_now(Impl& impl) {
  std::lock_guard<std::mutex> lock(impl.events.mutex);
  update(impl.events.matched, snapshot(impl));
  return impl.events.matched;
}

template <typename Impl>
void take_matched(Impl& impl, rmw_matched_status_t* out) {
  std::lock_guard<std::mutex> lock(impl.events.mutex);
  MatchedTracker& m = impl.events.matched;
  update(m, snapshot(impl));
  out->total_count = m.total;
  out->total_count_change = m.total - m.reported_total;
  out->current_count = m.current;
  out->current_count_change = static_cast<int32_t>(static_cast<int64_t>(m.current) -
                                                   static_cast<int64_t>(m.reported_current));
  m.reported_total = m.total;
  m.reported_current = m.current;
}

uint64_t lost_of(SubscriptionImpl& s) {
  std::lock_guard<std::mutex> lock(s.mutex);  // lost() is the take path's counter
  return s.subscription->port().lost();
}

// A subscription's matched publishers as alive and not alive: a publisher with manual liveliness
// and a finite lease is not alive once its lease (read from its slot in the topic directory) ran
// out, every other matched one is alive (see the top of this file).
struct Liveliness {
  size_t alive = 0;
  size_t not_alive = 0;
  int64_t next_expiry_ns = -1;  // when an alive one's lease runs out (monotonic ns; -1: never)
  uint64_t signature() const { return (static_cast<uint64_t>(alive) << 32) ^ not_alive; }
};
Liveliness liveliness_of(SubscriptionImpl& s) {
  const LeaseCensus census =
      lease_census(s.subscription->port().topic(), baton::shm::monotonic_ns(),
                   [&s](uint32_t slot, uint32_t generation) {
                     return s.qos_peers->incompatible(slot, generation);  // not matched
                   });
  std::lock_guard<std::mutex> lock(s.events.mutex);
  update(s.events.matched, snapshot(s));
  const size_t matched = s.events.matched.current;
  const size_t not_alive = std::min(matched, census.not_alive);
  return {matched - not_alive, not_alive, census.next_expiry_ns};
}

// Samples wait in a subscription's queue (shared memory or DDS) that nobody took yet.
bool samples_waiting(SubscriptionImpl& s) {
  return s.has_stash.load(std::memory_order_relaxed) || s.bridge->has_data();  // wire too
}

// The endpoint's deadline and lease clocks brought up to date; a copy of them.
struct Clocks {
  DeadlineTracker deadline;
  LeaseTracker lease;
  bool waiting = false;  // a subscription's samples wait: no miss is counted until a take
};
Clocks clocks_now(const rmw_event_t& event) {
  const bool publisher = is_publisher_event_type(event.event_type);
  const bool waiting = !publisher && samples_waiting(*static_cast<SubscriptionImpl*>(event.data));
  EndpointEvents& e = publisher ? static_cast<PublisherImpl*>(event.data)->events
                                : static_cast<SubscriptionImpl*>(event.data)->events;
  std::lock_guard<std::mutex> lock(e.mutex);
  advance_qos_clocks(e, waiting);
  return {e.deadline, e.lease, waiting};
}

// A deadline-missed status from the clock, marked reported (both status structs are alike).
template <typename Status>
void take_deadline(EndpointEvents& e, bool waiting, Status* out) {
  std::lock_guard<std::mutex> lock(e.mutex);
  advance_qos_clocks(e, waiting);
  const uint64_t total = e.deadline.total();
  out->total_count = static_cast<int32_t>(total);
  out->total_count_change = static_cast<int32_t>(total - e.deadline.reported);
  e.deadline.reported = total;
}

template <typename Impl>
QosPeers& peers_of(const rmw_event_t& event) {
  return *static_cast<Impl*>(event.data)->qos_peers;
}

EndpointEvents& events_of(const rmw_event_t& event) {
  return is_publisher_event_type(event.event_type)
             ? static_cast<PublisherImpl*>(event.data)->events
             : static_cast<SubscriptionImpl*>(event.data)->events;
}

QosPeers& qos_peers_of(const rmw_event_t& event) {
  return is_publisher_event_type(event.event_type) ? peers_of<PublisherImpl>(event)
                                                   : peers_of<SubscriptionImpl>(event);
}

rmw_ret_t event_init(rmw_event_t* event, void* impl, rmw_event_type_t type, const char* function) {
  event->implementation_identifier = IDENTIFIER;
  event->data = impl;
  event->event_type = type;
  if (const char* why = unsupported_reason(type)) {
    *event = rmw_get_zero_initialized_event();
    set_error(function, std::string("not supported by rmw_baton_cpp: event type ") +
                            std::to_string(static_cast<int>(type)) + ": " + why);
    return RMW_RET_UNSUPPORTED;
  }
  (void)event_ready(event);  // starts the matched tracker: changes count from now
  return RMW_RET_OK;
}

}  // namespace

namespace baton::ros2::rmw {

bool event_ready(const rmw_event_t* event) {
  if (event == nullptr || event->implementation_identifier != IDENTIFIER) return false;
  switch (event->event_type) {
    case RMW_EVENT_PUBLICATION_MATCHED:
      return matched_ready(*static_cast<PublisherImpl*>(event->data));
    case RMW_EVENT_SUBSCRIPTION_MATCHED:
      return matched_ready(*static_cast<SubscriptionImpl*>(event->data));
    case RMW_EVENT_MESSAGE_LOST: {
      auto& s = *static_cast<SubscriptionImpl*>(event->data);
      const uint64_t lost = lost_of(s);
      std::lock_guard<std::mutex> lock(s.events.mutex);
      return lost != s.events.lost_reported;
    }
    case RMW_EVENT_LIVELINESS_CHANGED: {
      auto& s = *static_cast<SubscriptionImpl*>(event->data);
      const Liveliness l = liveliness_of(s);
      std::lock_guard<std::mutex> lock(s.events.mutex);
      return l.alive != s.events.alive_reported || l.not_alive != s.events.not_alive_reported;
    }
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE: {
      const uint64_t total = qos_peers_of(*event).seen().total;
      EndpointEvents& e = events_of(*event);
      std::lock_guard<std::mutex> lock(e.mutex);
      return total != e.incompatible_reported;
    }
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_OFFERED_DEADLINE_MISSED: {
      const Clocks c = clocks_now(*event);
      return c.deadline.total() != c.deadline.reported;
    }
    case RMW_EVENT_LIVELINESS_LOST: {
      const Clocks c = clocks_now(*event);
      return c.lease.lost != c.lease.reported;
    }
    default:
      return false;
  }
}

int64_t event_due_ns(const rmw_event_t* event) {
  if (event == nullptr || event->implementation_identifier != IDENTIFIER) return -1;
  switch (event->event_type) {
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_OFFERED_DEADLINE_MISSED: {
      const Clocks c = clocks_now(*event);
      return c.waiting ? -1 : c.deadline.next_ns();  // waiting: only a take moves it
    }
    case RMW_EVENT_LIVELINESS_LOST:
      return clocks_now(*event).lease.next_ns();
    case RMW_EVENT_LIVELINESS_CHANGED:  // a matched publisher's lease running out
      return liveliness_of(*static_cast<SubscriptionImpl*>(event->data)).next_expiry_ns;
    default:
      return -1;
  }
}

uint64_t event_signature(rmw_event_type_t type, void* endpoint) {
  switch (type) {
    case RMW_EVENT_PUBLICATION_MATCHED:
    case RMW_EVENT_SUBSCRIPTION_MATCHED: {
      const MatchedTracker m = type == RMW_EVENT_PUBLICATION_MATCHED
                                   ? matched_now(*static_cast<PublisherImpl*>(endpoint))
                                   : matched_now(*static_cast<SubscriptionImpl*>(endpoint));
      return (static_cast<uint64_t>(m.total) << 32) ^ m.current;
    }
    case RMW_EVENT_MESSAGE_LOST:
      return lost_of(*static_cast<SubscriptionImpl*>(endpoint));
    case RMW_EVENT_LIVELINESS_CHANGED:
      return liveliness_of(*static_cast<SubscriptionImpl*>(endpoint)).signature();
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
      return static_cast<SubscriptionImpl*>(endpoint)->qos_peers->seen().total;
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE:
      return static_cast<PublisherImpl*>(endpoint)->qos_peers->seen().total;
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_OFFERED_DEADLINE_MISSED:
    case RMW_EVENT_LIVELINESS_LOST: {
      rmw_event_t event{};
      event.implementation_identifier = IDENTIFIER;
      event.data = endpoint;
      event.event_type = type;
      const Clocks c = clocks_now(event);
      return type == RMW_EVENT_LIVELINESS_LOST ? c.lease.lost : c.deadline.total();
    }
    default:
      return 0;
  }
}

}  // namespace baton::ros2::rmw

extern "C" {

rmw_ret_t rmw_publisher_event_init(rmw_event_t* rmw_event, const rmw_publisher_t* publisher,
                                   rmw_event_type_t event_type) {
  RMW_CHECK_ARGUMENT_FOR_NULL(rmw_event, RMW_RET_INVALID_ARGUMENT);
  if (const rmw_ret_t ret = check_handle(publisher, __func__, "publisher"); ret != RMW_RET_OK)
    return ret;
  if (!is_publisher_event_type(event_type)) {
    set_error(__func__, "event type " + std::to_string(static_cast<int>(event_type)) +
                            " is not a publisher event");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return event_init(rmw_event, publisher->data, event_type, __func__);
}

rmw_ret_t rmw_subscription_event_init(rmw_event_t* rmw_event,
                                      const rmw_subscription_t* subscription,
                                      rmw_event_type_t event_type) {
  RMW_CHECK_ARGUMENT_FOR_NULL(rmw_event, RMW_RET_INVALID_ARGUMENT);
  if (const rmw_ret_t ret = check_handle(subscription, __func__, "subscription"); ret != RMW_RET_OK)
    return ret;
  if (event_type == RMW_EVENT_INVALID || is_publisher_event_type(event_type)) {
    set_error(__func__, "event type " + std::to_string(static_cast<int>(event_type)) +
                            " is not a subscription event");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return event_init(rmw_event, subscription->data, event_type, __func__);
}

rmw_ret_t rmw_take_event(const rmw_event_t* event_handle, void* event_info, bool* taken) {
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  *taken = false;
  if (const rmw_ret_t ret = check_handle(event_handle, __func__, "event"); ret != RMW_RET_OK)
    return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(event_info, RMW_RET_INVALID_ARGUMENT);
  switch (event_handle->event_type) {
    case RMW_EVENT_PUBLICATION_MATCHED:
      take_matched(*static_cast<PublisherImpl*>(event_handle->data),
                   static_cast<rmw_matched_status_t*>(event_info));
      break;
    case RMW_EVENT_SUBSCRIPTION_MATCHED:
      take_matched(*static_cast<SubscriptionImpl*>(event_handle->data),
                   static_cast<rmw_matched_status_t*>(event_info));
      break;
    case RMW_EVENT_MESSAGE_LOST: {
      auto& s = *static_cast<SubscriptionImpl*>(event_handle->data);
      const uint64_t lost = lost_of(s);
      std::lock_guard<std::mutex> lock(s.events.mutex);
      auto* out = static_cast<rmw_message_lost_status_t*>(event_info);
      out->total_count = lost;
      out->total_count_change = lost - s.events.lost_reported;
      s.events.lost_reported = lost;
      break;
    }
    case RMW_EVENT_LIVELINESS_CHANGED: {
      auto& s = *static_cast<SubscriptionImpl*>(event_handle->data);
      const Liveliness l = liveliness_of(s);
      std::lock_guard<std::mutex> lock(s.events.mutex);
      auto* out = static_cast<rmw_liveliness_changed_status_t*>(event_info);
      auto change = [](size_t now, size_t before) {
        return static_cast<int32_t>(static_cast<int64_t>(now) - static_cast<int64_t>(before));
      };
      out->alive_count = static_cast<int32_t>(l.alive);
      out->not_alive_count = static_cast<int32_t>(l.not_alive);
      out->alive_count_change = change(l.alive, s.events.alive_reported);
      out->not_alive_count_change = change(l.not_alive, s.events.not_alive_reported);
      s.events.alive_reported = l.alive;
      s.events.not_alive_reported = l.not_alive;
      break;
    }
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE: {
      const QosPeers::Seen seen = qos_peers_of(*event_handle).seen();
      EndpointEvents& e = events_of(*event_handle);
      std::lock_guard<std::mutex> lock(e.mutex);
      auto* out = static_cast<rmw_qos_incompatible_event_status_t*>(event_info);
      out->total_count = static_cast<int32_t>(seen.total);
      out->total_count_change = static_cast<int32_t>(seen.total - e.incompatible_reported);
      out->last_policy_kind = seen.last_policy;
      e.incompatible_reported = seen.total;
      break;
    }
    case RMW_EVENT_LIVELINESS_LOST: {
      EndpointEvents& e = static_cast<PublisherImpl*>(event_handle->data)->events;
      std::lock_guard<std::mutex> lock(e.mutex);
      advance_qos_clocks(e, false);
      auto* out = static_cast<rmw_liveliness_lost_status_t*>(event_info);
      out->total_count = static_cast<int32_t>(e.lease.lost);
      out->total_count_change = static_cast<int32_t>(e.lease.lost - e.lease.reported);
      e.lease.reported = e.lease.lost;
      break;
    }
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED: {
      auto& s = *static_cast<SubscriptionImpl*>(event_handle->data);
      take_deadline(s.events, samples_waiting(s),
                    static_cast<rmw_requested_deadline_missed_status_t*>(event_info));
      break;
    }
    case RMW_EVENT_OFFERED_DEADLINE_MISSED:
      take_deadline(static_cast<PublisherImpl*>(event_handle->data)->events, false,
                    static_cast<rmw_offered_deadline_missed_status_t*>(event_info));
      break;
    default:
      set_error(__func__, "event type " +
                              std::to_string(static_cast<int>(event_handle->event_type)) +
                              " was never initialised by rmw_baton_cpp");
      return RMW_RET_INVALID_ARGUMENT;
  }
  *taken = true;
  return RMW_RET_OK;
}

bool rmw_event_type_is_supported(rmw_event_type_t rmw_event_type) {
  return unsupported_reason(rmw_event_type) == nullptr;
}

}  // extern "C"
