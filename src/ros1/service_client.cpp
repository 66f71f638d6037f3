// ros1::ServiceClient: a handle on a TcprosServiceClient (service_client.hpp).
#include "baton/ros1/service_client.hpp"

#include "baton/ros1/serialization.hpp"
#include "node_impl.hpp"
#include "tcpros_service_client.hpp"

namespace baton::ros1 {

ServiceClient::ServiceClient(std::shared_ptr<detail::NodeImpl> node,
                             std::unique_ptr<detail::TcprosServiceClient> client)
    : node_(std::move(node)), client_(std::move(client)) {}
ServiceClient::~ServiceClient() = default;

const std::string& ServiceClient::service() const noexcept { return client_->service(); }
const ServiceType& ServiceClient::type() const noexcept { return client_->type(); }

Result<std::vector<uint8_t>, Error<ServiceError>> ServiceClient::call(
    std::span<const uint8_t> request) {
  return client_->call(request);
}

Result<ros2::Value, Error<ServiceError>> ServiceClient::call(const ros2::Value& request) {
  using Err = Error<ServiceError>;
  const auto& type = client_->type();
  auto bytes = serialize(*type.request->description, request);
  if (!bytes)
    return unexpected(Err{ServiceError::BadRequest,
                          "not a valid " + type.request->name + ": " + bytes.error().detail});
  auto response = client_->call(*bytes);
  if (!response) return unexpected(response.error());
  auto value = deserialize(*type.response->description, *response);
  if (!value)
    return unexpected(
        Err{ServiceError::BadResponse,
            "the response is not a valid " + type.response->name + ": " + value.error().detail});
  return std::move(*value);
}

bool ServiceClient::exists() const { return client_->exists(); }
void ServiceClient::close() { client_->close(); }

}  // namespace baton::ros1
