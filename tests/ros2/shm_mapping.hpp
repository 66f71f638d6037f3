// Whether a pointer lies in baton's shared memory, for the ros2 tests and their peer programs
// (rcl_cpp_peer.cpp, which has no gtest): a loan handed out in place, not a copy.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace baton::ros2::test {

// True if `p` lies in a mapping of a /dev/shm/baton.* segment of this process.
inline bool in_baton_mapping(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/dev/shm/baton.") == std::string::npos) continue;
    std::istringstream in(line);
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    in >> std::hex >> lo >> dash >> hi;
    if (addr >= lo && addr < hi) return true;
  }
  return false;
}

}  // namespace baton::ros2::test
