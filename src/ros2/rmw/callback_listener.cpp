// Listener callbacks: see callback_listener.hpp.
#include "callback_listener.hpp"

#include <rmw/rmw.h>

#include <vector>

#include "baton/common/thread_name.hpp"
#include "event_state.hpp"
#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

namespace {

constexpr rmw_time_t EVENT_RECHECK_TIME{0, static_cast<uint64_t>(EVENT_RECHECK.count()) * 1000000};

rmw_event_t event_handle(void* endpoint, rmw_event_type_t type) {
  rmw_event_t e = rmw_get_zero_initialized_event();
  e.implementation_identifier = IDENTIFIER;
  e.data = endpoint;
  e.event_type = type;
  return e;
}

}  // namespace

CallbackListener::CallbackListener(ContextImpl& context)
    : context_(context), poke_(std::make_unique<GuardConditionImpl>()) {}

CallbackListener::~CallbackListener() { stop(); }

void CallbackListener::ensure_started() {
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] {
    name_this_thread("rmw-callbacks");
    run();
  });
}

void CallbackListener::set_data_callback(ListenKind kind, void* entity,
                                         rmw_event_callback_t callback, const void* user_data) {
  if (callback == nullptr) {
    forget(entity);  // the caller may free user_data once this returns
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  data_[entity] = DataCallback{kind, callback, user_data};
  ensure_started();
  poke();
}

void CallbackListener::set_event_callback(rmw_event_type_t type, void* endpoint,
                                          rmw_event_callback_t callback, const void* user_data) {
  const EventKey key{endpoint, type};
  if (callback == nullptr) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.erase(key);
    }
    std::lock_guard<std::recursive_mutex> pass(pass_);  // no call of it in flight
    return;
  }
  const rmw_event_t e = event_handle(endpoint, type);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_[key] = EventCallback{callback, user_data, event_signature(type, endpoint)};
    ensure_started();
  }
  if (event_ready(&e)) callback(user_data, 1);  // changes not taken yet: told at once
}

void CallbackListener::taken(const void* entity) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = data_.find(const_cast<void*>(entity));
    if (it == data_.end() || !it->second.told) return;
    it->second.told = false;
  }
  poke();
}

void CallbackListener::forget(const void* entity) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    data_.erase(const_cast<void*>(entity));
    std::erase_if(events_, [entity](const auto& kv) { return kv.first.first == entity; });
  }
  poke();                                             // ends a wait that may use it
  std::lock_guard<std::recursive_mutex> pass(pass_);  // and the pass it is in
}

void CallbackListener::poke() { poke_->guard->trigger(); }

void CallbackListener::stop() {
  stopping_ = true;
  poke();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void CallbackListener::run() {
  rmw_context_t context = rmw_get_zero_initialized_context();
  context.implementation_identifier = IDENTIFIER;
  context.impl = reinterpret_cast<rmw_context_impl_t*>(&context_);
  rmw_wait_set_t* wait_set = rmw_create_wait_set(&context, 0);
  if (wait_set == nullptr) return;  // out of memory: no callbacks (error set)
  std::vector<void*> subs, services, clients;
  while (!stopping_) {
    std::lock_guard<std::recursive_mutex> pass(pass_);
    subs.clear(), services.clear(), clients.clear();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [entity, d] : data_) {
        if (d.told) continue;  // until a take re-arms it
        (d.kind == ListenKind::Subscription ? subs
         : d.kind == ListenKind::Service    ? services
                                            : clients)
            .push_back(entity);
      }
    }
    void* poke = poke_.get();
    rmw_subscriptions_t s{subs.size(), subs.data()};
    rmw_services_t v{services.size(), services.data()};
    rmw_clients_t c{clients.size(), clients.data()};
    rmw_guard_conditions_t g{1, &poke};
    (void)rmw_wait(&s, &g, &v, &c, nullptr, wait_set, &EVENT_RECHECK_TIME);
    if (stopping_) break;
    std::vector<std::pair<rmw_event_callback_t, const void*>> calls;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto* list : {&subs, &services, &clients}) {
        for (void* entity : *list) {
          if (entity == nullptr) continue;  // not ready
          auto it = data_.find(entity);
          if (it == data_.end() || it->second.told) continue;  // cleared meanwhile
          it->second.told = true;
          calls.emplace_back(it->second.callback, it->second.user_data);
        }
      }
      for (auto& [key, e] : events_) {
        const uint64_t now = event_signature(key.second, key.first);
        if (now == e.signature) continue;
        e.signature = now;
        calls.emplace_back(e.callback, e.user_data);
      }
    }
    for (auto& [callback, user_data] : calls) callback(user_data, 1);
  }
  (void)rmw_destroy_wait_set(wait_set);
}

}  // namespace baton::ros2::rmw
