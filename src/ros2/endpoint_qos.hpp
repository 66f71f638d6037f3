// Private to baton_ros2 (and rmw_baton_cpp's rmw_wire.cpp): the QoS both native ROS 2 endpoints
// (Publisher, Subscription) derive from one WireQos, so the DDS side and the
// shared-memory side of an endpoint agree.
#pragma once

#include "baton/api/qos.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/shm/domain_tag.hpp"
#include "dds_wire.hpp"
#include "shm_peer_tag.hpp"

namespace baton::ros2::detail {

// The DDS QoS of a baton endpoint of `type`: USER_DATA "baton=<local tag>;typehash=…;" (unless
// the caller set one) and ignore-local = participant (same-process peers meet in shared memory).
// `type_hash` as "RIHS01_<hex>" ("" leaves the key out); rmw_baton_cpp uses this form.
inline WireQos endpoint_wire_qos(std::string_view type_hash, WireQos q) {
  if (q.user_data.empty()) q.user_data = endpoint_user_data(type_hash, shm::domain_tag());
  q.ignore_local_participant = true;
  return q;
}
inline WireQos endpoint_wire_qos(const MessageDescription& type, WireQos q) {
  return endpoint_wire_qos(type_hash(type), std::move(q));
}

// The baton port's QoS: depth, reliability, durability (deadline, lifespan and liveliness are
// DDS-only).
inline QoS shm_qos(const WireQos& q) {
  QoS out(q.depth == 0 ? 1 : q.depth);
  if (!q.reliable) out.best_effort();
  if (q.transient_local) out.transient_local();
  return out;
}

}  // namespace baton::ros2::detail
