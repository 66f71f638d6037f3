// ros1::Publisher: a handle on a TcprosPublication registered by its node (publisher.hpp).
#include "baton/ros1/publisher.hpp"

#include "node_impl.hpp"

namespace baton::ros1 {

Publisher::Publisher(std::shared_ptr<detail::NodeImpl> node,
                     std::shared_ptr<detail::TcprosPublication> publication)
    : node_(std::move(node)), publication_(std::move(publication)) {}

Publisher::~Publisher() {
  node_->unadvertise(*publication_);
  publication_->shutdown();
}

const std::string& Publisher::topic() const noexcept { return publication_->topic(); }
const MessageType& Publisher::type() const noexcept { return publication_->type(); }

Result<size_t, Error<WireError>> Publisher::publish(const ros2::Value& message) {
  return publication_->write(message);
}

Result<size_t, Error<WireError>> Publisher::publish_serialized(std::span<const uint8_t> bytes) {
  return publication_->write_serialized(bytes);
}

size_t Publisher::subscriber_count() const { return publication_->reader_count(); }
WireWriter& Publisher::wire() noexcept { return *publication_; }

}  // namespace baton::ros1
