// Internal types of rmw_baton_cpp: what the `data` / `impl` pointer of each rmw handle points to,
// and the checks every entry point starts with. Not installed.
//
// Object model: one baton::Context per rmw context (one graph participant, one janitor); one
// baton::Node per rmw node (listed in baton's graph registry); publishers, subscriptions and the
// request / response topics of services and clients are baton ports on topics named as in ROS
// ("/chatter", "/add_two_ints/_request"), carrying the message as CDR (what rmw_serialize
// produces), so a message crosses shared memory with one encode and one decode and no socket.
#pragma once

#include <rmw/error_handling.h>
#include <rmw/rmw.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../rpc_shm.hpp"
#include "baton/api/context.hpp"
#include "baton/api/guard_condition.hpp"
#include "baton/api/node.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/subscription.hpp"
#include "baton/api/wait_set.hpp"
#include "callback_listener.hpp"
#include "content_filter.hpp"
#include "event_state.hpp"
#include "loan_table.hpp"
#include "qos_map.hpp"
#include "qos_peers.hpp"
#include "rmw_service_wire.hpp"
#include "rmw_wire.hpp"
#include "shutdown_wake.hpp"
#include "type_support.hpp"

namespace baton::ros2::rmw {

// The identifier rcl compares against RMW_IMPLEMENTATION (by string) and every handle carries
// (by pointer).
extern const char* const IDENTIFIER;

// Sets the rmw error state to "<function>: <what>" (rcl prints it).
void set_error(const char* function, const std::string& what);

// RMW_RET_OK if the argument `what` is non-null; otherwise RMW_RET_INVALID_ARGUMENT with the error
// "<function>: <what> is null".
inline rmw_ret_t check_argument(const void* argument, const char* function, const char* what) {
  if (argument != nullptr) return RMW_RET_OK;
  set_error(function, std::string(what) + " is null");
  return RMW_RET_INVALID_ARGUMENT;
}

// What the rmw headers document for a handle argument: RMW_RET_OK if `handle` is non-null and
// was made by this implementation; RMW_RET_INVALID_ARGUMENT if it is null and
// RMW_RET_INCORRECT_RMW_IMPLEMENTATION if another implementation made it, with the error set
// ("<function>: <what> is null" / "... belongs to another rmw implementation (<its id>)").
template <typename Handle>
rmw_ret_t check_handle(const Handle* handle, const char* function, const char* what) {
  if (handle == nullptr) return check_argument(handle, function, what);
  if (handle->implementation_identifier != IDENTIFIER) {
    set_error(function,
              std::string(what) + " belongs to another rmw implementation (" +
                  (handle->implementation_identifier != nullptr ? handle->implementation_identifier
                                                                : "none") +
                  ")");
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION;
  }
  return RMW_RET_OK;
}

// A handle's implementation data (`data`) once check_handle accepted the handle; otherwise null,
// with `ret` the code to return. `if (!p) return p.ret;` then `p->...`.
template <typename Impl>
struct Checked {
  Impl* impl = nullptr;
  rmw_ret_t ret = RMW_RET_INVALID_ARGUMENT;
  explicit operator bool() const { return impl != nullptr; }
  Impl* operator->() const { return impl; }
  Impl& operator*() const { return *impl; }
};

template <typename Impl, typename Handle>
Checked<Impl> checked_impl(const Handle* handle, const char* function, const char* what) {
  const rmw_ret_t ret = check_handle(handle, function, what);
  if (ret != RMW_RET_OK) return {nullptr, ret};
  return {static_cast<Impl*>(handle->data), RMW_RET_OK};
}

// The name checks the rmw headers document (rmw_validate_full_topic_name,
// rmw_validate_node_name, rmw_validate_namespace): RMW_RET_OK, or RMW_RET_INVALID_ARGUMENT with
// the error set to "<function>: <what> '<name>' is invalid: <why> (at index <i>)". A null
// name is invalid too.
rmw_ret_t check_topic_name(const char* name, const char* function, const char* what);
rmw_ret_t check_node_name(const char* name, const char* function, const char* what);
rmw_ret_t check_namespace(const char* namespace_, const char* function, const char* what);

// A string rcl will read as `const char*` for the handle's lifetime.
char* copy_string(const std::string& s);

struct NodeImpl;
struct ServiceImpl;

struct ContextImpl {
  ~ContextImpl();
  std::shared_ptr<baton::Context> context;
  // Nodes of this context, whose graph guard conditions the watcher triggers.
  std::mutex mutex;
  std::vector<NodeImpl*> nodes;
  // Graph watcher: triggers every node's graph guard condition when baton's graph registry
  // changes (its epoch moves). Polls: the registry has no wake-up word.
  std::thread watcher;
  std::condition_variable stop_cv;
  bool stopping = false;
  bool shut_down = false;
  // Nodes destroyed while services or clients of theirs were still alive (rclpy leaks a node's
  // get_type_description service: it is never destroyed). Kept until the context is finalized,
  // which then releases those endpoints' shared memory (release_orphans), so their topics do not
  // outlive the process in /dev/shm.
  std::vector<std::unique_ptr<NodeImpl>> orphans;
  std::shared_ptr<ContextWire> wire;  // wire: the DDS participant (null: shared memory only)
  // Wakes the context's waits on rmw_shutdown; shared with its wait sets, which may outlive it.
  std::shared_ptr<ShutdownWake> shutdown_wake = std::make_shared<ShutdownWake>();

  // The gids of this context's publishers, for subscriptions with ignore_local_publications
  // ("local" is "in the same context", rmw/types.h).
  std::mutex publishers_mutex;
  std::set<std::array<uint8_t, RMW_GID_STORAGE_SIZE>> publishers;

  // Listener callbacks (callback_listener.hpp): made by the first callback set, stopped by
  // rmw_shutdown. `listener` is null until then, so takes of a context without callbacks pay one
  // atomic load.
  std::mutex listener_mutex;
  std::unique_ptr<CallbackListener> listener_owner;
  std::atomic<CallbackListener*> listener{nullptr};
  CallbackListener& callbacks();  // made if need be

  void add_publisher(const rmw_gid_t& gid);
  void remove_publisher(const rmw_gid_t& gid);
  bool has_publisher(const uint8_t* gid_data);
  void release_orphans();
  void start_watcher();
  void stop_watcher();
  void trigger_graph_guards();
};

// What rmw_guard_condition_t::data points to (rcl hands `data` to rmw_wait), for guard conditions
// made by rmw_create_guard_condition and for the graph guard condition a node owns alike.
struct GuardConditionImpl {
  std::shared_ptr<baton::GuardCondition> guard = std::make_shared<baton::GuardCondition>();
};

struct NodeImpl {
  ContextImpl* context = nullptr;
  std::unique_ptr<baton::Node> node;
  GuardConditionImpl graph_guard;
  rmw_guard_condition_t graph_guard_handle{};
  // Services and clients alive on this node, each with what releases its shared memory should it
  // outlive the node (a client-library leak, see ContextImpl::orphans): `leave_graph` runs when
  // the node is destroyed, `release` when the context is finalized.
  struct Leakable {
    std::function<void()> leave_graph;
    std::function<void()> release;
  };
  std::mutex services_mutex;
  std::unordered_map<const void*, Leakable> services;  // by ServiceImpl* / ClientImpl*
  std::shared_ptr<NodeWire> wire;                      // wire: listed in ros_discovery_info
};

struct PublisherImpl {
  NodeImpl* node = nullptr;
  MessageType type;
  MappedQos qos;
  std::mutex mutex;  // a baton publisher is used by one thread at a time
  baton::RawPublisher publisher;
  std::shared_ptr<void> graph_handle;
  rmw_gid_t gid{};
  // wire: the DDS writer + the exactly-once policy (src/wire/bridged_topic.hpp; null: shm only)
  std::unique_ptr<baton::wire::BridgedWriter> wire;
  std::unique_ptr<QosPeers> qos_peers;  // subscriptions it must not match (incompatible QoS)
  EndpointEvents events;                // rmw_event.cpp
  PublisherLoans loans;                 // under `mutex`; destroyed first (they use `publisher`)
};

struct SubscriptionImpl {
  NodeImpl* node = nullptr;
  MessageType type;
  MappedQos qos;
  std::mutex mutex;  // a subscriber port is read by one thread at a time
  std::shared_ptr<baton::RawSubscription> subscription;
  std::shared_ptr<void> graph_handle;
  uint64_t topic_key = 0;  // part of the publisher gids it reports (see gid.hpp)
  // `subscription` + wire: its DDS reader (none: shared memory only) + the exactly-once policy
  // (src/wire/bridged_topic.hpp); takes and waits go through it.
  std::unique_ptr<baton::wire::BridgedReader> bridge;
  bool ignore_local =
      false;  // ignore_local_publications: drop samples of `node->context`'s publishers
  std::unique_ptr<QosPeers> qos_peers;  // publishers it must not match: their samples are dropped
  // The content filter (rmw_content_filter.cpp), null when none; under `mutex` (`filter_set`
  // mirrors it for rmw_wait). Samples it rejects are taken and dropped before anything is decoded.
  std::shared_ptr<const ContentFilter> filter;
  std::atomic<bool> filter_set{false};
  EndpointEvents events;    // rmw_event.cpp
  SubscriptionLoans loans;  // under `mutex`; destroyed first (samples of `subscription`)
  // The sample that passed the filter when rmw_wait looked (subscription_ready), kept for the next
  // take; under `mutex` (`has_stash` mirrors it). Destroyed before `subscription`.
  std::optional<baton::RawSample> stashed_sample;
  std::optional<std::vector<uint8_t>> stashed_wire;  // wire: a DDS sample
  std::atomic<bool> has_stash{false};
};

// Whether the subscription has a sample to hand out. With a content filter this takes and drops
// the samples the filter rejects, and keeps the first one it passes for the next take, so rmw_wait
// wakes for matching samples only (DDS: a filtered-out sample never reaches the reader). Without
// one: whether samples wait in shared memory or on the wire. (rmw_subscription.cpp)
bool subscription_ready(SubscriptionImpl& s);

// Parses `options` into `s.filter` (an empty expression removes it). A null expression or
// parameter is RMW_RET_INVALID_ARGUMENT; a bad expression RMW_RET_ERROR with the error
// "<function>: content filter '<expression>' on <type>: <why>"; either way the filter in place
// stays. Locks s.mutex. (rmw_content_filter.cpp)
rmw_ret_t set_content_filter(SubscriptionImpl& s,
                             const rmw_subscription_content_filter_options_t& options,
                             const char* function);

struct ServiceImpl {
  NodeImpl* node = nullptr;
  ServiceType type;
  MappedQos qos;
  std::mutex mutex;  // one request taken / one response sent at a time
  std::shared_ptr<baton::RawSubscription> requests;
  // One response publisher per client, made when the first response to it is sent.
  baton::ros2::detail::ShmResponders responders;
  std::shared_ptr<void> graph_handle;
  std::string name;                   // wire: the service name, for log lines
  std::shared_ptr<ServiceWire> wire;  // wire: rq reader + rr writer (null: shared memory only)
};

struct ClientImpl {
  NodeImpl* node = nullptr;
  ServiceType type;
  MappedQos qos;
  uint64_t id = 0;  // baton client id: pid << 32 | counter; the writer_guid of its requests
  std::atomic<int64_t> next_sequence{1};
  std::mutex publish_mutex;
  baton::RawPublisher requests;
  std::mutex take_mutex;
  std::shared_ptr<baton::RawSubscription> responses;
  std::shared_ptr<void> graph_handle;
  rmw_gid_t gid{};
  std::string name;                  // wire: the service name, for log lines
  std::shared_ptr<ClientWire> wire;  // wire: rq writer + rr reader (null: shared memory only)
};

struct WaitSetImpl {
  baton::WaitSet wait_set;
  baton::WaitResult result;
  std::shared_ptr<ShutdownWake> shutdown_wake;       // the context's
  std::shared_ptr<baton::GuardCondition> shut_down;  // this wait set's, raised by rmw_shutdown
};

// The start of every rmw_create_{publisher,subscription,service,client}: checks the node and the
// arguments, resolves the type support, maps the QoS. Null (error set) on failure.
inline Result<MessageType, std::string> resolve_type(const rosidl_message_type_support_t* ts) {
  return resolve_message_type(ts);
}
inline Result<ServiceType, std::string> resolve_type(const rosidl_service_type_support_t* ts) {
  return resolve_service_type(ts);
}
template <typename Impl, typename TypeSupport>
std::unique_ptr<Impl> new_endpoint(const rmw_node_t* node, const TypeSupport* type_support,
                                   const char* name, const rmw_qos_profile_t* qos,
                                   const char* function) {
  if (check_handle(node, function, "node") != RMW_RET_OK) return nullptr;
  if (name == nullptr || qos == nullptr) {
    set_error(function, name == nullptr ? "topic / service name is null" : "QoS profile is null");
    return nullptr;
  }
  // Names follow ROS conventions unless the QoS opts out (a native DDS topic).
  if (!qos->avoid_ros_namespace_conventions &&
      check_topic_name(name, function, "topic / service name") != RMW_RET_OK)
    return nullptr;
  if (const char* policy = unknown_qos_policy(*qos)) {
    set_error(function, std::string(name) + ": the QoS " + policy +
                            " policy is UNKNOWN or not a value rmw defines");
    return nullptr;
  }
  auto type = resolve_type(type_support);
  if (!type) {
    set_error(function, std::string(name) + ": " + type.error());
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->node = static_cast<NodeImpl*>(node->data);
  impl->type = std::move(*type);
  impl->qos = map_qos(*qos);
  return impl;
}

// The end of every rmw_create_*: a handle that owns `impl` (in `data`) and a copy of `name` (in
// `name_field`); graph guard conditions raised. Null (error set) when out of memory.
template <typename Handle, typename Impl>
Handle* new_handle(std::unique_ptr<Impl> impl, const char* Handle::*name_field, const char* name,
                   const char* function) {
  auto* handle = new (std::nothrow) Handle();
  if (handle == nullptr) {
    set_error(function, "out of memory");
    return nullptr;
  }
  ContextImpl* context = impl->node->context;
  handle->implementation_identifier = IDENTIFIER;
  handle->data = impl.release();
  handle->*name_field = copy_string(name);
  context->trigger_graph_guards();
  // Matched events of this context's endpoints change now: their listener callbacks need not
  // wait for the next recheck.
  if (CallbackListener* l = context->listener.load(std::memory_order_acquire)) l->poke();
  return handle;
}

// The end of every rmw_destroy_*: frees what new_handle made; graph guard conditions raised.
template <typename Handle, typename Impl>
void delete_handle(Handle* handle, Impl* impl, const char* Handle::*name_field) {
  ContextImpl* context = impl->node->context;
  if (CallbackListener* l = context->listener.load(std::memory_order_acquire)) l->forget(impl);
  delete impl;
  delete[](handle->*name_field);
  delete handle;
  context->trigger_graph_guards();
  if (CallbackListener* l = context->listener.load(std::memory_order_acquire)) l->poke();
}

// Made before a take on `entity` (a SubscriptionImpl, ServiceImpl or ClientImpl) locks it: once
// the take is over, its listener callback may be told about its data again.
struct RearmAfterTake {
  ContextImpl& context;
  const void* entity;
  ~RearmAfterTake() {
    if (CallbackListener* l = context.listener.load(std::memory_order_acquire)) l->taken(entity);
  }
};

}  // namespace baton::ros2::rmw
