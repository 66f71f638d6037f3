// QoS mapping: see qos_map.hpp.
#include "qos_map.hpp"

#include <rmw/qos_profiles.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace baton::ros2::rmw {

namespace {

// A policy as the integer C code stored (C enums are ints): read as bytes, since a C++ load of
// a value outside the enum's range is undefined.
template <typename Enum>
int64_t raw_value(const Enum& e) {
  std::underlying_type_t<Enum> v{};
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int64_t>(v);
}

}  // namespace

const char* unknown_qos_policy(const rmw_qos_profile_t& q) {
  // A value outside the enum is as wrong as UNKNOWN.
  const int64_t history = raw_value(q.history);
  const int64_t reliability = raw_value(q.reliability);
  const int64_t durability = raw_value(q.durability);
  const int64_t liveliness = raw_value(q.liveliness);
  if (history < 0 || history >= RMW_QOS_POLICY_HISTORY_UNKNOWN) return "history";
  if (reliability < 0 || reliability > RMW_QOS_POLICY_RELIABILITY_BEST_AVAILABLE ||
      reliability == RMW_QOS_POLICY_RELIABILITY_UNKNOWN)
    return "reliability";
  if (durability < 0 || durability > RMW_QOS_POLICY_DURABILITY_BEST_AVAILABLE ||
      durability == RMW_QOS_POLICY_DURABILITY_UNKNOWN)
    return "durability";
  if (liveliness < 0 || liveliness > RMW_QOS_POLICY_LIVELINESS_BEST_AVAILABLE ||
      liveliness == RMW_QOS_POLICY_LIVELINESS_UNKNOWN)
    return "liveliness";
  return nullptr;
}

MappedQos map_qos(const rmw_qos_profile_t& requested) {
  MappedQos m;
  rmw_qos_profile_t& a = m.actual;
  a = requested;
  if (a.history != RMW_QOS_POLICY_HISTORY_KEEP_ALL) a.history = RMW_QOS_POLICY_HISTORY_KEEP_LAST;
  // DDS's default history depth is 1 (what rmw_fastrtps_cpp / rmw_cyclonedds_cpp use for 0).
  if (a.history == RMW_QOS_POLICY_HISTORY_KEEP_LAST && a.depth == 0) a.depth = 1;
  if (a.reliability != RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT)
    a.reliability = RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  if (a.durability != RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL)
    a.durability = RMW_QOS_POLICY_DURABILITY_VOLATILE;
  if (a.liveliness != RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC)
    a.liveliness = RMW_QOS_POLICY_LIVELINESS_AUTOMATIC;

  const bool keep_all = a.history == RMW_QOS_POLICY_HISTORY_KEEP_ALL;
  const auto depth = static_cast<uint32_t>(keep_all ? std::max<size_t>(a.depth, KEEP_ALL_DEPTH)
                                                    : std::min<size_t>(a.depth, 65536));
  if (keep_all) a.depth = depth;
  const bool reliable = a.reliability == RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  m.port = baton::QoS(depth);
  m.graph = baton::QoS(depth);
  if (!(reliable && keep_all)) m.port.best_effort();
  if (!reliable) m.graph.best_effort();
  if (a.durability == RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL) {
    m.port.transient_local();
    m.graph.transient_local();
  }
  return m;
}

namespace {

// Unspecified (0) and "best available" durations: nothing is in effect, i.e. infinite.
rmw_time_t duration_in_effect(const rmw_time_t& t) {
  // Deadline and liveliness lease share this value; lifespan has none.
  const rmw_time_t best_available = RMW_QOS_DEADLINE_BEST_AVAILABLE;
  const bool unspecified = t.sec == 0 && t.nsec == 0;
  if (unspecified || (t.sec == best_available.sec && t.nsec == best_available.nsec))
    return RMW_DURATION_INFINITE;
  return t;
}

}  // namespace

rmw_qos_profile_t qos_in_effect(const rmw_qos_profile_t& actual) {
  rmw_qos_profile_t p = actual;
  p.deadline = duration_in_effect(p.deadline);
  p.lifespan = duration_in_effect(p.lifespan);
  p.liveliness_lease_duration = duration_in_effect(p.liveliness_lease_duration);
  return p;
}

rmw_qos_profile_t qos_from_graph(const graph::EndpointQos& q) {
  rmw_qos_profile_t p = qos_in_effect(rmw_qos_profile_default);
  p.history = RMW_QOS_POLICY_HISTORY_KEEP_LAST;
  p.depth = q.depth;
  p.reliability = q.reliability == topic::Reliability::Reliable
                      ? RMW_QOS_POLICY_RELIABILITY_RELIABLE
                      : RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT;
  p.durability = q.durability == topic::Durability::TransientLocal
                     ? RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
                     : RMW_QOS_POLICY_DURABILITY_VOLATILE;
  p.liveliness = RMW_QOS_POLICY_LIVELINESS_AUTOMATIC;
  return p;
}

}  // namespace baton::ros2::rmw
