#include "shutdown_wake.hpp"

namespace baton::ros2::rmw {

std::shared_ptr<baton::GuardCondition> ShutdownWake::join() {
  auto guard = std::make_shared<baton::GuardCondition>();
  std::lock_guard<std::mutex> lock(mutex_);
  if (down_.load(std::memory_order_relaxed)) guard->trigger();
  guards_.push_back(guard);
  return guard;
}

void ShutdownWake::leave(const baton::GuardCondition* guard) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(guards_, [guard](const auto& g) { return g.get() == guard; });
}

// Sync point "shutdown-wake" with rmw_wait: every wait set of the context holds one of these
// guards, so a wait that began before the shutdown wakes, and one that begins after sees down_.
void ShutdownWake::shut_down() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Marked before raising: the next wait of a wait set whose raise an earlier wait already
  // took sees the mark instead.
  down_.store(true, std::memory_order_release);
  for (const auto& g : guards_) g->trigger();
}

void ShutdownWake::graph_changed() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& g : guards_) g->trigger();
}

}  // namespace baton::ros2::rmw
