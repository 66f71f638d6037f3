// Runs every callback on the thread that calls spin(), as rclcpp::executors::
// SingleThreadedExecutor. See executor.hpp.
#pragma once

#include "baton/api/executor.hpp"

namespace baton {

class SingleThreadedExecutor : public Executor {
 public:
  explicit SingleThreadedExecutor(std::shared_ptr<Context> context, ExecutorOptions options = {})
      : Executor(std::move(context), options) {}
};

}  // namespace baton
