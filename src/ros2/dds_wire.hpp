// Prototype of the standard wire: raw CDR samples on DDS (CycloneDDS) under ROS 2 naming, so
// rclpy / rclcpp on any RMW (rmw_fastrtps_cpp, rmw_cyclonedds_cpp) see baton's messages.
//
//   ROS topic "/chatter"  ->  DDS topic "rt/chatter", type "std_msgs::msg::dds_::String_"
//
// The samples are the CDR bytes of cdr.hpp (encapsulation header included); Cyclone never sees
// a C struct (a custom ddsi_sertype / ddsi_serdata carries bytes, as rmw_cyclonedds_cpp does).
// Only built when CycloneDDS is found (BATON_HAVE_CYCLONEDDS); how the wire works is in
// docs/design/ros2.md, "The DDS wire".
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {

// "/chatter" -> "rt/chatter"; "/add/two" with prefix "rq" -> "rq/add/two" (ROS 2 topic mangling).
std::string dds_topic_name(std::string_view ros_name, std::string_view prefix = "rt");

class DdsParticipant;

// A matched remote endpoint as discovery describes it: its GUID (the first two bytes of an RTPS
// GUID prefix name the vendor for Fast DDS: 01 0f) and its USER_DATA as text.
struct MatchedEndpoint {
  Guid guid{};
  std::string user_data;
};

// One received sample: its CDR bytes (header included) and where it came from.
struct DdsSample {
  std::vector<uint8_t> cdr;
  uint64_t publication_handle = 0;  // the writer, as matched_writer() takes it
  int64_t source_timestamp_ns = 0;
};

// Hands a taken sample's bytes back for reuse by later samples once they are decoded (optional:
// saves the page faults of a fresh 25 MB buffer per 4K image; src/ros2/dds_sample_buffers.hpp).
void recycle_sample_bytes(std::vector<uint8_t>&& bytes);

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
  // Matched readers whose USER_DATA lacks this writer's baton tag (all matched readers when the
  // writer has no tag): the readers that need the DDS copy. Re-classified (matched readers'
  // USER_DATA) only after a match / unmatch, so the usual cost is one atomic load.
  uint32_t matched_foreign_readers();
  // Every matched reader (same-tag ones included) with its GUID and USER_DATA.
  std::vector<MatchedEndpoint> matched_reader_endpoints() const;
  Guid guid() const;
  // The writer's local instance handle (rmw_cyclonedds_cpp's client id in request headers).
  uint64_t instance_handle() const;

  struct MatchState;  // listener state (dds_wire.cpp)

 private:
  friend class DdsParticipant;
  DdsRawWriter();
  int32_t topic_ = 0, writer_ = 0;
  const void* sertype_ = nullptr;  // the topic's ddsi_sertype, borrowed from the topic
  std::unique_ptr<MatchState> match_;
};

class DdsRawReader {
 public:
  ~DdsRawReader();
  DdsRawReader(DdsRawReader&&) noexcept;
  DdsRawReader& operator=(DdsRawReader&&) noexcept;
  // Waits up to `timeout` (0: just look) for one sample; its CDR bytes, header included.
  // A reader whose USER_DATA carries a baton tag skips (and counts) samples of writers with the
  // same tag: they reached this process through shared memory.
  std::optional<std::vector<uint8_t>> take(std::chrono::milliseconds timeout);
  // take() with the sample's writer and source timestamp.
  std::optional<DdsSample> take_sample(std::chrono::milliseconds timeout);
  uint64_t dropped_same_tag() const noexcept;
  // True while a sample waits to be taken (same-tag ones included: take() may still say none).
  bool has_data() const;
  // Number of matched DDS writers that Cyclone has connected to this reader: a writer counts
  // once Cyclone's matching of it ended, when its next sample reaches this reader (until then
  // Cyclone drops it, and a volatile reader of a non-Cyclone writer never gets it back).
  uint32_t matched_writers() const;
  // Matched writers whose samples this reader delivers (not same-tag baton writers, whose
  // samples come through shared memory): what rmw_baton_cpp adds to its matched-publisher count.
  uint32_t matched_foreign_writers();
  // The matched writer `publication_handle` (from DdsSample); nullopt once it is gone.
  std::optional<MatchedEndpoint> matched_writer(uint64_t publication_handle) const;
  // Every matched writer (same-tag ones included) with its GUID and USER_DATA.
  std::vector<MatchedEndpoint> matched_writer_endpoints() const;
  Guid guid() const;
  // `fn` runs on a CycloneDDS thread whenever a sample arrives (e.g. to trigger a
  // baton::GuardCondition); keep it short and non-blocking. Replaces any previous one.
  void on_data_available(std::function<void()> fn);

  struct MatchState;  // listener state (dds_wire.cpp)

 private:
  friend class DdsParticipant;
  DdsRawReader();
  bool from_same_tag_writer(uint64_t publication_handle);
  // The instance handles of the matched writers counted by matched_writers().
  std::vector<uint64_t> connected_writers() const;
  int32_t topic_ = 0, reader_ = 0, waitset_ = 0, readcond_ = 0;
  std::unique_ptr<MatchState> match_;
};

class DdsGraphReader;

class DdsParticipant {
 public:
  // `domain_id` as ROS_DOMAIN_ID; `localhost_only` limits discovery and data to the loopback
  // interface (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST); `user_data` is the participant's
  // USER_DATA (ROS 2 RMWs write "enclave=/;").
  static Result<DdsParticipant, Error<WireError>> create(uint32_t domain_id, bool localhost_only,
                                                         std::string_view user_data = {});
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
  // The participant's GUID (ros_discovery_info's gid).
  Guid guid() const;

 private:
  friend class DdsGraphReader;  // reads the built-in discovery topics of this participant
  DdsParticipant() = default;
  int32_t participant_ = 0;
  int32_t domain_ = 0;  // domain id + 1 while this participant holds a reference on the
                        // localhost domain it configured (shared by all in the process); 0: none
};

}  // namespace baton::ros2
