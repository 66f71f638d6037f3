// Waits on several subscriptions, services, clients and guard conditions at once, as
// rclcpp::WaitSet does, in one futex_waitv system call over their shared-memory wake words:
//
//   WaitSet ws;
//   ws.add_subscription(sub);  ws.add_guard_condition(stop);
//   auto r = ws.wait(100ms);
//   if (r.is_ready(*sub)) sub->execute_one();
//
// Modes (WaitSetOptions::wait_mode): Blocking (sleep; publishers wake us only because we said we
// sleep), BusyPoll (spin until ready or timeout; burns a core), Adaptive (spin `spin_time`,
// then sleep). Blocking waits sleep in slices of at most 100 ms so a publisher appearing on a
// topic (which wakes nobody) is noticed.
//
// Sync point "waitset-dekker", pairing with PublisherPort::notify_subscribers, IntraQueue::push
// and GuardCondition::trigger: for every entity, load its wake word and announce a sleeper on its
// waiters word (shm/sleeper_word.hpp: the load comes first, both seq_cst), then re-check
// readiness, then sleep on the loaded values. A publisher stores its data, fences, then reads the
// waiters word; one of the two always sees the other, so no wake is lost.
//
// Holds shared references to what it waits on. Not thread-safe: one thread uses a wait set at a
// time. An entity may be in several wait sets.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "baton/api/guard_condition.hpp"
#include "baton/api/qos.hpp"
#include "baton/api/wait_result.hpp"
#include "baton/api/wait_set_error.hpp"
#include "baton/common/result.hpp"

namespace baton {

struct WaitSetOptions {
  WaitMode wait_mode = WaitMode::Blocking;
  std::chrono::nanoseconds spin_time = std::chrono::microseconds(50);  // Adaptive only
};

class WaitSet {
 public:
  // futex_waitv waits on at most 128 words.
  static constexpr std::size_t MAX_ENTITIES = 128;

  explicit WaitSet(WaitSetOptions options = {}) : options_(options) {}

  Status<WaitSetError> add_subscription(std::shared_ptr<SubscriptionBase> subscription);
  Status<WaitSetError> add_service(std::shared_ptr<ServiceBase> service);
  Status<WaitSetError> add_client(std::shared_ptr<ClientBase> client);
  Status<WaitSetError> add_guard_condition(std::shared_ptr<GuardCondition> guard);
  // Each returns false if the entity was not in the set.
  bool remove_subscription(const SubscriptionBase& subscription);
  bool remove_service(const ServiceBase& service);
  bool remove_client(const ClientBase& client);
  bool remove_guard_condition(const GuardCondition& guard);
  void clear() noexcept { entries_.clear(); }
  std::size_t size() const noexcept { return entries_.size(); }

  // Waits until at least one entity is ready or `timeout` (< 0: forever, 0: just look) passes.
  WaitResult wait(std::chrono::nanoseconds timeout = std::chrono::nanoseconds(-1));
  // The same, reusing `result`'s storage (no allocation once it has grown).
  void wait(std::chrono::nanoseconds timeout, WaitResult& result);

  const WaitSetOptions& options() const noexcept { return options_; }

 private:
  enum class Kind : std::uint8_t { Subscription, Service, Client, Guard };
  struct Entry {
    Kind kind;
    std::shared_ptr<void> owner;
    void* entity;
    std::atomic<std::uint32_t>* wake;
    std::atomic<std::uint32_t>* waiters;
  };
  Status<WaitSetError> add(Kind kind, std::shared_ptr<void> owner, void* entity,
                           std::atomic<std::uint32_t>* wake, std::atomic<std::uint32_t>* waiters);
  bool remove(const void* entity);
  bool collect(WaitResult& result);
  // Idle time: each subscription pre-maps what its publishers committed since (as
  // SubscriberPort::wait does), so a take after this wait takes no page fault.
  void premap_subscriptions() noexcept;
  bool wait_blocking(std::int64_t deadline_ns, WaitResult& result);

  WaitSetOptions options_;
  std::vector<Entry> entries_;
  std::vector<std::atomic<std::uint32_t>*> words_;  // scratch for futex_wait_any
  std::vector<std::uint32_t> expected_;
};

}  // namespace baton
