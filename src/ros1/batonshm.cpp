// BATONSHM negotiation (batonshm.hpp).
#include "batonshm.hpp"

#include <charconv>
#include <optional>

#include "baton/shm/domain_tag.hpp"

namespace baton::ros1::detail {
namespace {

using XmlRpc::XmlRpcValue;

bool is_string(XmlRpcValue& v) { return v.getType() == XmlRpcValue::TypeString; }

// A uint32 written as decimal text (XML-RPC's int is signed 32-bit: a generation may not fit).
std::optional<uint32_t> parse_u32(const std::string& text) {
  uint32_t out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::string shm_topic_name(std::string_view ros_topic) { return "/_ros1" + std::string(ros_topic); }

topic::TypeInfo shm_type_info(const MessageType& type) {
  return topic::TypeInfo::from_name(type.name, "ros1 md5sum=" + type.md5sum);
}

XmlRpcValue shm_offer() {
  XmlRpcValue offer;
  offer[0] = std::string(BATONSHM);
  offer[1] = shm::domain_tag();
  return offer;
}

bool is_local_shm_offer(XmlRpcValue& protocol) {
  return protocol.getType() == XmlRpcValue::TypeArray && protocol.size() == 2 &&
         is_string(protocol[0]) && std::string(protocol[0]) == BATONSHM && is_string(protocol[1]) &&
         std::string(protocol[1]) == shm::domain_tag();
}

XmlRpcValue encode_grant(const ShmGrant& grant) {
  XmlRpcValue v;
  v[0] = std::string(BATONSHM);
  v[1] = grant.topic;
  v[2] = grant.type;
  v[3] = grant.md5sum;
  v[4] = std::to_string(grant.slot);
  v[5] = std::to_string(grant.generation);
  v[6] = grant.caller_id;
  return v;
}

bool is_shm_answer(XmlRpcValue& params) {
  return params.getType() == XmlRpcValue::TypeArray && params.size() >= 1 && is_string(params[0]) &&
         std::string(params[0]) == BATONSHM;
}

Result<ShmGrant, std::string> decode_grant(XmlRpcValue& params) {
  const auto bad = [&](const std::string& why) {
    return unexpected("BATONSHM answer " + params.toXml() + ": " + why);
  };
  if (!is_shm_answer(params)) return bad("not a BATONSHM answer");
  if (params.size() != 7) return bad("expected 7 elements, got " + std::to_string(params.size()));
  for (int i = 1; i < 7; ++i)
    if (!is_string(params[i])) return bad("element " + std::to_string(i) + " is not a string");
  ShmGrant g;
  g.topic = std::string(params[1]);
  g.type = std::string(params[2]);
  g.md5sum = std::string(params[3]);
  const auto slot = parse_u32(params[4]), generation = parse_u32(params[5]);
  if (!slot || !generation) return bad("slot / generation are not unsigned 32-bit numbers");
  g.slot = *slot;
  g.generation = *generation;
  g.caller_id = std::string(params[6]);
  return g;
}

}  // namespace baton::ros1::detail
