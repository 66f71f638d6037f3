// Identity and liveness of a process taking part in baton: its pid plus the kernel's start time
// of that pid, so a recycled pid is never mistaken for the original owner.
#pragma once

#include <cstdint>

namespace baton::shm {

struct ParticipantId {
  std::uint32_t pid = 0;
  std::uint64_t start_time = 0;  // clock ticks since boot (/proc/<pid>/stat field 22)

  bool operator==(const ParticipantId&) const = default;
};

// The calling process's identity (cached after the first call; refreshed after fork()).
ParticipantId self();

// Start time of `pid`, or 0 when the process does not exist (or /proc cannot tell).
std::uint64_t process_start_time(std::uint32_t pid);

// True while the process that registered as `id` is alive. A zombie counts as dead: it can
// never release what it holds.
bool is_alive(const ParticipantId& id);

}  // namespace baton::shm
