// The outcome of Executor::spin_until_future_complete, as rclcpp::FutureReturnCode.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton {

enum class FutureReturnCode : std::uint8_t {
  Success,      // The future is ready.
  Interrupted,  // The context shut down, the executor was cancelled, or it was spinning already.
  Timeout,      // The timeout passed first; the future may still complete later.
};

constexpr std::string_view to_string(FutureReturnCode c) noexcept {
  switch (c) {
    case FutureReturnCode::Success:
      return "success";
    case FutureReturnCode::Interrupted:
      return "interrupted";
    case FutureReturnCode::Timeout:
      return "timeout";
  }
  return "unknown";
}

}  // namespace baton
