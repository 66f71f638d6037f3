// Where a ROS 1 node's messages go: every refusal of bad input (a wrong md5sum, a malformed
// header, an oversized length) and every connection dropped is logged with what was received
// and from whom. NodeOptions::log takes them; by default warnings and errors go to stderr.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace baton::ros1 {

enum class LogLevel : uint8_t { Debug, Info, Warn, Error };

constexpr std::string_view to_string(LogLevel l) noexcept {
  switch (l) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
  }
  return "?";
}

// Called from the node's threads, possibly concurrently: make it thread-safe.
using LogHandler = std::function<void(LogLevel, std::string_view)>;

}  // namespace baton::ros1
