// ros1::Subscription: a handle on a TcprosSubscription registered by its node (subscription.hpp).
#include "baton/ros1/subscription.hpp"

#include "node_impl.hpp"

namespace baton::ros1 {

Subscription::Subscription(std::shared_ptr<detail::NodeImpl> node,
                           std::shared_ptr<detail::TcprosSubscription> subscription)
    : node_(std::move(node)), subscription_(std::move(subscription)) {}

Subscription::~Subscription() {
  node_->unsubscribe(*subscription_);
  subscription_->shutdown();
}

const std::string& Subscription::topic() const noexcept { return subscription_->topic(); }
const MessageType& Subscription::type() const noexcept { return subscription_->type(); }
size_t Subscription::publisher_count() const { return subscription_->writer_count(); }
WireReader& Subscription::wire() noexcept { return *subscription_; }

}  // namespace baton::ros1
