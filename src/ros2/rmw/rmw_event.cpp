// rmw_baton_cpp: QoS events — what baton really knows. Matched (publication and subscription:
// counts of the topic directory's slots, plus foreign DDS endpoints on the wire) and message lost
// (SubscriberPort::lost(): messages a best-effort or keep-last subscription was lapped on). The
// other event types are UNSUPPORTED with the reason: rclpy's default handlers catch that.
//
// An rmw_event_t's `data` is the endpoint's impl (as in rmw_cyclonedds_cpp: rcl's rmw_event_fini
// only zeroes the handle, so the event owns nothing); its state lives in the impl's `events`.
// One event of each type per endpoint, as rclpy makes them: two would share the "last reported"
// counts.
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>
#include <rmw/rmw.h>

#include <algorithm>

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
      return nullptr;
    case RMW_EVENT_LIVELINESS_CHANGED:
    case RMW_EVENT_LIVELINESS_LOST:
      return "liveliness is not monitored (a dead peer's slot is reclaimed instead, which the "
             "matched event reports)";
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_OFFERED_DEADLINE_MISSED:
      return "deadlines are not monitored";
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE:
      return "shared memory delivers every QoS combination, so no incompatible pair exists "
             "locally (incompatibilities of DDS peers on the wire are not reported)";
    case RMW_EVENT_SUBSCRIPTION_INCOMPATIBLE_TYPE:
    case RMW_EVENT_PUBLISHER_INCOMPATIBLE_TYPE:
      return "a type mismatch is refused when the newcomer attaches (its create fails with an "
             "error naming both types), so a live endpoint never has an incompatible peer";
    default:
      return "unknown event type";
  }
}

bool is_publisher_event(rmw_event_type_t type) {
  return type >= RMW_EVENT_LIVELINESS_LOST && type < RMW_EVENT_TYPE_MAX;
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

template <typename Slot>
MatchSnapshot snapshot_of(const Slot* slots, uint32_t count, size_t wire) {
  MatchSnapshot m;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t generation = slots[i].generation.load(std::memory_order_acquire);
    const auto state = baton::topic::slot_state(slots[i].state.load(std::memory_order_acquire));
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

MatchSnapshot snapshot(PublisherImpl& p) {  // matched = the topic's subscriptions
  const baton::topic::Topic& t = p.publisher.port().topic();
  return snapshot_of(t.subscriber_slot(0), baton::topic::MAX_SUBSCRIBERS,
                     wire_foreign_readers(p.wire.get()));  // wire
}

MatchSnapshot snapshot(SubscriptionImpl& s) {  // matched = the topic's publishers
  const baton::topic::Topic& t = s.subscription->port().topic();
  return snapshot_of(t.publisher_slot(0), baton::topic::MAX_PUBLISHERS,
                     wire_foreign_writers(s.wire.get()));  // wire
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
  if (now.claims > m.claims) {  // per-slot counters only grow; a reopened directory restarts
    m.total += now.claims - m.claims;
    m.claims = now.claims;
  }
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

rmw_ret_t event_init(rmw_event_t* event, void* impl, rmw_event_type_t type, const char* function) {
  if (const char* why = unsupported_reason(type)) {
    set_error(function, std::string("not supported by rmw_baton_cpp: event type ") +
                            std::to_string(static_cast<int>(type)) + ": " + why);
    return RMW_RET_UNSUPPORTED;
  }
  event->implementation_identifier = IDENTIFIER;
  event->data = impl;
  event->event_type = type;
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
    default:
      return false;
  }
}

}  // namespace baton::ros2::rmw

extern "C" {

rmw_ret_t rmw_publisher_event_init(rmw_event_t* rmw_event, const rmw_publisher_t* publisher,
                                   rmw_event_type_t event_type) {
  RMW_CHECK_ARGUMENT_FOR_NULL(rmw_event, RMW_RET_INVALID_ARGUMENT);
  if (const rmw_ret_t ret = check_handle(publisher, __func__, "publisher"); ret != RMW_RET_OK)
    return ret;
  if (!is_publisher_event(event_type)) {
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
  if (event_type == RMW_EVENT_INVALID || is_publisher_event(event_type)) {
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
