// The ROS 2 graph message `rmw_dds_common/msg/ParticipantEntitiesInfo`, which every DDS RMW
// publishes on DDS topic `ros_discovery_info` so that other participants can tell which node owns
// which reader / writer (node names are not visible in DDS discovery itself):
//
//   ParticipantEntitiesInfo { Gid gid; NodeEntitiesInfo[] node_entities_info_seq; }
//   NodeEntitiesInfo { string<=256 node_namespace; string<=256 node_name;
//                      Gid[] reader_gid_seq; Gid[] writer_gid_seq; }
//   Gid { char[16] data; }   // a DDS GUID (Kilted / Jazzy: 16 bytes)
//
// Encoded and decoded with baton's CDR codec from the .msg files (rmw_dds_common's share dir), so
// the layout is the one every RMW uses. Pure data: the DDS side is Participant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/cdr_error.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {

inline constexpr const char* DISCOVERY_INFO_TOPIC = "ros_discovery_info";
inline constexpr const char* DISCOVERY_INFO_TYPE = "rmw_dds_common/msg/ParticipantEntitiesInfo";

struct NodeEntities {
  std::string node_namespace;  // "/" or "/robot1"
  std::string node_name;
  std::vector<Guid> readers;
  std::vector<Guid> writers;
  bool operator==(const NodeEntities&) const = default;
};

struct ParticipantEntities {
  Guid gid{};
  std::vector<NodeEntities> nodes;

  // The node's entry, created if absent.
  NodeEntities& node(const std::string& node_namespace, const std::string& node_name);
  // False if there was no such node.
  bool remove_node(const std::string& node_namespace, const std::string& node_name);
  // Adds / removes an endpoint gid of a node (the node is created if absent). Remove returns
  // false if the gid was not listed.
  void add_endpoint(const std::string& ns, const std::string& name, const Guid& gid, bool reader);
  bool remove_endpoint(const std::string& ns, const std::string& name, const Guid& gid,
                       bool reader);
  bool operator==(const ParticipantEntities&) const = default;
};

// `type` is the ParticipantEntitiesInfo description (TypeRegistry::message(DISCOVERY_INFO_TYPE)).
// Encode fails only if a name exceeds its 256-character bound (OversizeString).
Result<std::vector<uint8_t>, Error<CdrError>> encode_discovery_info(const MessageDescription& type,
                                                                    const ParticipantEntities& p);
// Decodes untrusted bytes (a sample from another participant): any CdrError of cdr.hpp.
Result<ParticipantEntities, Error<CdrError>> decode_discovery_info(const MessageDescription& type,
                                                                   std::span<const uint8_t> cdr);

}  // namespace baton::ros2
