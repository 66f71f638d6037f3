// USER_DATA tags of baton's DDS endpoints: see include/baton/ros2/shm_peer_tag.hpp.
#include "baton/ros2/shm_peer_tag.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "baton/shm/naming.hpp"

namespace baton::ros2 {
namespace {

// /proc/sys/kernel/random/boot_id: a UUID that changes on every boot; same for all containers
// of one kernel (hence the /dev/shm device next to it).
std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  for (char& c : id)
    if (c == ';' || c == '=') c = '_';
  return id.empty() ? "noboot" : id;
}

}  // namespace

std::string local_shm_tag() {
  static const std::string boot = boot_id();
  struct stat st {};
  const unsigned long long dev =
      ::stat("/dev/shm", &st) == 0 ? static_cast<unsigned long long>(st.st_dev) : 0;
  char mid[64];
  std::snprintf(mid, sizeof(mid), ".%llx.%u.", dev, static_cast<unsigned>(::getuid()));
  // current_namespace() is escaped to [A-Za-z0-9_%-]: no ';' or '='.
  return boot + mid + shm::current_namespace();
}

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
