// ROS 2 QoS (rmw_qos_profile_t) to baton QoS, and back for what the graph reports.
//
// DDS semantics kept: a KEEP_LAST writer never blocks (a slow reader misses overwritten samples,
// reliable or not), so KEEP_LAST maps to baton's non-blocking (best-effort) ring whatever the
// reliability; only RELIABLE + KEEP_ALL maps to baton's reliable mode (the publisher waits while
// a reliable subscriber's queue is full), with KEEP_ALL bounded at KEEP_ALL_DEPTH unread messages
// per publisher. TRANSIENT_LOCAL maps to baton's transient local (the last `depth` messages for a
// late joiner). A finite deadline and manual liveliness with a finite lease are kept by each
// endpoint's own clocks (period_tracker.hpp: deadline-missed and liveliness-lost events); lifespan
// is reported, not enforced.
//
// What is reported is the QoS in effect, as a DDS implementation reports it (rmw_fastrtps_cpp:
// `ros2 topic info -v` shows "Infinite"): durations left to the default (0) or "best available"
// are infinite, not "0 nanoseconds".
#pragma once

#include <rmw/types.h>

#include "baton/api/qos.hpp"
#include "baton/graph/graph_snapshot.hpp"

namespace baton::ros2::rmw {

inline constexpr uint32_t KEEP_ALL_DEPTH = 1000;

struct MappedQos {
  rmw_qos_profile_t actual{};  // the request with defaults resolved (the *_get_actual_qos answer)
  baton::QoS port;             // what the baton port runs with
  baton::QoS graph;            // what baton's graph registry lists (ROS reliability kept)
};

MappedQos map_qos(const rmw_qos_profile_t& requested);

// Null if every policy of `q` is set to a value rmw defines (SYSTEM_DEFAULT and BEST_AVAILABLE
// included); otherwise the name of the first policy that is UNKNOWN or out of range ("history",
// "reliability", "durability", "liveliness"): the rmw headers ask for a fully specified profile.
const char* unknown_qos_policy(const rmw_qos_profile_t& q);

// `actual` as the *_get_actual_qos functions report it: default durations infinite. (`actual`
// itself keeps 0 = unspecified: the DDS wire then leaves those policies to DDS's defaults.)
rmw_qos_profile_t qos_in_effect(const rmw_qos_profile_t& actual);

// The profile the graph lists for an endpoint (depth, reliability, durability; KEEP_LAST; the
// registry holds no durations, so they are reported infinite).
rmw_qos_profile_t qos_from_graph(const graph::EndpointQos& q);

}  // namespace baton::ros2::rmw
