// Errors of adding nodes and entities to an executor.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton {

enum class ExecutorError : std::uint8_t {
  NullEntity,             // A null pointer was passed: create the entity first.
  NodeInAnotherExecutor,  // The node was added to another executor: remove it there first.
  AlreadyAdded,           // The node or entity is in this executor already; nothing changed.
};

constexpr std::string_view to_string(ExecutorError e) noexcept {
  switch (e) {
    case ExecutorError::NullEntity:
      return "null entity";
    case ExecutorError::NodeInAnotherExecutor:
      return "node already added to another executor";
    case ExecutorError::AlreadyAdded:
      return "already added to this executor";
  }
  return "unknown";
}

}  // namespace baton
