// ros1::Publisher: a handle on a Publication registered by its node (publisher.hpp).
#include "baton/ros1/publisher.hpp"

#include "node_impl.hpp"

namespace baton::ros1 {

Publisher::Publisher(std::unique_ptr<detail::Registered<detail::Publication>> registered)
    : registered_(std::move(registered)) {}
Publisher::~Publisher() = default;

const std::string& Publisher::topic() const noexcept { return registered_->endpoint->topic(); }
const MessageType& Publisher::type() const noexcept { return registered_->endpoint->type(); }

Result<size_t, Error<WireError>> Publisher::publish(const ros2::Value& message) {
  return registered_->endpoint->write(message);
}

Result<size_t, Error<WireError>> Publisher::publish_serialized(std::span<const uint8_t> bytes) {
  return registered_->endpoint->write_serialized(bytes);
}

Result<size_t, Error<WireError>> Publisher::publish_filled(uint64_t size, const FillBytes& fill) {
  return registered_->endpoint->write_filled(size, fill);
}

size_t Publisher::subscriber_count() const { return registered_->endpoint->reader_count(); }
bool Publisher::wait_for_tcpros_subscribers(size_t n, std::chrono::milliseconds timeout) const {
  return registered_->endpoint->tcpros().wait_for_readers(n, timeout);
}
bool Publisher::wait_until_sent(std::chrono::milliseconds timeout) const {
  return registered_->endpoint->tcpros().wait_until_sent(timeout);
}
WireWriter& Publisher::wire() noexcept { return registered_->endpoint->tcpros(); }
WireStats Publisher::shm_stats() const { return registered_->endpoint->shm_stats(); }

}  // namespace baton::ros1
