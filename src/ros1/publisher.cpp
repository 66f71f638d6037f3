// ros1::Publisher: a handle on a TcprosPublication registered by its node (publisher.hpp).
#include "baton/ros1/publisher.hpp"

#include "node_impl.hpp"

namespace baton::ros1 {

Publisher::Publisher(std::unique_ptr<detail::Registered<detail::TcprosPublication>> registered)
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

size_t Publisher::subscriber_count() const { return registered_->endpoint->reader_count(); }
WireWriter& Publisher::wire() noexcept { return *registered_->endpoint; }

}  // namespace baton::ros1
