// Errors of adding entities to a WaitSet.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton {

enum class WaitSetError : std::uint8_t {
  NullEntity,       // A null pointer was passed: create the entity first.
  AlreadyAdded,     // The entity is in this wait set already; nothing changed.
  TooManyEntities,  // WaitSet::MAX_ENTITIES reached (futex_waitv's limit): split the set.
};

constexpr std::string_view to_string(WaitSetError e) noexcept {
  switch (e) {
    case WaitSetError::NullEntity:
      return "null entity";
    case WaitSetError::AlreadyAdded:
      return "entity already in the wait set";
    case WaitSetError::TooManyEntities:
      return "too many entities in the wait set";
  }
  return "unknown";
}

}  // namespace baton
