// USER_DATA tags of baton's DDS endpoints: see shm_peer_tag.hpp.
#include "shm_peer_tag.hpp"

namespace baton::ros2 {
std::string endpoint_user_data(std::string_view type_hash, std::string_view tag) {
  std::string out;
  if (!tag.empty()) out.append("baton=").append(tag).append(";");
  if (!type_hash.empty()) out.append("typehash=").append(type_hash).append(";");
  return out;
}

std::map<std::string, std::string> parse_user_data(std::span<const uint8_t> user_data) {
  std::map<std::string, std::string> out;
  const std::string_view text(reinterpret_cast<const char*>(user_data.data()), user_data.size());
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find(';', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view pair = text.substr(begin, end - begin);
    if (const size_t eq = pair.find('='); eq != std::string_view::npos && eq > 0)
      out[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    begin = end + 1;
  }
  return out;
}

bool has_shm_tag(std::span<const uint8_t> user_data, std::string_view tag) {
  if (tag.empty()) return false;
  const auto kv = parse_user_data(user_data);
  const auto it = kv.find("baton");
  return it != kv.end() && it->second == tag;
}

}  // namespace baton::ros2
