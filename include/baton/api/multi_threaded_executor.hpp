// Runs callbacks on `threads` threads (the caller of spin() plus threads - 1 more), as
// rclcpp::executors::MultiThreadedExecutor with one reentrant group per entity: different
// subscriptions, services and clients run in parallel; each one runs one callback at a time
// (a subscription port is single-threaded). One thread waits for work at a time while the
// others run callbacks. See executor.hpp.
#pragma once

#include <cstddef>

#include "baton/api/executor.hpp"

namespace baton {

class MultiThreadedExecutor : public Executor {
 public:
  // threads == 0: std::thread::hardware_concurrency() (at least 2).
  explicit MultiThreadedExecutor(std::shared_ptr<Context> context, std::size_t threads = 0,
                                 ExecutorOptions options = {});

  void spin() override;
  std::size_t number_of_threads() const noexcept { return threads_; }

 private:
  void worker();

  std::size_t threads_;
};

}  // namespace baton
