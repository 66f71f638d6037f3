// The CycloneDDS configuration of baton's DDS wire (src/ros2/dds_wire.cpp creates its domains with
// it). Tuned for large ROS 2 messages (camera images, point clouds) to and from other RMWs on the
// same host and across a network; each setting is explained where it is made.
#pragma once

#include <cstdint>
#include <string>

namespace baton::ros2 {

// The receive buffer baton asks the kernel for on each DDS socket (the kernel caps it at
// net.core.rmem_max; `baton doctor` reports what caps it).
inline constexpr uint32_t kWireSocketReceiveBuffer = 64u << 20;

// The XML for dds_create_domain. `localhost_only`: unicast discovery on 127.0.0.1 only
// (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST). `trace_file`: Cyclone's finest trace there ("" off).
// `user_uri`: $CYCLONEDDS_URI, appended after baton's settings so that the user's win ("" none).
std::string cyclone_domain_config(bool localhost_only, const std::string& trace_file,
                                  const std::string& user_uri);

}  // namespace baton::ros2
