#include "baton/api/context.hpp"

#include <pthread.h>
#include <signal.h>

#include <cctype>

#include "baton/common/thread_name.hpp"
#include "baton/shm/participant.hpp"

namespace baton {

std::shared_ptr<Context> Context::create(ContextOptions options) {
  std::shared_ptr<Context> ctx(new Context(options));
  if (options.janitor_period.count() > 0) {
    // The janitor holds a weak reference only, so dropping the last Context stops it.
    // The janitor blocks every signal, so SIGINT / SIGTERM reach the application's threads.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    ctx->janitor_ = std::thread([raw = ctx.get()] {
      name_this_thread("baton-janitor");
      raw->janitor_loop();
    });
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }
  return ctx;
}

Context::~Context() {
  shutdown();
  if (janitor_.joinable()) janitor_.join();
}

void Context::janitor_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (ok()) {
    janitor_cv_.wait_for(lock, options_.janitor_period);
    if (!ok()) break;
    lock.unlock();
    reclaim_due();
    lock.lock();
  }
}

std::uint32_t Context::reclaim_dead() { return reclaim(false); }

// The janitor's pass: a topic or registry on which any process's janitor ran one within the
// last half period is skipped (reclaim_dead_if_due, shm/periodic_turn.hpp).
std::uint32_t Context::reclaim_due() { return reclaim(true); }

std::uint32_t Context::reclaim(bool only_due) {
  std::vector<std::shared_ptr<topic::Topic>> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = topics_.begin(); it != topics_.end();) {
      if (auto t = it->second.lock()) {
        live.push_back(std::move(t));
        ++it;
      } else {
        it = topics_.erase(it);
      }
    }
  }
  std::uint32_t n = 0;
  for (auto& t : live) {
    n += only_due ? t->reclaim_dead_if_due(options_.janitor_period) : t->reclaim_dead();
  }
  std::shared_ptr<graph::Registry> registry;
  {
    std::lock_guard<std::mutex> lock(graph_mutex_);
    registry = graph_;
  }
  if (registry) {
    n += only_due ? registry->reclaim_dead_if_due(options_.janitor_period)
                  : registry->reclaim_dead();
  }
  return n;
}

Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>> Context::graph() {
  std::lock_guard<std::mutex> lock(graph_mutex_);
  return open_graph_locked();
}

Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>>
Context::open_graph_locked() {
  // A registry removed since (its last participant left, and this context has none in it) shows
  // an empty graph: open the one now under the name, as a new participant would.
  if (graph_ && graph_->is_open()) return graph_;
  if (graph_error_) return unexpected(*graph_error_);
  graph::RegistryOptions opts;
  opts.name = options_.graph_registry;
  opts.segment_mode = options_.segment_mode;
  auto r = graph::Registry::open_or_create(opts);
  if (!r) {
    graph_error_ = r.error();
    return unexpected(r.error());
  }
  graph_ = *r;
  return graph_;
}

std::shared_ptr<graph::ParticipantHandle> Context::graph_participant() {
  std::lock_guard<std::mutex> lock(graph_mutex_);
  // After fork() the inherited registration is the parent's: register the child anew.
  if (graph_participant_ && graph_participant_->pid() == shm::self().pid &&
      graph_participant_->registered()) {
    return graph_participant_;
  }
  graph_participant_.reset();  // perhaps the last participant: its registry may go with it
  // Each round means the registry was removed between our open and our claim (its last
  // participant elsewhere left); a new registry needs a new last-one-leaves race, so rounds are
  // rare and a few suffice.
  for (int round = 0; round < 100; ++round) {
    auto registry = open_graph_locked();
    if (!registry) {
      graph_participant_error_ = registry.error().detail;
      return nullptr;
    }
    auto p = (*registry)->register_participant();
    if (p) {
      graph_participant_ = *p;
      graph_participant_error_.clear();
      return graph_participant_;
    }
    graph_participant_error_ = p.error().detail;
    if (p.error().code != graph::RegisterError::Closed) return nullptr;
  }
  graph_participant_error_ +=
      " (100 times in a row: participants come and go too fast in this namespace; retry)";
  return nullptr;
}

std::string Context::graph_participant_error() {
  std::lock_guard<std::mutex> lock(graph_mutex_);
  return graph_participant_error_;
}

Result<std::shared_ptr<topic::Topic>, EndpointError> Context::topic(const std::string& name,
                                                                    const topic::TypeInfo& type) {
  if (!ok()) {
    return unexpected(EndpointError{EndpointCreateError::ContextShutDown, "context was shut down"});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = topics_.find(name);
  if (it != topics_.end()) {
    auto t = it->second.lock();
    // A cached handle whose directory was removed since (no endpoint of ours was left on it, and
    // none elsewhere) cannot take endpoints any more: open the topic anew below.
    if (t && !t->is_open()) t.reset();
    if (t) {
      if (t->type() == type) return t;
      return unexpected(EndpointError{EndpointCreateError::TypeMismatch,
                                      "topic '" + name + "' is used in this process with type '" +
                                          t->type().name + "', this endpoint uses '" + type.name +
                                          "'"});
    }
  }
  topic::TopicOptions opts;
  opts.segment_mode = options_.segment_mode;
  auto t = topic::Topic::open_or_create(name, type, opts);
  if (!t) return unexpected(EndpointError{to_endpoint_error(t.error().code), t.error().detail});
  topics_[name] = *t;
  return *t;
}

void Context::shutdown() {
  if (shut_down_.exchange(true)) return;
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    callbacks.swap(shutdown_callbacks_);
  }
  janitor_cv_.notify_all();
  for (auto& cb : callbacks) cb();
}

void Context::on_shutdown(std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  shutdown_callbacks_.push_back(std::move(callback));
}

std::string resolve_topic_name(const std::string& name, const std::string& node_namespace,
                               const std::string& node_name) {
  if (name.empty()) return {};
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '~')) {
      return {};
    }
  }
  std::string ns = node_namespace.empty() ? "/" : node_namespace;
  if (ns.front() != '/') ns = "/" + ns;
  if (ns.size() > 1 && ns.back() == '/') ns.pop_back();
  std::string out;
  if (name.front() == '/') {
    out = name;
  } else if (name.rfind("~/", 0) == 0) {
    out = (ns == "/" ? "" : ns) + "/" + node_name + name.substr(1);
  } else if (name == "~") {
    out = (ns == "/" ? "" : ns) + "/" + node_name;
  } else {
    out = (ns == "/" ? "" : ns) + "/" + name;
  }
  if (out.find("//") != std::string::npos || (out.size() > 1 && out.back() == '/') ||
      out.find('~') != std::string::npos) {
    return {};
  }
  return out;
}

}  // namespace baton
