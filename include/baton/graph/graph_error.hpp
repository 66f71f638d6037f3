// Errors of the graph registry (cold path: they carry a detail text naming the segment and what
// was found vs expected). Failure guarantee: an error leaves the registry unchanged.
#pragma once

#include <cstdint>
#include <string_view>

#include "baton/common/result.hpp"

namespace baton::graph {

enum class RegistryOpenError : std::uint8_t {
  PermissionDenied,  // The registry segment belongs to another user: segments are per-user.
  Incompatible,      // Bad magic, other layout version or capacities: a foreign file or another
                     // baton version. `baton shm clean` removes it once nobody uses it.
  Corrupt,           // Sizes or offsets out of range: refused rather than trusted.
  SegmentFailure,    // /dev/shm refused to create or map it (full? see the detail).
  Contention,        // Could not open or create it after many attempts (creators kept dying).
};

enum class RegisterError : std::uint8_t {
  InvalidName,      // Empty, too long for the table's fixed field, or contains a NUL byte.
  TableFull,        // MAX_PARTICIPANTS / MAX_NODES / MAX_ENDPOINTS live entries already exist,
                    // even after reclaiming dead participants: unregister something first.
  InvalidHandle,    // The parent handle is null, from another registry, or another process.
  ParticipantGone,  // The parent registration was reclaimed (this process was judged dead).
  Closed,           // The registry was removed as this participant registered (its last participant
                    // elsewhere left): open the registry again by name and register there
                    // (Context::graph_participant does).
  NoSpace,          // /dev/shm had no room for the new row's page: free space there or enlarge it.
};

constexpr std::string_view to_string(RegistryOpenError e) noexcept {
  switch (e) {
    case RegistryOpenError::PermissionDenied:
      return "permission denied";
    case RegistryOpenError::Incompatible:
      return "incompatible graph registry segment";
    case RegistryOpenError::Corrupt:
      return "corrupt graph registry segment";
    case RegistryOpenError::SegmentFailure:
      return "shared memory failure";
    case RegistryOpenError::Contention:
      return "could not open or create the graph registry";
  }
  return "unknown";
}

constexpr std::string_view to_string(RegisterError e) noexcept {
  switch (e) {
    case RegisterError::InvalidName:
      return "invalid name";
    case RegisterError::TableFull:
      return "graph registry table full";
    case RegisterError::InvalidHandle:
      return "invalid parent handle";
    case RegisterError::ParticipantGone:
      return "participant registration was reclaimed";
    case RegisterError::Closed:
      return "graph registry removed while registering";
    case RegisterError::NoSpace:
      return "no room in /dev/shm for a graph registry row";
  }
  return "unknown";
}

}  // namespace baton::graph
