// ros1::ServiceServer: a handle on a TcprosServiceServer registered by its node, and
// value_handler (service_server.hpp).
#include "baton/ros1/service_server.hpp"

#include "baton/ros1/serialization.hpp"
#include "node_impl.hpp"

namespace baton::ros1 {

ServiceHandler value_handler(const ServiceType& type, ServiceValueCallback callback) {
  return [&type, callback = std::move(callback)](
             const ServiceRequest& request) -> Result<std::vector<uint8_t>, std::string> {
    auto in = deserialize(*type.request->description, request.bytes);
    if (!in)
      return unexpected("the request is not a valid " + type.request->name + ": " +
                        in.error().detail);
    auto out = callback(*in);
    if (!out) return unexpected(out.error());
    auto bytes = serialize(*type.response->description, *out);
    if (!bytes)
      return unexpected("the handler's response is not a valid " + type.response->name + ": " +
                        bytes.error().detail);
    return std::move(*bytes);
  };
}

ServiceServer::ServiceServer(
    std::unique_ptr<detail::Registered<detail::TcprosServiceServer>> registered)
    : registered_(std::move(registered)) {}
ServiceServer::~ServiceServer() = default;

const std::string& ServiceServer::service() const noexcept {
  return registered_->endpoint->service();
}
const ServiceType& ServiceServer::type() const noexcept { return registered_->endpoint->type(); }
const std::string& ServiceServer::uri() const noexcept { return registered_->endpoint->uri(); }
ServiceStats ServiceServer::stats() const { return registered_->endpoint->stats(); }

}  // namespace baton::ros1
