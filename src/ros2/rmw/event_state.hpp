// What an rmw_baton_cpp publisher or subscription remembers for its QoS events (rmw_event.cpp):
// the match counts last reported and the lost count last reported. Guarded by `mutex`.
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
  uint64_t incompatible_reported = 0;  // QosPeers::seen().total as of the last take
};

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

// True if rmw_take_event on `event` (made by rmw_{publisher,subscription}_event_init) would
// report a change. rmw_wait asks this before and, for lack of a wake-up word for these changes,
// every EVENT_RECHECK while it waits.
bool event_ready(const rmw_event_t* event);
inline constexpr std::chrono::milliseconds EVENT_RECHECK{100};

// A value that changes whenever the state of the event of `type` on the endpoint impl
// `endpoint` changes (a match, a loss, ...), taken or not: what listener callbacks are told
// about (callback_listener.hpp). 0 for events that never change.
uint64_t event_signature(rmw_event_type_t type, void* endpoint);

}  // namespace baton::ros2::rmw
