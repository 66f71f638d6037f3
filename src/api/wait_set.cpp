#include "baton/api/wait_set.hpp"

#include <algorithm>

#include "baton/api/client_base.hpp"
#include "baton/api/service_base.hpp"
#include "baton/api/subscription.hpp"
#include "baton/shm/clock.hpp"
#include "baton/shm/futex.hpp"
#include "baton/shm/sleeper_word.hpp"

namespace baton {
namespace {

// Longest single sleep: a publisher appearing bumps the topic epoch but wakes nobody.
constexpr std::int64_t SLICE_NS = 100'000'000;
// Sleep slice when the kernel lacks futex_waitv (before Linux 5.16): poll.
constexpr std::int64_t FALLBACK_SLICE_NS = 1'000'000;

}  // namespace

Status<WaitSetError> WaitSet::add(Kind kind, std::shared_ptr<void> owner, void* entity,
                                  std::atomic<std::uint32_t>* wake,
                                  std::atomic<std::uint32_t>* waiters) {
  if (entity == nullptr) return unexpected(WaitSetError::NullEntity);
  for (const Entry& e : entries_) {
    if (e.entity == entity) return unexpected(WaitSetError::AlreadyAdded);
  }
  if (entries_.size() >= MAX_ENTITIES) return unexpected(WaitSetError::TooManyEntities);
  entries_.push_back(Entry{kind, std::move(owner), entity, wake, waiters});
  return Ok{};
}

Status<WaitSetError> WaitSet::add_subscription(std::shared_ptr<SubscriptionBase> s) {
  if (!s) return unexpected(WaitSetError::NullEntity);
  auto* raw = s.get();
  return add(Kind::Subscription, std::move(s), raw, raw->wake_word(), raw->waiters_word());
}
Status<WaitSetError> WaitSet::add_service(std::shared_ptr<ServiceBase> s) {
  if (!s) return unexpected(WaitSetError::NullEntity);
  auto* raw = s.get();
  return add(Kind::Service, std::move(s), raw, raw->wake_word(), raw->waiters_word());
}
Status<WaitSetError> WaitSet::add_client(std::shared_ptr<ClientBase> c) {
  if (!c) return unexpected(WaitSetError::NullEntity);
  auto* raw = c.get();
  return add(Kind::Client, std::move(c), raw, raw->wake_word(), raw->waiters_word());
}
Status<WaitSetError> WaitSet::add_guard_condition(std::shared_ptr<GuardCondition> g) {
  if (!g) return unexpected(WaitSetError::NullEntity);
  auto* raw = g.get();
  return add(Kind::Guard, std::move(g), raw, raw->wake_word(), raw->waiters_word());
}

bool WaitSet::remove(const void* entity) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [entity](const Entry& e) { return e.entity == entity; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}
bool WaitSet::remove_subscription(const SubscriptionBase& s) { return remove(&s); }
bool WaitSet::remove_service(const ServiceBase& s) { return remove(&s); }
bool WaitSet::remove_client(const ClientBase& c) { return remove(&c); }
bool WaitSet::remove_guard_condition(const GuardCondition& g) { return remove(&g); }

bool WaitSet::collect(WaitResult& r) {
  r.clear();
  for (const Entry& e : entries_) {
    switch (e.kind) {
      case Kind::Subscription: {
        auto* s = static_cast<SubscriptionBase*>(e.entity);
        if (s->has_data()) r.subscriptions.push_back(s);
        break;
      }
      case Kind::Service: {
        auto* s = static_cast<ServiceBase*>(e.entity);
        if (s->has_data()) r.services.push_back(s);
        break;
      }
      case Kind::Client: {
        auto* c = static_cast<ClientBase*>(e.entity);
        if (c->has_data()) r.clients.push_back(c);
        break;
      }
      case Kind::Guard: {
        auto* g = static_cast<GuardCondition*>(e.entity);
        if (g->take_trigger()) r.guard_conditions.push_back(g);
        break;
      }
    }
  }
  r.kind = r.size() != 0 ? WaitResultKind::Ready : WaitResultKind::Timeout;
  return r.kind == WaitResultKind::Ready;
}

void WaitSet::premap_subscriptions() noexcept {
  for (const Entry& e : entries_) {
    if (e.kind == Kind::Subscription)
      static_cast<SubscriptionBase*>(e.entity)->port().premap_connections();
  }
}

WaitResult WaitSet::wait(std::chrono::nanoseconds timeout) {
  WaitResult r;
  wait(timeout, r);
  return r;
}

void WaitSet::wait(std::chrono::nanoseconds timeout, WaitResult& r) {
  if (entries_.empty()) {
    r.clear();
    r.kind = WaitResultKind::Empty;
    return;
  }
  const std::int64_t start = shm::monotonic_ns();
  const std::int64_t deadline = timeout.count() < 0 ? -1 : start + timeout.count();
  if (collect(r) || timeout.count() == 0) return;
  if (options_.wait_mode != WaitMode::Blocking) {
    premap_subscriptions();  // before spinning: a busy-poll wait never reaches wait_blocking
    const std::int64_t spin_until =
        options_.wait_mode == WaitMode::BusyPoll ? deadline : start + options_.spin_time.count();
    for (std::uint32_t i = 1;; ++i) {
      shm::cpu_relax();
      if ((i & 63) != 0) continue;
      if (collect(r)) return;
      const std::int64_t now = shm::monotonic_ns();
      if (deadline >= 0 && now >= deadline) return;  // r.kind is Timeout
      if (spin_until >= 0 && now >= spin_until) break;
    }
  }
  wait_blocking(deadline, r);
}

bool WaitSet::wait_blocking(std::int64_t deadline, WaitResult& r) {
  const std::size_t n = entries_.size();
  words_.resize(n);
  expected_.resize(n);
  for (std::size_t i = 0; i < n; ++i) words_[i] = entries_[i].wake;
  while (true) {
    premap_subscriptions();
    // Sync point "waitset-dekker" (see the header): snapshot + announce, re-check, sleep.
    for (std::size_t i = 0; i < n; ++i) {
      expected_[i] = shm::announce_sleeper(entries_[i].waiters, words_[i]);
    }
    bool ready = collect(r);
    bool timed_out = false;
    if (!ready) {
      std::int64_t slice = SLICE_NS;
      if (deadline >= 0) {
        const std::int64_t left = deadline - shm::monotonic_ns();
        if (left <= 0) timed_out = true;
        slice = std::min(slice, left);
      }
      if (!timed_out) {
        const int rc =
            shm::futex_wait_any(words_.data(), expected_.data(), static_cast<int>(n), slice);
        if (rc == -2) {  // no futex_waitv: poll the first word in short slices
          shm::futex_wait(words_[0], expected_[0], std::min(slice, FALLBACK_SLICE_NS));
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      shm::retract_sleeper(entries_[i].waiters);
    }
    if (ready || collect(r)) return true;
    if (timed_out || (deadline >= 0 && shm::monotonic_ns() >= deadline)) return false;
  }
}

}  // namespace baton
