// ParticipantEntitiesInfo <-> CDR through the .msg description: see discovery_info.hpp.
#include "baton/ros2/discovery_info.hpp"

#include <algorithm>
#include <cstring>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros2 {
namespace {

using Err = Error<CdrError>;

// The nested description of field `name` of `d` (null if it is not a nested message).
const MessageDescription* nested(const MessageDescription& d, std::string_view name) {
  const int i = d.field_index(name);
  return i < 0 ? nullptr : d.fields[static_cast<size_t>(i)].nested;
}

// The description has the fields this file reads (Value::at aborts on a missing field).
bool has_discovery_shape(const MessageDescription& type) {
  const MessageDescription* node_t = nested(type, "node_entities_info_seq");
  if (node_t == nullptr || nested(type, "gid") == nullptr) return false;
  for (const char* f : {"node_namespace", "node_name", "reader_gid_seq", "writer_gid_seq"})
    if (node_t->field_index(f) < 0) return false;
  return true;
}

Unexpected<Err> not_discovery_type(const MessageDescription& type) {
  return unexpected(
      Err{CdrError::TypeMismatch, type.full_name() + " is not " + DISCOVERY_INFO_TYPE});
}

Value gid_value(const Guid& g) {
  Value v;
  v.items.push_back(Value::of_array(std::span<const uint8_t>(g)));  // char[16] data
  return v;
}

Guid gid_of(const Value& v) {
  Guid g{};
  if (!v.items.empty())
    std::memcpy(g.data(), v.items[0].raw.data(), std::min(g.size(), v.items[0].raw.size()));
  return g;
}

}  // namespace

NodeEntities& ParticipantEntities::node(const std::string& ns, const std::string& name) {
  for (auto& n : nodes)
    if (n.node_namespace == ns && n.node_name == name) return n;
  nodes.push_back(NodeEntities{ns, name, {}, {}});
  return nodes.back();
}

bool ParticipantEntities::remove_node(const std::string& ns, const std::string& name) {
  return std::erase_if(nodes, [&](const NodeEntities& n) {
           return n.node_namespace == ns && n.node_name == name;
         }) > 0;
}

void ParticipantEntities::add_endpoint(const std::string& ns, const std::string& name,
                                       const Guid& gid, bool reader) {
  auto& list = reader ? node(ns, name).readers : node(ns, name).writers;
  if (std::find(list.begin(), list.end(), gid) == list.end()) list.push_back(gid);
}

bool ParticipantEntities::remove_endpoint(const std::string& ns, const std::string& name,
                                          const Guid& gid, bool reader) {
  for (auto& n : nodes) {
    if (n.node_namespace != ns || n.node_name != name) continue;
    auto& list = reader ? n.readers : n.writers;
    return std::erase(list, gid) > 0;
  }
  return false;
}

Result<std::vector<uint8_t>, Err> encode_discovery_info(const MessageDescription& type,
                                                        const ParticipantEntities& p) {
  if (!has_discovery_shape(type)) return not_discovery_type(type);
  const MessageDescription* node_t = nested(type, "node_entities_info_seq");
  Value v = default_value(type);
  v.at(type, "gid") = gid_value(p.gid);
  auto& seq = v.at(type, "node_entities_info_seq").items;
  for (const auto& n : p.nodes) {
    Value nv = default_value(*node_t);
    nv.at(*node_t, "node_namespace").str = n.node_namespace;
    nv.at(*node_t, "node_name").str = n.node_name;
    for (const auto& g : n.readers) nv.at(*node_t, "reader_gid_seq").items.push_back(gid_value(g));
    for (const auto& g : n.writers) nv.at(*node_t, "writer_gid_seq").items.push_back(gid_value(g));
    seq.push_back(std::move(nv));
  }
  return encode(type, v);
}

Result<ParticipantEntities, Err> decode_discovery_info(const MessageDescription& type,
                                                       std::span<const uint8_t> cdr) {
  if (!has_discovery_shape(type)) return not_discovery_type(type);
  const MessageDescription* node_t = nested(type, "node_entities_info_seq");
  auto v = decode(type, cdr);
  if (!v) return unexpected(v.error());
  ParticipantEntities p;
  p.gid = gid_of(v->at(type, "gid"));
  for (const auto& nv : v->at(type, "node_entities_info_seq").items) {
    NodeEntities n;
    n.node_namespace = nv.at(*node_t, "node_namespace").str;
    n.node_name = nv.at(*node_t, "node_name").str;
    for (const auto& g : nv.at(*node_t, "reader_gid_seq").items) n.readers.push_back(gid_of(g));
    for (const auto& g : nv.at(*node_t, "writer_gid_seq").items) n.writers.push_back(gid_of(g));
    p.nodes.push_back(std::move(n));
  }
  return p;
}

}  // namespace baton::ros2
