// The ROS 2 graph of the DDS peers outside this process's shared-memory domain, built from what
// DDS discovery reports (as rmw_dds_common::GraphCache is):
//   - participants (DCPSParticipant): GUID + USER_DATA ("enclave=/;", baton's "baton=<tag>;");
//   - endpoints (DCPSPublication / DCPSSubscription): GUID, participant, DDS topic and type, QoS,
//     USER_DATA ("typehash=RIHS01_…;", "baton=<tag>;");
//   - nodes: each participant's last ros_discovery_info sample (ParticipantEntitiesInfo), which
//     names its nodes and the GUIDs of their readers and writers.
// Pure data, not thread-safe (DdsGraphReader feeds and guards it). snapshot() leaves out every
// participant and endpoint tagged with the caller's shm tag (shm/domain_tag.hpp): those are in
// baton's own graph registry already and must be listed once.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/ros2/dds_names.hpp"
#include "baton/ros2/discovery_info.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {

// One endpoint as DDS discovery describes it.
struct DiscoveredEndpoint {
  Guid guid{};
  Guid participant{};
  bool writer = false;  // DCPSPublication; else a reader (DCPSSubscription)
  std::string topic;    // DDS topic ("rt/chatter")
  std::string type;     // DDS type ("std_msgs::msg::dds_::String_")
  // The discovered QoS; deadline / lifespan / lease nanoseconds::max() = infinite; user_data =
  // the endpoint's USER_DATA.
  WireQos qos;
  bool operator==(const DiscoveredEndpoint&) const = default;
};

struct DdsGraphNode {
  std::string node_namespace;
  std::string node_name;
  std::string enclave;  // the participant's "enclave=" USER_DATA, "" if none
};

struct DdsGraphEndpoint {
  DiscoveredEndpoint dds;
  RosName ros;           // demangled DDS topic
  std::string ros_type;  // demangled DDS type (the service type for rq/ and rr/ topics)
  std::optional<std::array<uint8_t, 32>> type_hash;  // USER_DATA "typehash=RIHS01_…"
  int node = -1;  // index into DdsGraph::nodes; -1: no node lists this endpoint
  // Its participant publishes ros_discovery_info (then a node-less endpoint is "unknown" to ROS,
  // otherwise it belongs to a bare DDS application).
  bool participant_has_nodes = false;
};

struct DdsGraph {
  std::vector<DdsGraphNode> nodes;
  std::vector<DdsGraphEndpoint> endpoints;
};

class DdsGraphCache {
 public:
  // Each returns whether the cache changed.
  bool add_participant(const Guid& gid, std::string user_data);
  // Forgets the participant, its ros_discovery_info and its endpoints.
  bool remove_participant(const Guid& gid);
  // A ros_discovery_info sample (already decoded): replaces that participant's nodes.
  bool update_participant_entities(ParticipantEntities entities);
  bool add_endpoint(DiscoveredEndpoint endpoint);
  bool remove_endpoint(const Guid& gid);

  // The graph outside the shm domain `local_tag` (nothing is left out when it is empty). Nodes of
  // participants not (or no longer) seen on DCPSParticipant are not listed.
  DdsGraph snapshot(std::string_view local_tag) const;

 private:
  struct Participant {
    std::string user_data;
    std::optional<ParticipantEntities> entities;  // its last ros_discovery_info
  };
  std::map<Guid, Participant> participants_;
  // ros_discovery_info of participants not seen on DCPSParticipant yet (kept until they are).
  std::map<Guid, ParticipantEntities> early_entities_;
  std::map<Guid, DiscoveredEndpoint> endpoints_;
};

// The 32 bytes of "RIHS01_<64 hex>"; nullopt for anything else.
std::optional<std::array<uint8_t, 32>> parse_rihs01(std::string_view text);

}  // namespace baton::ros2
