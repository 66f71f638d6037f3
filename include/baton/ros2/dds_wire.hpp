// Prototype of the standard wire: raw CDR samples on DDS (CycloneDDS) under ROS 2 naming, so
// rclpy / rclcpp on any RMW (rmw_fastrtps_cpp, rmw_cyclonedds_cpp) see baton's messages.
//
//   ROS topic "/chatter"  ->  DDS topic "rt/chatter", type "std_msgs::msg::dds_::String_"
//
// The samples are the CDR bytes of cdr.hpp (encapsulation header included); Cyclone never sees
// a C struct (a custom ddsi_sertype / ddsi_serdata carries bytes, as rmw_cyclonedds_cpp does).
// Only built when CycloneDDS is found (BATON_HAVE_CYCLONEDDS); see include/baton/ros2/README.md
// for what is missing before this becomes rmw_baton_cpp's wire (graph topic, services, QoS set).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"

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

// ROS 2 QoS subset mapped onto DDS as rmw_cyclonedds_cpp does (reliability, durability,
// history depth).
struct WireQos {
  bool reliable = true;
  bool transient_local = false;
  uint32_t depth = 10;
};

// "/chatter" -> "rt/chatter"; "/add/two" with prefix "rq" -> "rq/add/two" (ROS 2 topic mangling).
std::string dds_topic_name(std::string_view ros_name, std::string_view prefix = "rt");

class DdsParticipant;

class DdsRawWriter {
 public:
  ~DdsRawWriter();
  DdsRawWriter(DdsRawWriter&&) noexcept;
  DdsRawWriter& operator=(DdsRawWriter&&) noexcept;
  // `cdr` must begin with the 4-byte encapsulation header. Copies the bytes once into the
  // sample Cyclone keeps for retransmission.
  Status<Error<WireError>> write(std::span<const uint8_t> cdr);
  // Number of matched DDS readers (publication_matched.current_count).
  uint32_t matched_readers() const;

 private:
  friend class DdsParticipant;
  DdsRawWriter() = default;
  int32_t topic_ = 0, writer_ = 0;
  const void* sertype_ = nullptr;  // the topic's ddsi_sertype, borrowed from the topic
};

class DdsRawReader {
 public:
  ~DdsRawReader();
  DdsRawReader(DdsRawReader&&) noexcept;
  DdsRawReader& operator=(DdsRawReader&&) noexcept;
  // Waits up to `timeout` for one sample; its CDR bytes, header included.
  std::optional<std::vector<uint8_t>> take(std::chrono::milliseconds timeout);

 private:
  friend class DdsParticipant;
  DdsRawReader() = default;
  int32_t topic_ = 0, reader_ = 0, waitset_ = 0;
};

class DdsParticipant {
 public:
  // `domain_id` as ROS_DOMAIN_ID; `localhost_only` limits discovery and data to the loopback
  // interface (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST).
  static Result<DdsParticipant, Error<WireError>> create(uint32_t domain_id, bool localhost_only);
  ~DdsParticipant();
  DdsParticipant(DdsParticipant&&) noexcept;
  DdsParticipant& operator=(DdsParticipant&&) noexcept;

  // `dds_topic` already mangled ("rt/chatter"), `dds_type` as "std_msgs::msg::dds_::String_".
  Result<DdsRawWriter, Error<WireError>> create_writer(const std::string& dds_topic,
                                                       const std::string& dds_type,
                                                       const WireQos& qos = {});
  Result<DdsRawReader, Error<WireError>> create_reader(const std::string& dds_topic,
                                                       const std::string& dds_type,
                                                       const WireQos& qos = {});

 private:
  DdsParticipant() = default;
  int32_t participant_ = 0;
  int32_t domain_ = 0;
};

}  // namespace baton::ros2
