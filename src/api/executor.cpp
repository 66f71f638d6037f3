#include "baton/api/executor.hpp"

#include <algorithm>
#include <thread>

#include "baton/api/client_base.hpp"
#include "baton/api/service_base.hpp"
#include "baton/api/subscription.hpp"

namespace baton {
namespace {

template <typename T>
Status<ExecutorError> add_unique(std::vector<std::shared_ptr<T>>& list, std::shared_ptr<T> e) {
  if (!e) return unexpected(ExecutorError::NullEntity);
  if (std::find(list.begin(), list.end(), e) != list.end()) {
    return unexpected(ExecutorError::AlreadyAdded);
  }
  list.push_back(std::move(e));
  return Ok{};
}

template <typename T>
bool remove_from(std::vector<std::shared_ptr<T>>& list, const T& e) {
  return std::erase_if(list, [&e](const std::shared_ptr<T>& p) { return p.get() == &e; }) != 0;
}

}  // namespace

Executor::Executor(std::shared_ptr<Context> context, ExecutorOptions options)
    : context_(std::move(context)),
      wait_set_(WaitSetOptions{options.wait_mode, options.spin_time}) {
  // The context keeps this callback for its lifetime: hold the guard weakly.
  context_->on_shutdown([guard = std::weak_ptr<GuardCondition>(interrupt_)] {
    if (auto g = guard.lock()) g->trigger();
  });
}

Executor::~Executor() {
  std::lock_guard<std::mutex> lock(state_mutex_);
  for (auto& n : nodes_) n->in_executor.store(false, std::memory_order_release);
}

Status<ExecutorError> Executor::add_node(Node& node) {
  const auto& entities = node.entities();
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (std::find(nodes_.begin(), nodes_.end(), entities) != nodes_.end()) {
      return unexpected(ExecutorError::AlreadyAdded);
    }
    if (entities->in_executor.exchange(true, std::memory_order_acq_rel)) {
      return unexpected(ExecutorError::NodeInAnotherExecutor);
    }
    nodes_.push_back(entities);
  }
  interrupt_->trigger();
  return Ok{};
}

bool Executor::remove_node(Node& node) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  const auto& entities = node.entities();
  if (std::erase(nodes_, entities) == 0) return false;
  entities->in_executor.store(false, std::memory_order_release);
  return true;
}

Status<ExecutorError> Executor::add_subscription(std::shared_ptr<SubscriptionBase> s) {
  Status<ExecutorError> r;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    r = add_unique(subscriptions_, std::move(s));
  }
  if (r) interrupt_->trigger();
  return r;
}
Status<ExecutorError> Executor::add_service(std::shared_ptr<ServiceBase> s) {
  Status<ExecutorError> r;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    r = add_unique(services_, std::move(s));
  }
  if (r) interrupt_->trigger();
  return r;
}
Status<ExecutorError> Executor::add_client(std::shared_ptr<ClientBase> c) {
  Status<ExecutorError> r;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    r = add_unique(clients_, std::move(c));
  }
  if (r) interrupt_->trigger();
  return r;
}
bool Executor::remove_subscription(const SubscriptionBase& s) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return remove_from(subscriptions_, s);
}
bool Executor::remove_service(const ServiceBase& s) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return remove_from(services_, s);
}
bool Executor::remove_client(const ClientBase& c) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return remove_from(clients_, c);
}

void Executor::cancel() {
  spinning_.store(false, std::memory_order_release);
  interrupt_->trigger();
}

void Executor::rebuild_wait_set() {
  wait_set_.clear();
  candidates_.clear();
  // Guards first, so the entity limit never crowds them out.
  (void)wait_set_.add_guard_condition(interrupt_);
  std::vector<std::shared_ptr<GuardCondition>> node_guards;
  std::lock_guard<std::mutex> lock(state_mutex_);
  const auto usable = [this](const void* e) { return in_use_.count(e) == 0; };
  const auto add_sub = [&](std::shared_ptr<SubscriptionBase> s) {
    if (!s || !s->has_callback() || !usable(s.get())) return;
    void* raw = s.get();
    if (wait_set_.add_subscription(s))
      candidates_.push_back({Kind::Subscription, std::move(s), raw});
  };
  const auto add_srv = [&](std::shared_ptr<ServiceBase> s) {
    if (!s || !usable(s.get())) return;
    void* raw = s.get();
    if (wait_set_.add_service(s)) candidates_.push_back({Kind::Service, std::move(s), raw});
  };
  const auto add_cli = [&](std::shared_ptr<ClientBase> c) {
    if (!c || !usable(c.get())) return;
    void* raw = c.get();
    if (wait_set_.add_client(c)) candidates_.push_back({Kind::Client, std::move(c), raw});
  };
  for (auto& n : nodes_) (void)wait_set_.add_guard_condition(n->changed);
  for (auto& n : nodes_) {
    std::lock_guard<std::mutex> node_lock(n->mutex);
    for (auto& w : n->subscriptions) add_sub(w.lock());
    for (auto& w : n->services) add_srv(w.lock());
    for (auto& w : n->clients) add_cli(w.lock());
  }
  for (auto& s : subscriptions_) add_sub(s);
  for (auto& s : services_) add_srv(s);
  for (auto& c : clients_) add_cli(c);
}

bool Executor::pop_ready(Work& out) {
  while (!ready_.empty()) {
    Work w = std::move(ready_.front());
    ready_.pop_front();
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (in_use_.insert(w.entity).second) {
      out = std::move(w);
      return true;
    }
  }
  return false;
}

void Executor::queue_ready() {
  if (!result_.ready()) return;
  for (const Work& c : candidates_) {
    bool ready = false;
    switch (c.kind) {
      case Kind::Subscription:
        ready = result_.is_ready(*static_cast<const SubscriptionBase*>(c.entity));
        break;
      case Kind::Service:
        ready = result_.is_ready(*static_cast<const ServiceBase*>(c.entity));
        break;
      case Kind::Client:
        ready = result_.is_ready(*static_cast<const ClientBase*>(c.entity));
        break;
    }
    if (ready) ready_.push_back(c);
  }
}

bool Executor::wait_for_work(std::chrono::nanoseconds timeout, Work& out) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + timeout;
  std::lock_guard<std::mutex> lock(wait_mutex_);
  while (keep_spinning()) {
    if (pop_ready(out)) return true;
    rebuild_wait_set();
    nanoseconds left = timeout;
    if (timeout.count() > 0) {
      left = std::max(nanoseconds(0), duration_cast<nanoseconds>(deadline - steady_clock::now()));
    }
    wait_set_.wait(left, result_);
    queue_ready();
    if (pop_ready(out)) return true;
    // Only guards fired (shutdown, cancel, a new entity, a released one): look again, unless the
    // time is up.
    if (timeout.count() >= 0 && steady_clock::now() >= deadline) return false;
  }
  return false;
}

void Executor::execute(Work& work) {
  switch (work.kind) {
    case Kind::Subscription:
      static_cast<SubscriptionBase*>(work.entity)->execute_one();
      break;
    case Kind::Service:
      static_cast<ServiceBase*>(work.entity)->execute_one();
      break;
    case Kind::Client:
      static_cast<ClientBase*>(work.entity)->execute_one();
      break;
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    in_use_.erase(work.entity);
  }
  work.owner.reset();
  if (notify_on_release_) interrupt_->trigger();
}

bool Executor::run_one(std::chrono::nanoseconds timeout) {
  Work w;
  if (!wait_for_work(timeout, w)) return false;
  execute(w);
  return true;
}

void Executor::spin() {
  if (spinning_.exchange(true)) return;
  while (keep_spinning()) run_one(std::chrono::nanoseconds(-1));
  spinning_.store(false, std::memory_order_release);
}

bool Executor::spin_once(std::chrono::nanoseconds timeout) {
  if (spinning_.exchange(true)) return false;
  const bool ran = run_one(timeout);
  spinning_.store(false, std::memory_order_release);
  return ran;
}

void Executor::spin_some(std::chrono::nanoseconds max_duration) {
  using namespace std::chrono;
  if (spinning_.exchange(true)) return;
  const auto deadline = steady_clock::now() + max_duration;
  do {
    // One round: everything ready right now, each entity once.
    std::vector<Work> round;
    {
      std::lock_guard<std::mutex> lock(wait_mutex_);
      rebuild_wait_set();
      wait_set_.wait(nanoseconds(0), result_);
      queue_ready();
      Work w;
      while (pop_ready(w)) round.push_back(std::move(w));
    }
    if (round.empty()) break;
    for (Work& w : round) execute(w);
  } while (max_duration.count() > 0 && keep_spinning() && steady_clock::now() < deadline);
  spinning_.store(false, std::memory_order_release);
}

}  // namespace baton
