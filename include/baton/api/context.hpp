// The root object of a baton process, like rclcpp::Context: it owns the process's view of the
// topics it uses, a janitor thread that reclaims what dead peers held (every `janitor_period`),
// and the shutdown flag executors watch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "baton/api/endpoint_error.hpp"
#include "baton/common/result.hpp"
#include "baton/graph/registry.hpp"
#include "baton/topic/topic.hpp"

namespace baton {

struct ContextOptions {
  // Reclaim dead participants' loans and segments this often (0 disables the janitor thread).
  std::chrono::milliseconds janitor_period{500};
  // Segment permissions: 0600 (this user only, the default) or 0660 (share with the group).
  std::uint32_t segment_mode = 0600;
  // The graph registry this context registers in (graph::RegistryOptions::name); processes see
  // each other's nodes only when they use the same one. Tests use unique names.
  std::string graph_registry = "registry";
};

class Context : public std::enable_shared_from_this<Context> {
 public:
  static std::shared_ptr<Context> create(ContextOptions options = {});
  ~Context();
  Context(const Context&) = delete;

  // The process's handle on a topic, opened or created with type checking.
  Result<std::shared_ptr<topic::Topic>, EndpointError> topic(const std::string& name,
                                                             const topic::TypeInfo& type);

  // Runs every topic's reclaim pass and the graph's, now (the janitor does this periodically).
  std::uint32_t reclaim_dead();

  // The graph registry (discovery), opened on first use, and again by name when the one held
  // was removed (its last participant left). A failure is remembered: discovery is then off for
  // this context (publish / subscribe are unaffected) and every call returns it.
  Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>> graph();
  // This process's participant registration, made on first use (again after fork()); null when
  // the registry is unavailable or full, or was removed under every registration attempt. A
  // registry removed while registering is opened again by name (bounded retries).
  std::shared_ptr<graph::ParticipantHandle> graph_participant();
  // Why the last graph_participant() returned null (empty after a success).
  std::string graph_participant_error();

  void shutdown();
  bool ok() const noexcept { return !shut_down_.load(std::memory_order_acquire); }
  // Called on shutdown (executors register to wake their waits).
  void on_shutdown(std::function<void()> callback);

  const ContextOptions& options() const noexcept { return options_; }

 private:
  explicit Context(ContextOptions options) : options_(options) {}
  void janitor_loop();
  std::uint32_t reclaim_due();
  std::uint32_t reclaim(bool only_due);
  // graph() with graph_mutex_ held.
  Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>> open_graph_locked();

  ContextOptions options_;
  std::atomic<bool> shut_down_{false};
  std::mutex mutex_;
  std::condition_variable janitor_cv_;
  std::map<std::string, std::weak_ptr<topic::Topic>> topics_;
  std::vector<std::function<void()>> shutdown_callbacks_;
  std::mutex graph_mutex_;  // guards the four graph members below
  std::shared_ptr<graph::Registry> graph_;
  std::optional<Error<graph::RegistryOpenError>> graph_error_;
  std::shared_ptr<graph::ParticipantHandle> graph_participant_;
  std::string graph_participant_error_;
  std::thread janitor_;
};

// Resolves a topic name against a node namespace as ROS does: "/abs" stays, "rel" becomes
// "<ns>/rel", "~/x" becomes "<ns>/<node>/x". Returns an empty string for an invalid name.
std::string resolve_topic_name(const std::string& name, const std::string& node_namespace,
                               const std::string& node_name);

}  // namespace baton
