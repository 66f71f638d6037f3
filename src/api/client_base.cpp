#include "baton/api/client_base.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "baton/api/detail/service_wire.hpp"
#include "baton/shm/clock.hpp"

namespace baton {
namespace {

// Longest single sleep while waiting: a shutdown or a new publisher is noticed at least this
// often even if nobody wakes us.
constexpr std::int64_t SLICE_NS = 100'000'000;

}  // namespace

std::uint64_t ClientBase::next_client_id() {
  static std::atomic<std::uint32_t> counter{0};
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(::getpid())) << 32) |
         counter.fetch_add(1, std::memory_order_relaxed);
}

EndpointError ClientBase::explain_create_error(const std::string& service, EndpointError e) {
  if (e.code == EndpointCreateError::NoFreeSlot) {
    e.detail = "service '" + service + "' already has " + std::to_string(MAX_CLIENTS) +
               " clients (each holds one publisher slot of '" + detail::request_topic(service) +
               "'); destroy one first";
  }
  return e;
}

ClientBase::ClientBase(std::shared_ptr<Context> context, std::string resolved_name,
                       std::uint64_t id, Wire wire, RawPublisher requests,
                       std::unique_ptr<topic::SubscriberPort> responses)
    : context_(std::move(context)),
      name_(std::move(resolved_name)),
      id_(id),
      wire_(wire),
      requests_(std::move(requests)),
      port_(std::move(responses)) {}

ClientBase::~ClientBase() {
  port_.reset();
  requests_ = RawPublisher();
  // This client's own response topic dies with it unless a service still holds a publisher
  // there (the service removes it when it notices). The shared request topic stays.
  topic::remove_topic_if_unused(detail::response_topic(name_, id_));
}

bool ClientBase::has_data() {
  std::unique_lock<std::mutex> lock(take_mutex_, std::try_to_lock);
  return lock.owns_lock() && port_->has_data();
}

bool ClientBase::execute_one() {
  std::unique_lock<std::mutex> lock(take_mutex_, std::try_to_lock);
  return lock.owns_lock() && take_one_locked();
}

bool ClientBase::take_one_locked() {
  auto sample = port_->take();
  if (!sample) return false;
  detail::ServiceMessageHeader header;
  if (sample->size() < sizeof(header)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  std::memcpy(&header, sample->data(), sizeof(header));
  if (!detail::header_valid(header, sample->size(), wire_.response_size) ||
      header.client_id != id_ ||
      !complete(header.sequence, sample->data() + wire_.response_offset)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
  return true;
}

bool ClientBase::service_is_ready() const {
  std::lock_guard<std::mutex> lock(publish_mutex_);
  return requests_.subscription_count() != 0;
}

bool ClientBase::wait_for_service(std::chrono::nanoseconds timeout) {
  const std::int64_t deadline = timeout.count() < 0 ? -1 : shm::monotonic_ns() + timeout.count();
  std::int64_t pause = 100'000;  // 100 µs, doubling to 10 ms: discovery has no wake-up yet
  while (true) {
    if (service_is_ready()) return true;
    if (!context_->ok()) return false;
    std::int64_t sleep = pause;
    if (deadline >= 0) {
      const std::int64_t left = deadline - shm::monotonic_ns();
      if (left <= 0) return false;
      sleep = std::min(sleep, left);
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(sleep));
    pause = std::min<std::int64_t>(pause * 2, 10'000'000);
  }
}

Status<ClientError> ClientBase::send(std::uint64_t sequence, const void* payload) {
  std::lock_guard<std::mutex> lock(publish_mutex_);
  auto loan = requests_.loan(wire_.request_size);
  if (!loan) return unexpected(ClientError::SendFailed);
  const auto header = detail::make_header(id_, sequence);
  std::memset(loan->data(), 0, wire_.request_offset);
  std::memcpy(loan->data(), &header, sizeof(header));
  std::memcpy(loan->data() + wire_.request_offset, payload,
              wire_.request_size - wire_.request_offset);
  if (!requests_.publish(std::move(*loan), wire_.request_size)) {
    return unexpected(ClientError::SendFailed);
  }
  return Ok{};
}

Status<ClientError> ClientBase::await(std::int64_t deadline_ns, const std::function<bool()>& done) {
  std::lock_guard<std::mutex> lock(take_mutex_);
  while (true) {
    while (take_one_locked()) {
    }
    if (done()) return Ok{};
    if (!context_->ok()) return unexpected(ClientError::ContextShutDown);
    std::int64_t slice = SLICE_NS;
    if (deadline_ns >= 0) {
      const std::int64_t left = deadline_ns - shm::monotonic_ns();
      if (left <= 0) return unexpected(ClientError::Timeout);
      slice = std::min(slice, left);
    }
    (void)port_->wait(std::chrono::nanoseconds(slice));
  }
}

}  // namespace baton
