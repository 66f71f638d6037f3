// What WaitSet::wait found: the kind of outcome and, when Ready, the entities that are ready.
// Pointers are borrowed from the wait set and valid until it changes or is destroyed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace baton {

class SubscriptionBase;
class ServiceBase;
class ClientBase;
class GuardCondition;

enum class WaitResultKind : std::uint8_t {
  Ready,    // At least one entity is ready.
  Timeout,  // The timeout passed and nothing became ready.
  Empty,    // The wait set holds nothing to wait on; returned at once.
};

constexpr std::string_view to_string(WaitResultKind k) noexcept {
  switch (k) {
    case WaitResultKind::Ready:
      return "ready";
    case WaitResultKind::Timeout:
      return "timeout";
    case WaitResultKind::Empty:
      return "empty";
  }
  return "unknown";
}

struct WaitResult {
  WaitResultKind kind = WaitResultKind::Timeout;
  std::vector<SubscriptionBase*> subscriptions;   // has_data()
  std::vector<ServiceBase*> services;             // a request waits
  std::vector<ClientBase*> clients;               // a response waits
  std::vector<GuardCondition*> guard_conditions;  // triggered (the trigger is now consumed)

  bool ready() const noexcept { return kind == WaitResultKind::Ready; }
  template <typename T>
  static bool contains(const std::vector<T*>& v, const T* e) {
    return std::find(v.begin(), v.end(), e) != v.end();
  }
  bool is_ready(const SubscriptionBase& s) const { return contains(subscriptions, &s); }
  bool is_ready(const ServiceBase& s) const { return contains(services, &s); }
  bool is_ready(const ClientBase& c) const { return contains(clients, &c); }
  bool is_ready(const GuardCondition& g) const { return contains(guard_conditions, &g); }
  std::size_t size() const noexcept {
    return subscriptions.size() + services.size() + clients.size() + guard_conditions.size();
  }
  void clear() noexcept {
    subscriptions.clear();
    services.clear();
    clients.clear();
    guard_conditions.clear();
  }
};

}  // namespace baton
