// The shared-memory domain tag: see include/baton/shm/domain_tag.hpp.
#include "baton/shm/domain_tag.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "baton/shm/naming.hpp"

namespace baton::shm {
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

std::string domain_tag() {
  static const std::string boot = boot_id();
  struct stat st {};
  const unsigned long long dev =
      ::stat("/dev/shm", &st) == 0 ? static_cast<unsigned long long>(st.st_dev) : 0;
  char mid[64];
  std::snprintf(mid, sizeof(mid), ".%llx.%u.", dev, static_cast<unsigned>(::getuid()));
  // current_namespace() is escaped to [A-Za-z0-9_%-]: no ';' or '='.
  return boot + mid + current_namespace();
}

}  // namespace baton::shm
