// How rmw_shutdown wakes every rmw_wait of its context, and why it must.
//
// rclpy answers SIGINT / SIGTERM on its own thread (rclpy/src/rclpy/signal_handler.cpp): it first
// triggers the executors' signal guard conditions, then shuts the contexts down (rcl_shutdown).
// An executor woken by the trigger that looks at context.ok() before the shutdown lands finds the
// context valid and waits again; nothing is triggered after the shutdown, so the node stays in
// rclpy.spin until SIGKILL (issue 22 item 4). A SIGINT raises KeyboardInterrupt on top of this,
// so only SIGTERM, or a SIGINT that Python ignores (a shell's background job), depends on it.
// Fast DDS has the same window, only narrower (1 to 4 stuck of 50 in the test's probe, where baton
// had 19 to 44). rclcpp shuts down first and wakes its waits after; here too the shutdown is the
// last event, and it wakes.
//
// Each wait set joins with a guard condition of its own (a trigger is consumed by the one wait
// set that reports it, so one shared guard condition would wake only one of several waiting
// threads); shut_down() marks the context and then raises them all. A wait that starts after that
// sees is_shut_down() and does not block. Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/api/guard_condition.hpp"

namespace baton::ros2::rmw {

class ShutdownWake {
 public:
  // The guard condition a new wait set adds to each of its waits (raised if already shut down).
  std::shared_ptr<baton::GuardCondition> join();
  // The wait set of `guard` is destroyed.
  void leave(const baton::GuardCondition* guard);
  // Marks the context shut down, then raises every joined guard condition.
  void shut_down();
  // Raises every joined guard condition without marking anything: the graph changed, so the
  // incompatible-QoS events of any wait may have (rmw_wait looks at its events and waits on).
  void graph_changed();
  bool is_shut_down() const noexcept { return down_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::atomic<bool> down_{false};
  std::vector<std::shared_ptr<baton::GuardCondition>> guards_;
};

}  // namespace baton::ros2::rmw
