// The public vocabulary of baton's ROS 2 wire: the errors of its endpoints, the ROS 2 QoS as the
// wire applies it, and an endpoint's GUID (what rmw gids and ros_discovery_info carry). The wire
// itself (CycloneDDS endpoints) is private to the library: src/ros2/dds_wire.hpp.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace baton::ros2 {

enum class WireError : uint8_t {
  // CycloneDDS refused to create the domain / participant (detail: dds_strretcode).
  Participant,
  // Topic, writer or reader creation failed (detail names the DDS topic and type).
  Endpoint,
  // A write failed or the sample does not start with a CDR encapsulation header.
  Write,
  // Not built with CycloneDDS.
  Unsupported,
};

constexpr std::string_view to_string(WireError e) noexcept {
  switch (e) {
    case WireError::Participant:
      return "Participant";
    case WireError::Endpoint:
      return "Endpoint";
    case WireError::Write:
      return "Write";
    case WireError::Unsupported:
      return "Unsupported";
  }
  return "?";
}

// ROS 2 QoS mapped onto DDS as rmw_cyclonedds_cpp's create_readwrite_qos does (table in
// docs/design/ros2.md, "The DDS wire").
struct WireQos {
  bool reliable = true;
  bool transient_local = false;
  uint32_t depth = 10;
  // KEEP_ALL history (depth then only sizes baton's own queue), instead of KEEP_LAST(depth).
  bool keep_all = false;
  // Zero = unspecified (the DDS default: infinite), as RMW_DURATION_UNSPECIFIED;
  // nanoseconds::max() = infinite. Lifespan applies to writers.
  std::chrono::nanoseconds deadline{0};
  std::chrono::nanoseconds lifespan{0};
  std::chrono::nanoseconds liveliness_lease{0};
  bool liveliness_manual_by_topic = false;  // else AUTOMATIC
  // USER_DATA, e.g. endpoint_user_data() of src/ros2/shm_peer_tag.hpp. When it carries a baton tag
  // the endpoint leaves same-tag peers to shared memory: see matched_foreign_readers() and
  // DdsRawReader::take().
  std::string user_data;
  // DDS ignore-local = participant (rmw_cyclonedds's ignore_local_publications): endpoints of
  // the same participant never match.
  bool ignore_local_participant = false;
  bool operator==(const WireQos&) const = default;
};

// A DDS GUID (prefix + entity id, network order): what ROS 2 RMWs use as rmw_gid_t and in
// ros_discovery_info.
using Guid = std::array<uint8_t, 16>;

// The DDS participant of a Participant (Participant::dds()): opaque outside the library,
// it is only passed back to it (Publisher::create(Node&, ..., DdsParticipant*, ...)).
class DdsParticipant;

}  // namespace baton::ros2
