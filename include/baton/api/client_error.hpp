// Errors of a synchronous service call (Client<S>::send_request).
#pragma once

#include <cstdint>
#include <string_view>

namespace baton {

enum class ClientError : std::uint8_t {
  ServiceUnavailable,  // No service served the name before the timeout: start it, or wait longer.
  Timeout,             // The service got the request but no response came in time; it is dropped.
  SendFailed,          // The request could not be published (pool exhausted or service flooded).
  ContextShutDown,     // The context was shut down while waiting.
};

constexpr std::string_view to_string(ClientError e) noexcept {
  switch (e) {
    case ClientError::ServiceUnavailable:
      return "service unavailable";
    case ClientError::Timeout:
      return "timed out waiting for the response";
    case ClientError::SendFailed:
      return "request could not be sent";
    case ClientError::ContextShutDown:
      return "context shut down";
  }
  return "unknown";
}

}  // namespace baton
