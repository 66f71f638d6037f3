// The thread behind rmw's listener callbacks (rmw_subscription_set_on_new_message_callback,
// rmw_service_set_on_new_request_callback, rmw_client_set_on_new_response_callback,
// rmw_event_set_callback), which rclcpp's events executor runs on instead of rmw_wait.
//
// One thread per context, started by the first callback set. It waits in rmw_wait (the same
// futex_waitv over wake words that rcl's waits use) on the subscriptions, services and clients
// that have a callback and have not been told about their current data yet, plus a guard
// condition of its own (poke) and a 100 ms recheck for QoS events, which have no wake-up word.
//   - Data: an entity with data is told once, with number_of_events 1, then not waited on until
//     a take on it (taken()) re-arms it; if data is still there the listener tells it again. So
//     each take of a one-per-callback executor is followed by a callback while data remains,
//     and the listener never spins on data nobody has taken yet. (baton's ring has no count of
//     unread messages to pass instead.)
//   - Events: told once per change of the event's state (event_signature), whether or not the
//     last change was taken, as DDS listeners are; a change already there when the callback is
//     set is told at once, from the setting thread.
// Callbacks run on the listener thread with no rmw lock held except the iteration lock, which
// forget() takes so that an endpoint is never used, nor its callback called, after its destroy.
#pragma once

#include <rmw/event.h>
#include <rmw/event_callback_type.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace baton::ros2::rmw {

struct ContextImpl;
struct GuardConditionImpl;

enum class ListenKind { Subscription, Service, Client };

class CallbackListener {
 public:
  explicit CallbackListener(ContextImpl& context);
  ~CallbackListener();
  CallbackListener(const CallbackListener&) = delete;
  CallbackListener& operator=(const CallbackListener&) = delete;

  // Sets (non-null `callback`) or clears the new-data callback of `entity` (its impl).
  void set_data_callback(ListenKind kind, void* entity, rmw_event_callback_t callback,
                         const void* user_data);
  // Sets or clears the callback of the event of `type` on the endpoint impl `endpoint`.
  void set_event_callback(rmw_event_type_t type, void* endpoint, rmw_event_callback_t callback,
                          const void* user_data);
  // A take on `entity` happened: it may be told about its data again.
  void taken(const void* entity);
  // Drops every callback of `entity` (about to be destroyed); returns once no callback of it
  // runs and the listener no longer uses it.
  void forget(const void* entity);
  // Something changed in this process (an endpoint came or went): look at the events now.
  void poke();
  // Ends the thread (rmw_shutdown); callbacks set afterwards are never called.
  void stop();

 private:
  struct DataCallback {
    ListenKind kind;
    rmw_event_callback_t callback;
    const void* user_data;
    bool told = false;  // about the data it has now; cleared by taken()
  };
  struct EventCallback {
    rmw_event_callback_t callback;
    const void* user_data;
    uint64_t signature;  // event_signature as last told
  };
  using EventKey = std::pair<void*, rmw_event_type_t>;

  void run();
  void ensure_started();  // under mutex_

  ContextImpl& context_;
  std::unique_ptr<GuardConditionImpl> poke_;
  std::mutex mutex_;           // the registrations
  std::recursive_mutex pass_;  // held by the thread for one wait + callbacks pass
  std::map<void*, DataCallback> data_;
  std::map<EventKey, EventCallback> events_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace baton::ros2::rmw
