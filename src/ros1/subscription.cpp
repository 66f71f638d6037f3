// ros1::Subscription: a handle on a TcprosSubscription registered by its node (subscription.hpp).
#include "baton/ros1/subscription.hpp"

#include "node_impl.hpp"

namespace baton::ros1 {

Subscription::Subscription(
    std::unique_ptr<detail::Registered<detail::TcprosSubscription>> registered)
    : registered_(std::move(registered)) {}
Subscription::~Subscription() = default;

const std::string& Subscription::topic() const noexcept { return registered_->endpoint->topic(); }
const MessageType& Subscription::type() const noexcept { return registered_->endpoint->type(); }
size_t Subscription::publisher_count() const { return registered_->endpoint->writer_count(); }
bool Subscription::wait_for_publishers(size_t n, std::chrono::milliseconds timeout) const {
  return registered_->endpoint->wait_for_writers(n, timeout);
}
WireStats Subscription::shm_stats() const { return registered_->endpoint->shm_stats(); }
WireReader& Subscription::wire() noexcept { return *registered_->endpoint; }

}  // namespace baton::ros1
