// Errors of creating and opening shared-memory segments (cold path: they carry a detail text
// naming the segment and what was found vs expected).
#pragma once

#include <cstdint>
#include <string_view>

#include "baton/common/result.hpp"

namespace baton::shm {

enum class SegmentCreateError : std::uint8_t {
  AlreadyExists,      // A segment of that name exists: open it instead, or clean a stale one.
  PermissionDenied,   // /dev/shm refused the name for this user.
  InsufficientSpace,  // /dev/shm is full or the size exceeds its limit: free space or enlarge it.
  InvalidName,        // Empty or too long after escaping.
  Internal,           // Any other OS error; the detail names it.
};

enum class SegmentOpenError : std::uint8_t {
  DoesNotExist,      // Nobody created it (yet): the peer is not running or used another name.
  PermissionDenied,  // Owned by another user or mode forbids access: segments are per-user.
  Incompatible,  // Wrong magic, layout version or kind: a foreign file or another baton version.
  Corrupt,       // Sizes or fields out of range: refused rather than trusted.
  NotReady,      // The creator is still initialising it; retry shortly.
  Stale,         // The creator died before finishing it; `baton clean` or re-create removes it.
  InvalidName,   // Empty or too long after escaping.
  Internal,      // Any other OS error; the detail names it.
};

constexpr std::string_view to_string(SegmentCreateError e) noexcept {
  switch (e) {
    case SegmentCreateError::AlreadyExists:
      return "segment already exists";
    case SegmentCreateError::PermissionDenied:
      return "permission denied";
    case SegmentCreateError::InsufficientSpace:
      return "insufficient shared memory";
    case SegmentCreateError::InvalidName:
      return "invalid segment name";
    case SegmentCreateError::Internal:
      return "internal error";
  }
  return "unknown";
}

constexpr std::string_view to_string(SegmentOpenError e) noexcept {
  switch (e) {
    case SegmentOpenError::DoesNotExist:
      return "segment does not exist";
    case SegmentOpenError::PermissionDenied:
      return "permission denied";
    case SegmentOpenError::Incompatible:
      return "incompatible segment";
    case SegmentOpenError::Corrupt:
      return "corrupt segment";
    case SegmentOpenError::NotReady:
      return "segment not ready";
    case SegmentOpenError::Stale:
      return "stale segment";
    case SegmentOpenError::InvalidName:
      return "invalid segment name";
    case SegmentOpenError::Internal:
      return "internal error";
  }
  return "unknown";
}

}  // namespace baton::shm
