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

// ---- rmw_wait, in the order it runs: look at the filtered subscriptions, fill the WaitSet, block
// (in slices while QoS events need looking at), then leave non-null only what is ready. ----

// The entities of one rmw_wait call as rcl passes them; any of the arrays may be null.
struct Entities {
  rmw_subscriptions_t* subscriptions;
  rmw_guard_conditions_t* guard_conditions;
  rmw_services_t* services;
  rmw_clients_t* clients;
  rmw_events_t* events;
};

size_t event_count(const rmw_events_t* events) {
  return events != nullptr ? events->event_count : 0;
}
const rmw_event_t* event_at(const rmw_events_t* events, size_t i) {
  return static_cast<const rmw_event_t*>(events->events[i]);
}
baton::GuardCondition& guard_of(void* data) {
  return *static_cast<GuardConditionImpl*>(data)->guard;
}

// An event that only a look shows (event_needs_recheck): the wait then goes in slices of
// EVENT_RECHECK, since events have no wake-up word.
bool events_need_recheck(const rmw_events_t* events) {
  for (size_t i = 0; i < event_count(events); ++i)
    if (event_needs_recheck(event_at(events, i)->event_type)) return true;
  return false;
}
// The earliest time at which an event becomes ready by time alone (a deadline or lease; -1: none).
int64_t earliest_event_due_ns(const rmw_events_t* events) {
  int64_t due = -1;
  for (size_t i = 0; i < event_count(events); ++i) {
    const int64_t d = event_due_ns(event_at(events, i));
    if (d >= 0 && (due < 0 || d < due)) due = d;
  }
  return due;
}
bool any_event_ready(const rmw_events_t* events) {
  for (size_t i = 0; i < event_count(events); ++i)
    if (event_ready(event_at(events, i))) return true;
  return false;
}

// Filtered subscriptions, looked at before the wait: samples their filter rejects are dropped now,
// and one that passes makes the wait end at once (it is kept for the take: subscription_ready).
struct FilteredLook {
  bool any = false;    // a filtered subscription is waited on
  bool ready = false;  // one of them has a sample its filter passes
};
FilteredLook look_at_filtered(const rmw_subscriptions_t* subscriptions) {
  FilteredLook look;
  if (subscriptions != nullptr)
    for (size_t i = 0; i < subscriptions->subscriber_count; ++i)
      if (filtered(subscriptions->subscribers[i])) {
        look.any = true;
        // Every one is looked at (no short cut): each drops the samples its filter rejects.
        look.ready = subscription_has_data(subscriptions->subscribers[i]) || look.ready;
      }
  return look;
}

// The WaitSet holds shared references: alias them to the rmw objects (their lifetime is rcl's: an
// entity is not destroyed while a wait on it runs).
template <typename T>
std::shared_ptr<T> no_owner(T* p) {
  return std::shared_ptr<T>(std::shared_ptr<void>(), p);
}

// Adds the wake word of every entity (and the guard condition of its DDS reader, if bridged) and
// the wait set's own shutdown guard, which wakes the wait but is never reported ready. False: more
// entities than futex_waitv takes at once (rmw_wait falls back to poll_wait).
bool fill_wait_set(baton::WaitSet& ws, const Entities& e,
                   const std::shared_ptr<baton::GuardCondition>& shut_down) {
  bool fits = true;
  auto add = [&](baton::Status<baton::WaitSetError> s) { fits = fits && static_cast<bool>(s); };
  if (e.subscriptions != nullptr)
    for (size_t i = 0; i < e.subscriptions->subscriber_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_subscription(e.subscriptions->subscribers[i]))));
      if (auto g = bridge_of_subscription(e.subscriptions->subscribers[i]).wire_guard())  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (e.services != nullptr)
    for (size_t i = 0; i < e.services->service_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_service(e.services->services[i]))));
      if (auto g = wire_wait_guard(wire_of_service(e.services->services[i])))  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (e.clients != nullptr)
    for (size_t i = 0; i < e.clients->client_count && fits; ++i) {
      add(ws.add_subscription(no_owner(queue_of_client(e.clients->clients[i]))));
      if (auto g = wire_wait_guard(wire_of_client(e.clients->clients[i])))  // wire
        add(ws.add_guard_condition(std::move(g)));
    }
  if (e.guard_conditions != nullptr)
    for (size_t i = 0; i < e.guard_conditions->guard_condition_count && fits; ++i)
      add(ws.add_guard_condition(
          static_cast<GuardConditionImpl*>(e.guard_conditions->guard_conditions[i])->guard));
  add(ws.add_guard_condition(shut_down));
  return fits;
}

// Whether an entity is ready to report after the wait: its wake word fired or its DDS reader (wire)
// has data. A filtered subscription only with a sample its filter passes.
bool subscription_ready_after(const baton::WaitResult& r, void* data) {
  return filtered(data) ? subscription_has_data(data)
                        : r.is_ready(*queue_of_subscription(data)) ||
                              bridge_of_subscription(data).wire_has_data();  // wire
}
bool service_ready_after(const baton::WaitResult& r, void* data) {
  return r.is_ready(*queue_of_service(data)) || wire_has_data(wire_of_service(data));  // wire
}
bool client_ready_after(const baton::WaitResult& r, void* data) {
  return r.is_ready(*queue_of_client(data)) || wire_has_data(wire_of_client(data));  // wire
}

// A wake-up for something: any ready entity but a filtered subscription whose samples its filter
// all rejected (they are dropped now; the wait goes on).
bool woke_for_something(const baton::WaitResult& r, const Entities& e,
                        const baton::GuardCondition& shut_down) {
  if (r.is_ready(shut_down)) return true;
  if (e.guard_conditions != nullptr)
    for (size_t i = 0; i < e.guard_conditions->guard_condition_count; ++i)
      if (r.is_ready(guard_of(e.guard_conditions->guard_conditions[i]))) return true;
  if (e.services != nullptr)
    for (size_t i = 0; i < e.services->service_count; ++i)
      if (service_ready_after(r, e.services->services[i])) return true;
  if (e.clients != nullptr)
    for (size_t i = 0; i < e.clients->client_count; ++i)
      if (client_ready_after(r, e.clients->clients[i])) return true;
  if (e.subscriptions != nullptr)
    for (size_t i = 0; i < e.subscriptions->subscriber_count; ++i)
      if (subscription_ready_after(r, e.subscriptions->subscribers[i])) return true;
  return false;
}

// How long the next slice of the wait may block (-1: no limit): not at all once something is
// ready; at most EVENT_RECHECK while events that need a look are waited on; and never past the time
// an event becomes ready by time alone (a deadline or lease has no wake-up word either).
std::chrono::nanoseconds next_slice(int64_t deadline, bool ready_already, bool recheck,
                                    const rmw_events_t* events) {
  const int64_t left =
      deadline < 0 ? -1 : std::max<int64_t>(0, deadline - baton::shm::monotonic_ns());
  if (ready_already) return std::chrono::nanoseconds(0);
  const int64_t every = std::chrono::nanoseconds(EVENT_RECHECK).count();
  std::chrono::nanoseconds slice(left);
  if (recheck) slice = std::chrono::nanoseconds(left < 0 ? every : std::min(left, every));
  if (const int64_t due = earliest_event_due_ns(events); due >= 0) {
    const int64_t until = std::max<int64_t>(0, due - baton::shm::monotonic_ns());
    if (slice.count() < 0 || until < slice.count()) slice = std::chrono::nanoseconds(until);
  }
  return slice;
}

// Blocks on the filled WaitSet until an entity is ready, an event fires or the timeout passes; the
// result is left in impl.result (kind Timeout if only events were waited on). Returns whether an
// event fired.
bool block_until_ready(WaitSetImpl& impl, const Entities& e, std::chrono::nanoseconds timeout,
                       FilteredLook filtered) {
  baton::WaitSet& ws = impl.wait_set;
  baton::WaitResult& r = impl.result;
  r.clear();
  r.kind = baton::WaitResultKind::Timeout;  // stays so if only events are waited on
  const size_t events = event_count(e.events);
  const bool recheck = events_need_recheck(e.events);
  bool event_fired = any_event_ready(e.events);
  const int64_t deadline = timeout.count() < 0 ? -1 : baton::shm::monotonic_ns() + timeout.count();
  auto time_left = [&] { return deadline < 0 || baton::shm::monotonic_ns() < deadline; };
  while (true) {
    const auto slice = next_slice(deadline, event_fired || filtered.ready, recheck, e.events);
    if (ws.size() > 0) {
      ws.wait(slice, r);
    } else if (slice.count() > 0) {
      std::this_thread::sleep_for(slice);  // nothing to wait on but events (or nothing at all)
    }
    // Only this wait set's own guard condition, and no shutdown: the graph changed. Look at the
    // events and wait on for the time left.
    if (!event_fired && r.size() == 1 && r.is_ready(*impl.shut_down) &&
        !impl.shutdown_wake->is_shut_down()) {
      r.clear();
      r.kind = baton::WaitResultKind::Timeout;
      if (any_event_ready(e.events)) event_fired = true;
      if (event_fired || time_left()) continue;
      break;
    }
    if (filtered.any && !filtered.ready && r.ready() &&
        !woke_for_something(r, e, *impl.shut_down)) {
      r.clear();
      r.kind = baton::WaitResultKind::Timeout;
      if (event_fired || time_left()) continue;
      break;
    }
    if (r.ready() || event_fired || filtered.ready) break;
    if (events > 0 && any_event_ready(e.events)) {
      event_fired = true;
      continue;  // one more zero-timeout look, so whatever else is ready is reported too
    }
    if (events == 0 || !time_left()) break;
  }
  return event_fired;
}

// rcl reads the ready entities as the entries left non-null: null the others. Nothing woke the wait
// (or only the shutdown wake did): every entity is nulled and the wait timed out unless an event
// fired.
// Nulls the entries that are not ready (rcl reads the ready ones as those left non-null); whether
// one was kept.
template <typename Ready>
bool keep_ready(void** entries, size_t n, Ready ready) {
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (ready(entries[i])) {
      any = true;
    } else {
      entries[i] = nullptr;
    }
  }
  return any;
}

// What rcl reads after the wait: the entries left non-null. Nothing woke the wait but events (or
// nothing at all): every other entity is nulled without a look, and the wait timed out unless an
// event fired. The shutdown wake alone is no reason to return RMW_RET_OK.
rmw_ret_t report_ready(const baton::WaitResult& r, const Entities& e, bool event_fired,
                       bool filtered_ready) {
  if (e.events != nullptr)
    keep_ready(e.events->events, e.events->event_count,
               [](void* ev) { return event_ready(static_cast<const rmw_event_t*>(ev)); });
  const bool woke = r.ready() || filtered_ready;
  bool any = event_fired;
  if (e.subscriptions != nullptr)
    any = keep_ready(e.subscriptions->subscribers, e.subscriptions->subscriber_count,
                     [&](void* d) { return woke && subscription_ready_after(r, d); }) ||
          any;
  if (e.services != nullptr)
    any = keep_ready(e.services->services, e.services->service_count,
                     [&](void* d) { return woke && service_ready_after(r, d); }) ||
          any;
  if (e.clients != nullptr)
    any = keep_ready(e.clients->clients, e.clients->client_count,
                     [&](void* d) { return woke && client_ready_after(r, d); }) ||
          any;
  if (e.guard_conditions != nullptr)
    any =
        keep_ready(e.guard_conditions->guard_conditions, e.guard_conditions->guard_condition_count,
                   [&](void* d) { return woke && r.is_ready(guard_of(d)); }) ||
        any;
  return any ? RMW_RET_OK : RMW_RET_TIMEOUT;
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
  const Entities entities{subscriptions, guard_conditions, services, clients, events};
  const FilteredLook filtered = look_at_filtered(subscriptions);
  baton::WaitSet& ws = impl->wait_set;
  ws.clear();
  if (!fill_wait_set(ws, entities, impl->shut_down)) {
    ws.clear();
    return poll_wait(subscriptions, guard_conditions, services, clients, events, timeout,
                     *impl->shutdown_wake)
               ? RMW_RET_OK
               : RMW_RET_TIMEOUT;
  }
  const bool event_fired = block_until_ready(*impl, entities, timeout, filtered);
  ws.clear();  // drop the aliases now
  return report_ready(impl->result, entities, event_fired, filtered.ready);
}

}  // extern "C"
