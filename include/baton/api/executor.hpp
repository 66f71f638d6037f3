// Executors run the callbacks of subscriptions, services and clients as messages, requests and
// responses arrive, shaped like rclcpp's: add nodes (or single entities), then spin.
//
//   SingleThreadedExecutor exec(ctx);
//   exec.add_node(node);        // everything the node created, now and later
//   exec.spin();                // until ctx->shutdown() or exec.cancel()
//
// spin()                          runs callbacks until the context shuts down or cancel().
// spin_once(timeout)              waits up to `timeout` (< 0: forever) and runs one callback.
// spin_some(max_duration)         runs what is ready now, each entity once, without waiting;
//                                 with max_duration > 0, repeats until nothing is ready or the
//                                 duration is used up.
// spin_until_future_complete(f, timeout)  spins until f is ready, the timeout passes, or the
//                                 context shuts down.
//
// Waiting is one WaitSet over every entity's wake word plus the executor's interrupt guard
// (triggered by Context::shutdown, cancel(), and a node gaining an entity), so an idle executor
// sleeps and never polls. Subscriptions without a callback are left alone (take() them
// yourself). A subscription, service or client runs one callback at a time, even in a
// multi-threaded executor. At most WaitSet::MAX_ENTITIES (128) entities, guards included, per
// executor; the rest are not served.
//
// Thread safety: add_* / remove_* / cancel may be called from any thread, also while spinning.
// One spin call at a time (a second one returns at once). Destroy an executor only when no
// thread spins it.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "baton/api/context.hpp"
#include "baton/api/executor_error.hpp"
#include "baton/api/future_return_code.hpp"
#include "baton/api/guard_condition.hpp"
#include "baton/api/node.hpp"
#include "baton/api/wait_set.hpp"

namespace baton {

class ServiceBase;
class ClientBase;

struct ExecutorOptions {
  // How the executor waits: Blocking (default), BusyPoll, or Adaptive (spin, then sleep).
  WaitMode wait_mode = WaitMode::Blocking;
  std::chrono::nanoseconds spin_time = std::chrono::microseconds(50);  // Adaptive only
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<Context> context, ExecutorOptions options = {});
  virtual ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Serves everything `node` created and creates later (the executor keeps the node's entity
  // list, not the node). A node is in at most one executor.
  Status<ExecutorError> add_node(Node& node);
  bool remove_node(Node& node);
  // Single entities; the executor holds a shared reference until removed.
  Status<ExecutorError> add_subscription(std::shared_ptr<SubscriptionBase> subscription);
  Status<ExecutorError> add_service(std::shared_ptr<ServiceBase> service);
  Status<ExecutorError> add_client(std::shared_ptr<ClientBase> client);
  bool remove_subscription(const SubscriptionBase& subscription);
  bool remove_service(const ServiceBase& service);
  bool remove_client(const ClientBase& client);

  virtual void spin();
  void spin_some(std::chrono::nanoseconds max_duration = std::chrono::nanoseconds(0));
  // True if a callback ran.
  bool spin_once(std::chrono::nanoseconds timeout = std::chrono::nanoseconds(-1));

  template <typename FutureT>
  FutureReturnCode spin_until_future_complete(
      const FutureT& future, std::chrono::nanoseconds timeout = std::chrono::nanoseconds(-1)) {
    using namespace std::chrono;
    const auto ready = [&future] {
      return future.wait_for(seconds(0)) == std::future_status::ready;
    };
    if (ready()) return FutureReturnCode::Success;
    if (spinning_.exchange(true)) return FutureReturnCode::Interrupted;
    const auto deadline = steady_clock::now() + timeout;
    FutureReturnCode rc = FutureReturnCode::Interrupted;
    while (keep_spinning()) {
      if (ready()) {
        rc = FutureReturnCode::Success;
        break;
      }
      // Slices: the future may also be completed by another thread, which wakes nobody here.
      nanoseconds slice = milliseconds(100);
      if (timeout.count() >= 0) {
        const auto left = duration_cast<nanoseconds>(deadline - steady_clock::now());
        if (left.count() <= 0) {
          rc = FutureReturnCode::Timeout;
          break;
        }
        slice = std::min(slice, left);
      }
      run_one(slice);
    }
    if (rc != FutureReturnCode::Success && ready()) rc = FutureReturnCode::Success;
    spinning_.store(false, std::memory_order_release);
    return rc;
  }

  // Makes spin() return soon (after the callback running now); wakes a waiting executor.
  void cancel();
  bool is_spinning() const noexcept { return spinning_.load(std::memory_order_acquire); }
  const std::shared_ptr<Context>& context() const noexcept { return context_; }

 protected:
  enum class Kind : std::uint8_t { Subscription, Service, Client };
  struct Work {
    Kind kind = Kind::Subscription;
    std::shared_ptr<void> owner;
    void* entity = nullptr;
  };

  bool keep_spinning() const noexcept {
    return context_->ok() && spinning_.load(std::memory_order_acquire);
  }
  // Waits up to `timeout` for an entity that is ready and not running on another thread,
  // claims it and returns true. Thread-safe (one thread waits at a time, the others queue).
  bool wait_for_work(std::chrono::nanoseconds timeout, Work& out);
  // Runs one callback of a claimed entity, then releases the claim.
  void execute(Work& work);
  // wait_for_work + execute; true if a callback ran.
  bool run_one(std::chrono::nanoseconds timeout);

  std::atomic<bool> spinning_{false};
  // Set by executors whose other threads may wait while a callback runs: a released entity
  // must wake them so they wait on it again.
  bool notify_on_release_ = false;

 private:
  void rebuild_wait_set();    // wait_mutex_ held
  void queue_ready();         // wait_mutex_ held: result_'s ready entities into ready_
  bool pop_ready(Work& out);  // wait_mutex_ held: claims the next unclaimed ready entity

  std::shared_ptr<Context> context_;
  std::shared_ptr<GuardCondition> interrupt_ = std::make_shared<GuardCondition>();

  std::mutex state_mutex_;  // guards the lists below and in_use_
  std::vector<std::shared_ptr<detail::NodeEntities>> nodes_;
  std::vector<std::shared_ptr<SubscriptionBase>> subscriptions_;
  std::vector<std::shared_ptr<ServiceBase>> services_;
  std::vector<std::shared_ptr<ClientBase>> clients_;
  std::unordered_set<const void*> in_use_;

  std::mutex wait_mutex_;  // one waiter at a time; guards the members below
  WaitSet wait_set_;
  WaitResult result_;
  std::vector<Work> candidates_;  // what wait_set_ holds, with owners
  std::deque<Work> ready_;        // found ready by the last wait, not yet handed out
};

}  // namespace baton
