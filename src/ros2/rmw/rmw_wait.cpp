// rmw_baton_cpp: wait sets. rmw_wait fills a baton::WaitSet (one futex_waitv over the wake words
// of every subscription, service request queue, client response queue and guard condition), waits,
// and nulls the entries that are not ready, as rcl expects. QoS events (rmw_event.cpp) have no
// wake-up word: they are checked before the wait and every EVENT_RECHECK (100 ms) during it, only
// when the wait set holds events (rclpy adds them only for callbacks the user asked for); a
// deadline or liveliness lease ends the wait when it is due (event_due_ns), no sooner.
// rmw_shutdown ends every wait of its context, and a wait on a shut-down context does not block
// (shutdown_wake.hpp: rclpy's SIGTERM handling depends on it).
#include <rmw/rmw.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <new>
#include <thread>

#include "baton/shm/clock.hpp"
#include "event_state.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

std::chrono::nanoseconds to_timeout(const rmw_time_t* t) {
  if (t == nullptr) return std::chrono::nanoseconds(-1);
  const uint64_t max_s = static_cast<uint64_t>(INT64_MAX / 1'000'000'000) - 1;
  if (t->sec >= max_s) return std::chrono::nanoseconds(-1);
  return std::chrono::nanoseconds(static_cast<int64_t>(t->sec) * 1'000'000'000 +
                                  static_cast<int64_t>(t->nsec));
}

// The queue an rcl entity waits on: a subscription's own, a service's requests, a client's
// responses.
baton::SubscriptionBase* queue_of_subscription(void* data) {
  return static_cast<SubscriptionImpl*>(data)->subscription.get();
}
// wire: a subscription's bridged-endpoint core, whose DDS reader (if any) is waited on through its
// guard condition.
baton::wire::BridgedReader& bridge_of_subscription(void* data) {
  return *static_cast<SubscriptionImpl*>(data)->bridge;
}
// Has a sample to hand out; with a content filter, one that passes it (subscription_ready drops
// the others, so a wait never wakes for them).
bool subscription_has_data(void* data) {
  return subscription_ready(*static_cast<SubscriptionImpl*>(data));
}
bool filtered(void* data) {
  auto& s = *static_cast<SubscriptionImpl*>(data);
  return s.filter_set.load(std::memory_order_relaxed) ||
         s.has_stash.load(std::memory_order_relaxed);
}
baton::SubscriptionBase* queue_of_service(void* data) {
  return static_cast<ServiceImpl*>(data)->requests.get();
}
baton::SubscriptionBase* queue_of_client(void* data) {
  return static_cast<ClientImpl*>(data)->responses.get();
}
// wire: the DDS readers of services (requests) and clients (replies), as for subscriptions.
ServiceWire* wire_of_service(void* data) { return static_cast<ServiceImpl*>(data)->wire.get(); }
ClientWire* wire_of_client(void* data) { return static_cast<ClientImpl*>(data)->wire.get(); }
bool service_has_data(void* data) {
  return queue_of_service(data)->has_data() || wire_has_data(wire_of_service(data));
}
bool client_has_data(void* data) {
  return queue_of_client(data)->has_data() || wire_has_data(wire_of_client(data));
}

// More entities than futex_waitv takes at once: look, sleep 1 ms, look again, until something is
// ready or the timeout passes (documented in the README; rclpy with a few nodes stays far below).
// Looking does not consume a guard condition's trigger; the final pass does, for the ready ones.
bool poll_wait(rmw_subscriptions_t* subs, rmw_guard_conditions_t* gcs, rmw_services_t* srvs,
               rmw_clients_t* clients, rmw_events_t* events, std::chrono::nanoseconds timeout,
               const ShutdownWake& shutdown) {
  auto scan = [&](bool finish) {
    bool any = false;
    auto visit = [&](void** entries, size_t n, auto ready) {
      for (size_t i = 0; i < n; ++i) {
        if (ready(entries[i])) {
          any = true;
        } else if (finish) {
          entries[i] = nullptr;
        }
      }
    };
    if (subs != nullptr)
      visit(subs->subscribers, subs->subscriber_count,
            [](void* d) { return subscription_has_data(d); });
    if (srvs != nullptr)
      visit(srvs->services, srvs->service_count, [](void* d) { return service_has_data(d); });
    if (clients != nullptr)
      visit(clients->clients, clients->client_count, [](void* d) { return client_has_data(d); });
    if (events != nullptr)
      visit(events->events, events->event_count,
            [](void* e) { return event_ready(static_cast<const rmw_event_t*>(e)); });
    if (gcs != nullptr)
      visit(gcs->guard_conditions, gcs->guard_condition_count, [finish](void* d) {
        auto& g = *static_cast<GuardConditionImpl*>(d)->guard;
        return finish ? g.take_trigger() : g.is_triggered();
      });
    return any;
  };
  const int64_t deadline = timeout.count() < 0 ? -1 : baton::shm::monotonic_ns() + timeout.count();
  while (!scan(false)) {
    if (deadline >= 0 && baton::shm::monotonic_ns() >= deadline) break;
    if (shutdown.is_shut_down()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return scan(true);
}

}  // namespace

extern "C" {

rmw_wait_set_t* rmw_create_wait_set(rmw_context_t* context, size_t max_conditions) {
  (void)max_conditions;  // baton's WaitSet grows as needed
  if (check_handle(context, __func__, "context") != RMW_RET_OK) return nullptr;
  if (context->impl == nullptr) {
    set_error(__func__, "context has no implementation data");
    return nullptr;
  }
  auto* impl = new (std::nothrow) WaitSetImpl();
  auto* ws = new (std::nothrow) rmw_wait_set_t();
  if (impl == nullptr || ws == nullptr) {
    delete impl;
    delete ws;
    set_error(__func__, "out of memory");
    return nullptr;
  }
  impl->shutdown_wake = reinterpret_cast<ContextImpl*>(context->impl)->shutdown_wake;
  impl->shut_down = impl->shutdown_wake->join();
  ws->implementation_identifier = IDENTIFIER;
  ws->guard_conditions = nullptr;
  ws->data = impl;
  return ws;
}

rmw_ret_t rmw_destroy_wait_set(rmw_wait_set_t* wait_set) {
  if (const rmw_ret_t ret = check_handle(wait_set, __func__, "wait set"); ret != RMW_RET_OK)
    return ret;
  auto* impl = static_cast<WaitSetImpl*>(wait_set->data);
  impl->shutdown_wake->leave(impl->shut_down.get());
  delete impl;
  delete wait_set;
  return RMW_RET_OK;
}

rmw_ret_t rmw_wait(rmw_subscriptions_t* subscriptions, rmw_guard_conditions_t* guard_conditions,
                   rmw_services_t* services, rmw_clients_t* clients, rmw_events_t* events,
                   rmw_wait_set_t* wait_set, const rmw_time_t* wait_timeout) {
  if (const rmw_ret_t ret = check_handle(wait_set, __func__, "wait set"); ret != RMW_RET_OK)
    return ret;
  auto* impl = static_cast<WaitSetImpl*>(wait_set->data);
  // Shut down: only look (the context's waits are over, see shutdown_wake.hpp).
  const auto timeout =
      impl->shutdown_wake->is_shut_down() ? std::chrono::nanoseconds(0) : to_timeout(wait_timeout);
  const size_t event_count = events != nullptr ? events->event_count : 0;
  bool recheck = false;  // an event that only a look shows (event_needs_recheck)
  for (size_t i = 0; i < event_count; ++i)
    recheck = recheck ||
              event_needs_recheck(static_cast<const rmw_event_t*>(events->events[i])->event_type);
  // The earliest time at which an event becomes ready by time alone (-1: none).
  auto earliest_due = [&] {
    int64_t due = -1;
    for (size_t i = 0; i < event_count; ++i) {
      const int64_t d = event_due_ns(static_cast<const rmw_event_t*>(events->events[i]));
      if (d >= 0 && (due < 0 || d < due)) due = d;
    }
    return due;
  };
  auto any_event_ready = [&] {
    for (size_t i = 0; i < event_count; ++i)
      if (event_ready(static_cast<const rmw_event_t*>(events->events[i]))) return true;
    return false;
  };

  // Filtered subscriptions: samples their filter rejects are dropped now, and one that passes
  // makes the wait end at once (it is kept for the take: subscription_ready).
  bool any_filtered = false, filtered_ready = false;
  if (subscriptions != nullptr)
    for (size_t i = 0; i < subscriptions->subscriber_count; ++i)
      if (filtered(subscriptions->subscribers[i])) {
        any_filtered = true;
        filtered_ready = subscription_has_data(subscriptions->subscribers[i]) || filtered_ready;
      }

  baton::WaitSet& ws = impl->wait_set;
  ws.clear();
  bool fits = true;
  auto add = [&](baton::Status<baton::WaitSetError> s) { fits = fits && static_cast<bool>(s); };
  // The WaitSet holds shared references: alias them to the rmw objects (their lifetime is
  // rcl's: an entity is not destroyed while a wait on it runs).
  auto no_owner = [](auto* p) {
    return std::shared_ptr<std::remove_pointer_t<decltype(p)>>(std::shared_ptr<void>(), p);
  };
  if (subscriptions != nullptr)
    for (size_t i = 0; i < subscriptions->subscriber_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_subscription(subscriptions->subscribers[i]))));
      if (auto g = bridge_of_subscription(subscriptions->subscribers[i]).wire_guard())  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (services != nullptr)
    for (size_t i = 0; i < services->service_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_service(services->services[i]))));
      if (auto g = wire_wait_guard(wire_of_service(services->services[i])))  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (clients != nullptr)
    for (size_t i = 0; i < clients->client_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_client(clients->clients[i]))));
      if (auto g = wire_wait_guard(wire_of_client(clients->clients[i])))  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (guard_conditions != nullptr)
    for (size_t i = 0; i < guard_conditions->guard_condition_count && fits; ++i)
      add(ws.add_guard_condition(
          static_cast<GuardConditionImpl*>(guard_conditions->guard_conditions[i])->guard));
  add(ws.add_guard_condition(impl->shut_down));  // not rcl's: wakes, never reported ready
  if (!fits) {
    ws.clear();
    return poll_wait(subscriptions, guard_conditions, services, clients, events, timeout,
                     *impl->shutdown_wake)
               ? RMW_RET_OK
               : RMW_RET_TIMEOUT;
  }

  // Wait in slices of EVENT_RECHECK while events that need a look are waited on (not at all if
  // one is ready).
  baton::WaitResult& r = impl->result;
  r.clear();
  r.kind = baton::WaitResultKind::Timeout;  // stays so if only events are waited on
  bool event_fired = any_event_ready();
  // Whether a subscription is ready to report after the wait: a filtered one only with a sample
  // its filter passes.
  auto subscription_ready_now = [&](void* data) {
    return filtered(data) ? subscription_has_data(data)
                          : r.is_ready(*queue_of_subscription(data)) ||
                                bridge_of_subscription(data).wire_has_data();  // wire
  };
  // A wake-up for something: any ready entity but a filtered subscription whose samples its
  // filter all rejected (they are dropped now; the wait goes on).
  auto woke_for_something = [&] {
    if (r.is_ready(*impl->shut_down)) return true;
    if (guard_conditions != nullptr)
      for (size_t i = 0; i < guard_conditions->guard_condition_count; ++i)
        if (r.is_ready(
                *static_cast<GuardConditionImpl*>(guard_conditions->guard_conditions[i])->guard))
          return true;
    if (services != nullptr)
      for (size_t i = 0; i < services->service_count; ++i)
        if (r.is_ready(*queue_of_service(services->services[i])) ||
            wire_has_data(wire_of_service(services->services[i])))
          return true;
    if (clients != nullptr)
      for (size_t i = 0; i < clients->client_count; ++i)
        if (r.is_ready(*queue_of_client(clients->clients[i])) ||
            wire_has_data(wire_of_client(clients->clients[i])))
          return true;
    if (subscriptions != nullptr)
      for (size_t i = 0; i < subscriptions->subscriber_count; ++i)
        if (subscription_ready_now(subscriptions->subscribers[i])) return true;
    return false;
  };
  const int64_t deadline = timeout.count() < 0 ? -1 : baton::shm::monotonic_ns() + timeout.count();
  while (true) {
    const int64_t left =
        deadline < 0 ? -1 : std::max<int64_t>(0, deadline - baton::shm::monotonic_ns());
    const int64_t every = std::chrono::nanoseconds(EVENT_RECHECK).count();
    std::chrono::nanoseconds slice(left);  // the time left (-1: no timeout)
    if (event_fired || filtered_ready) {
      slice = std::chrono::nanoseconds(0);
    } else {
      if (recheck) slice = std::chrono::nanoseconds(left < 0 ? every : std::min(left, every));
      // A deadline or lease due before then: wake when it is (it has no wake-up word either).
      if (const int64_t due = earliest_due(); due >= 0) {
        const int64_t until = std::max<int64_t>(0, due - baton::shm::monotonic_ns());
        if (slice.count() < 0 || until < slice.count()) slice = std::chrono::nanoseconds(until);
      }
    }
    if (ws.size() > 0) {
      ws.wait(slice, r);
    } else if (slice.count() > 0) {
      std::this_thread::sleep_for(slice);  // nothing to wait on but events (or nothing at all)
    }
    // Only this wait set's own guard condition, and no shutdown: the graph changed. Look at the
    // events and wait on for the time left.
    if (!event_fired && r.size() == 1 && r.is_ready(*impl->shut_down) &&
        !impl->shutdown_wake->is_shut_down()) {
      r.clear();
      r.kind = baton::WaitResultKind::Timeout;
      if (any_event_ready()) event_fired = true;
      if (event_fired || deadline < 0 || baton::shm::monotonic_ns() < deadline) continue;
      break;
    }
    if (any_filtered && !filtered_ready && r.ready() && !woke_for_something()) {
      r.clear();
      r.kind = baton::WaitResultKind::Timeout;
      if (event_fired || deadline < 0 || baton::shm::monotonic_ns() < deadline) continue;
      break;
    }
    if (r.ready() || event_fired || filtered_ready) break;
    if (event_count > 0 && any_event_ready()) {
      event_fired = true;
      continue;  // one more zero-timeout look, so whatever else is ready is reported too
    }
    if (event_count == 0 || (deadline >= 0 && baton::shm::monotonic_ns() >= deadline)) break;
  }
  ws.clear();  // drop the aliases now
  for (size_t i = 0; i < event_count; ++i)
    if (!event_ready(static_cast<const rmw_event_t*>(events->events[i])))
      events->events[i] = nullptr;
  if (!r.ready() && !filtered_ready) {
    if (subscriptions != nullptr)
      for (size_t i = 0; i < subscriptions->subscriber_count; ++i)
        subscriptions->subscribers[i] = nullptr;
    if (services != nullptr)
      for (size_t i = 0; i < services->service_count; ++i) services->services[i] = nullptr;
    if (clients != nullptr)
      for (size_t i = 0; i < clients->client_count; ++i) clients->clients[i] = nullptr;
    if (guard_conditions != nullptr)
      for (size_t i = 0; i < guard_conditions->guard_condition_count; ++i)
        guard_conditions->guard_conditions[i] = nullptr;
    return event_fired ? RMW_RET_OK : RMW_RET_TIMEOUT;
  }
  bool any = event_fired;  // stays false if only the shutdown wake fired
  auto keep = [&any](bool ready) {
    any = any || ready;
    return ready;
  };
  if (subscriptions != nullptr)
    for (size_t i = 0; i < subscriptions->subscriber_count; ++i)
      if (!keep(subscription_ready_now(subscriptions->subscribers[i])))
        subscriptions->subscribers[i] = nullptr;
  if (services != nullptr)
    for (size_t i = 0; i < services->service_count; ++i)
      if (!keep(r.is_ready(*queue_of_service(services->services[i])) ||
                wire_has_data(wire_of_service(services->services[i]))))  // wire
        services->services[i] = nullptr;
  if (clients != nullptr)
    for (size_t i = 0; i < clients->client_count; ++i)
      if (!keep(r.is_ready(*queue_of_client(clients->clients[i])) ||
                wire_has_data(wire_of_client(clients->clients[i]))))  // wire
        clients->clients[i] = nullptr;
  if (guard_conditions != nullptr)
    for (size_t i = 0; i < guard_conditions->guard_condition_count; ++i)
      if (!keep(r.is_ready(
              *static_cast<GuardConditionImpl*>(guard_conditions->guard_conditions[i])->guard)))
        guard_conditions->guard_conditions[i] = nullptr;
  return any ? RMW_RET_OK : RMW_RET_TIMEOUT;
}

}  // extern "C"
