// ros_discovery_info publisher: see include/baton/ros2/ros2_participant.hpp.
#include "baton/ros2/ros2_participant.hpp"

#include <cstdlib>
#include <string_view>

#include "baton/ros2/type_hash.hpp"
#include "baton/shm/domain_tag.hpp"
#include "dds_wire.hpp"
#include "shm_peer_tag.hpp"

namespace baton::ros2 {

using Err = Error<WireError>;

Participant::Participant(std::unique_ptr<DdsParticipant> dds, const MessageDescription& type)
    : dds_(std::move(dds)), type_(&type) {}
Participant::~Participant() = default;

Guid Participant::gid() const { return dds_->guid(); }

Result<std::unique_ptr<Participant>, Err> Participant::create(TypeRegistry& registry,
                                                              uint32_t domain_id,
                                                              bool localhost_only) {
  auto type = registry.message(DISCOVERY_INFO_TYPE);
  if (!type)
    return unexpected(Err{WireError::Endpoint,
                          std::string("ros_discovery_info needs ") + DISCOVERY_INFO_TYPE + ": " +
                              type.error().detail + " (add rmw_dds_common's share directory)"});
  // "enclave=/;": the participant USER_DATA other RMWs read for rmw_get_node_names_with_enclaves
  // (they ignore other keys). "baton=<tag>;": this participant's nodes are in the graph registry
  // of its shm domain, so a graph cache of that domain leaves them out (dds_graph_cache.hpp).
  auto dds = DdsParticipant::create(domain_id, localhost_only,
                                    "enclave=/;baton=" + shm::domain_tag() + ";");
  if (!dds) return unexpected(dds.error());
  std::unique_ptr<Participant> p(
      new Participant(std::make_unique<DdsParticipant>(std::move(*dds)), **type));
  WireQos qos;
  qos.reliable = true;
  qos.transient_local = true;
  qos.depth = 1;
  qos.user_data = endpoint_user_data(type_hash(**type), /*tag=*/"");
  auto w = p->dds_->create_writer(DISCOVERY_INFO_TOPIC, (*type)->dds_type_name(), qos);
  if (!w) return unexpected(w.error());
  p->writer_ = std::make_unique<DdsRawWriter>(std::move(*w));
  std::lock_guard lock(p->mu_);
  p->entities_.gid = p->dds_->guid();
  if (auto s = p->publish_locked(); !s) return unexpected(s.error());
  return p;
}

Result<std::unique_ptr<Participant>, Err> Participant::create_from_env(TypeRegistry& registry) {
  uint32_t domain = 0;
  if (const char* d = std::getenv("ROS_DOMAIN_ID"); d != nullptr && *d != '\0')
    domain = static_cast<uint32_t>(std::strtoul(d, nullptr, 10));
  const char* range = std::getenv("ROS_AUTOMATIC_DISCOVERY_RANGE");
  const char* legacy = std::getenv("ROS_LOCALHOST_ONLY");
  const bool localhost = (range != nullptr && std::string_view(range) == "LOCALHOST") ||
                         (legacy != nullptr && std::string_view(legacy) == "1");
  return create(registry, domain, localhost);
}

Status<Err> Participant::publish_locked() {
  auto cdr = encode_discovery_info(*type_, entities_);
  if (!cdr) return unexpected(Err{WireError::Write, "ros_discovery_info: " + cdr.error().detail});
  if (auto s = writer_->write(*cdr); !s) return s;
  ++samples_;
  return Ok{};
}

Status<Err> Participant::add_node(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  entities_.node(ns, name);
  return publish_locked();
}

Status<Err> Participant::remove_node(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  if (!entities_.remove_node(ns, name)) return Ok{};
  return publish_locked();
}

Status<Err> Participant::add_endpoint(const std::string& ns, const std::string& name,
                                      const Guid& gid, bool reader) {
  std::lock_guard lock(mu_);
  entities_.add_endpoint(ns, name, gid, reader);
  return publish_locked();
}

Status<Err> Participant::remove_endpoint(const std::string& ns, const std::string& name,
                                         const Guid& gid, bool reader) {
  std::lock_guard lock(mu_);
  if (!entities_.remove_endpoint(ns, name, gid, reader)) return Ok{};
  return publish_locked();
}

ParticipantEntities Participant::entities() const {
  std::lock_guard lock(mu_);
  return entities_;
}

uint64_t Participant::discovery_samples() const {
  std::lock_guard lock(mu_);
  return samples_;
}

Result<std::unique_ptr<DiscoveryListing>, Err> DiscoveryListing::create(
    Participant& p, std::string ns, std::string name, const Guid& gid, bool reader) {
  if (auto s = p.add_endpoint(ns, name, gid, reader); !s) {
    (void)p.remove_endpoint(ns, name, gid, reader);
    return unexpected(s.error());
  }
  return std::make_unique<DiscoveryListing>(p, std::move(ns), std::move(name), gid, reader);
}

}  // namespace baton::ros2
