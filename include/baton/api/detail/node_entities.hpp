// What a Node created, for executors' add_node (not API). Entries are weak: an entity the user
// dropped disappears from every executor by itself. `changed` is raised whenever an entity is
// added, so a spinning executor picks it up; a node belongs to at most one executor at a time
// (as in rclcpp), since a trigger wakes one wait.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/api/guard_condition.hpp"

namespace baton {

class SubscriptionBase;
class ServiceBase;
class ClientBase;

namespace detail {

struct NodeEntities {
  std::mutex mutex;
  std::vector<std::weak_ptr<SubscriptionBase>> subscriptions;
  std::vector<std::weak_ptr<ServiceBase>> services;
  std::vector<std::weak_ptr<ClientBase>> clients;
  std::shared_ptr<GuardCondition> changed = std::make_shared<GuardCondition>();
  std::atomic<bool> in_executor{false};

  template <typename T>
  void add(std::vector<std::weak_ptr<T>>& list, const std::shared_ptr<T>& entity) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      std::erase_if(list, [](const std::weak_ptr<T>& w) { return w.expired(); });
      list.push_back(entity);
    }
    changed->trigger();
  }
};

}  // namespace detail
}  // namespace baton
