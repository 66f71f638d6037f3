#include "baton/api/multi_threaded_executor.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace baton {

MultiThreadedExecutor::MultiThreadedExecutor(std::shared_ptr<Context> context, std::size_t threads,
                                             ExecutorOptions options)
    : Executor(std::move(context), options),
      threads_(threads != 0 ? threads : std::max(2u, std::thread::hardware_concurrency())) {
  notify_on_release_ = true;
}

void MultiThreadedExecutor::worker() {
  while (keep_spinning()) run_one(std::chrono::nanoseconds(-1));
}

void MultiThreadedExecutor::spin() {
  if (spinning_.exchange(true)) return;
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < threads_; ++i) pool.emplace_back([this] { worker(); });
  worker();
  for (auto& t : pool) t.join();
  spinning_.store(false, std::memory_order_release);
}

}  // namespace baton
