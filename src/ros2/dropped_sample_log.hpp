// Private to baton_ros2: the one log line of a ROS 2 subscription (Subscription,
// DomainSubscription) that drops a sample it cannot decode.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "baton/ros2/cdr_error.hpp"

namespace baton::ros2::detail {

// Logs drop number `dropped` of a malformed sample of `type_name` on `topic` to stderr,
// rate-limited (the first 10, then every power of two) so a hostile writer cannot flood the log.
inline void log_dropped_sample(const std::string& topic, const std::string& type_name,
                               bool from_wire, uint64_t bytes, const Error<CdrError>& error,
                               uint64_t dropped) {
  if (dropped > 10 && (dropped & (dropped - 1)) != 0) return;
  std::fprintf(stderr,
               "[baton_ros2] %s: dropped a malformed %s sample from %s (%llu bytes): %s: %s (%llu "
               "dropped so far)\n",
               topic.c_str(), type_name.c_str(), from_wire ? "DDS" : "shared memory",
               static_cast<unsigned long long>(bytes), std::string(to_string(error.code)).c_str(),
               error.detail.c_str(), static_cast<unsigned long long>(dropped));
}

}  // namespace baton::ros2::detail
