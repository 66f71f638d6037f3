// One DDS participant per baton process (or rmw context) that makes its ROS 2 nodes visible to
// every other ROS 2 node: it publishes rmw_dds_common/msg/ParticipantEntitiesInfo on
// `ros_discovery_info` (reliable, transient local, keep last 1, as rmw_cyclonedds_cpp does) with
// this participant's GUID and, per node, the GUIDs of its DDS readers and writers. It re-publishes
// on every change, so `ros2 node list` / rclpy's graph API on any RMW name baton's nodes and tell
// which node owns which endpoint.
//
//   auto wire = Participant::create(registry, /*domain_id=*/0, /*localhost_only=*/true);
//   auto node = Node::create(ctx, **wire, "talker");            // listed at once
//   auto pub  = Publisher::create(**node, *string_t, "/chatter"); // its writer gid listed
//
// Thread-safe. rmw_baton_cpp can own one per context and call add_node / add_endpoint itself.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "baton/common/result.hpp"
#include "baton/ros2/discovery_info.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {

class DdsRawWriter;

class Participant {
 public:
  // `registry` must find rmw_dds_common's .msg files (Endpoint error naming the type otherwise);
  // it must outlive the participant (the ParticipantEntitiesInfo description is borrowed from
  // it). `domain_id` / `localhost_only` as DdsParticipant::create.
  static Result<std::unique_ptr<Participant>, Error<WireError>> create(TypeRegistry& registry,
                                                                       uint32_t domain_id,
                                                                       bool localhost_only);
  // ROS_DOMAIN_ID (default 0) and ROS_AUTOMATIC_DISCOVERY_RANGE (LOCALHOST → localhost only;
  // also ROS_LOCALHOST_ONLY=1), as rmw implementations read them.
  static Result<std::unique_ptr<Participant>, Error<WireError>> create_from_env(
      TypeRegistry& registry);

  ~Participant();
  Participant(const Participant&) = delete;
  Participant& operator=(const Participant&) = delete;

  // The DDS participant (opaque outside the library: handed back to it, as Publisher::create
  // takes it).
  DdsParticipant& dds() noexcept { return *dds_; }
  Guid gid() const;
  // The ParticipantEntitiesInfo description ros_discovery_info is encoded with.
  const MessageDescription& discovery_info_type() const noexcept { return *type_; }

  // Each change re-publishes ros_discovery_info; an error means the write failed (the change is
  // kept and goes out with the next one).
  Status<Error<WireError>> add_node(const std::string& node_namespace, const std::string& name);
  Status<Error<WireError>> remove_node(const std::string& node_namespace, const std::string& name);
  Status<Error<WireError>> add_endpoint(const std::string& node_namespace, const std::string& name,
                                        const Guid& gid, bool reader);
  Status<Error<WireError>> remove_endpoint(const std::string& node_namespace,
                                           const std::string& name, const Guid& gid, bool reader);

  ParticipantEntities entities() const;
  uint64_t discovery_samples() const;  // ros_discovery_info samples written so far

 private:
  Participant(std::unique_ptr<DdsParticipant> dds, const MessageDescription& type);
  Status<Error<WireError>> publish_locked();

  std::unique_ptr<DdsParticipant> dds_;
  const MessageDescription* type_;  // borrowed from the registry (descriptions are immutable)
  std::unique_ptr<DdsRawWriter> writer_;
  mutable std::mutex mu_;
  ParticipantEntities entities_;
  uint64_t samples_ = 0;
};

// Keeps one endpoint listed in its participant's ros_discovery_info while it lives.
class DiscoveryListing {
 public:
  // Lists the endpoint now (add_endpoint); error: the ros_discovery_info write failed (then
  // nothing stays listed).
  static Result<std::unique_ptr<DiscoveryListing>, Error<WireError>> create(
      Participant& p, std::string ns, std::string name, const Guid& gid, bool reader);
  DiscoveryListing(Participant& p, std::string ns, std::string name, const Guid& gid, bool reader)
      : p_(&p), ns_(std::move(ns)), name_(std::move(name)), gid_(gid), reader_(reader) {}
  ~DiscoveryListing() { (void)p_->remove_endpoint(ns_, name_, gid_, reader_); }
  DiscoveryListing(const DiscoveryListing&) = delete;
  DiscoveryListing& operator=(const DiscoveryListing&) = delete;

 private:
  Participant* p_;
  std::string ns_, name_;
  Guid gid_;
  bool reader_;
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Participant [[deprecated("use baton::ros2::Participant")]] = Participant;

}  // namespace baton::ros2
