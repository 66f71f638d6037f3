#include "baton/api/service_base.hpp"

#include <algorithm>
#include <cstring>

#include "baton/api/client_base.hpp"
#include "baton/api/detail/service_wire.hpp"

namespace baton {

// Room for every client the request topic admits: only the dead are evicted.
static_assert(ServiceBase::MAX_CACHED_CLIENTS >= ClientBase::MAX_CLIENTS);

ServiceBase::ServiceBase(std::shared_ptr<Context> context, std::string resolved_name,
                         topic::TypeInfo response_type, QoS qos, Wire wire,
                         std::unique_ptr<topic::SubscriberPort> request_port)
    : name_(std::move(resolved_name)),
      response_type_(std::move(response_type)),
      qos_(qos),
      wire_(wire),
      node_(std::move(context), "_baton_service"),
      port_(std::move(request_port)) {}

ServiceBase::~ServiceBase() {
  std::vector<std::string> topics;
  for (auto& [id, pub] : responders_) topics.push_back(pub.topic_name());
  responders_.clear();
  // Per-client response topics die with their last endpoint (the shared request topic stays:
  // other processes may be attaching to it right now).
  for (const auto& t : topics) topic::remove_topic_if_unused(t);
}

void ServiceBase::drop_responder_locked(std::uint64_t client_id) {
  auto it = responders_.find(client_id);
  if (it == responders_.end()) return;
  const std::string t = it->second.topic_name();
  responders_.erase(it);
  std::erase(responder_order_, client_id);
  topic::remove_topic_if_unused(t);
}

void ServiceBase::sweep_locked() {
  std::vector<std::uint64_t> gone;
  for (auto& [id, pub] : responders_) {
    if (pub.subscription_count() == 0) gone.push_back(id);
  }
  for (auto id : gone) drop_responder_locked(id);
}

bool ServiceBase::has_data() {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  return lock.owns_lock() && port_->has_data();
}

std::size_t ServiceBase::cached_clients() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return responders_.size();
}

RawPublisher* ServiceBase::responder(std::uint64_t client_id) {
  auto it = responders_.find(client_id);
  if (it != responders_.end()) {
    if (it->second.subscription_count() != 0) return &it->second;
    // The client's response subscription is gone: the client was destroyed or died.
    drop_responder_locked(client_id);
    return nullptr;
  }
  // A new client (cold path): forget the clients that are gone, then make room.
  sweep_locked();
  if (responders_.size() >= MAX_CACHED_CLIENTS) {
    // A client that died still counts as a subscription until someone reclaims it: reclaim
    // before evicting, so that a live client's responder is never the one to go. (A live client
    // evicted and then killed before it calls again would leave its response topic behind.)
    for (auto& [id, pub] : responders_) pub.port().reclaim();
    sweep_locked();
  }
  if (responders_.size() >= MAX_CACHED_CLIENTS) drop_responder_locked(responder_order_.front());
  auto impl = detail::make_publisher(node_, detail::response_topic(name_, client_id),
                                     response_type_, qos_, memory::PoolConfig{});
  if (!impl) return nullptr;
  RawPublisher pub(std::move(*impl));
  // client_id came from shared memory: a topic nobody listens on is not a live client.
  if (pub.subscription_count() == 0) {
    const std::string t = pub.topic_name();
    pub = RawPublisher();
    topic::remove_topic_if_unused(t);
    return nullptr;
  }
  responder_order_.push_back(client_id);
  return &responders_.emplace(client_id, std::move(pub)).first->second;
}

bool ServiceBase::execute_one() {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  auto sample = port_->take();
  if (!sample) return false;
  detail::ServiceMessageHeader header;
  if (sample->size() < sizeof(header)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  std::memcpy(&header, sample->data(), sizeof(header));
  if (!detail::header_valid(header, sample->size(), wire_.request_size)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  RawPublisher* pub = responder(header.client_id);
  if (pub == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  auto loan = pub->loan(wire_.response_size);
  if (!loan) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  const auto reply = detail::make_header(header.client_id, header.sequence);
  std::memset(loan->data(), 0, wire_.response_offset);
  std::memcpy(loan->data(), &reply, sizeof(reply));
  handle(sample->data() + wire_.request_offset, loan->data() + wire_.response_offset);
  sample->release();  // the request's loan goes back before the (possibly blocking) publish
  if (pub->publish(std::move(*loan), wire_.response_size)) {
    handled_.fetch_add(1, std::memory_order_relaxed);
  } else {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
  return true;
}

}  // namespace baton
