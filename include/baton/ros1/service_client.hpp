// ros1::ServiceClient: calls a ROS 1 service (created by Node::service_client). Each call asks the
// master where the service is (lookupService), connects to the provider's TCPROS address, checks
// the provider's md5sum against the type's, sends the request and waits for the response, all
// within the call's deadline. A persistent client keeps its connection for the next calls (and
// looks the service up again only after that connection is lost).
//
// Calls on one client are made one at a time (a second caller waits for the first); use one
// client per thread for parallel calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/service_type.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros1 {

enum class ServiceError : uint8_t {
  // The master knows no provider of the service (it was never advertised or went away).
  NotFound,
  // The master does not answer (detail: the URI and why).
  MasterUnreachable,
  // The provider cannot be reached at the address the master gave (detail: the address, errno).
  ConnectFailed,
  // The provider refused the connection (an error header, e.g. its md5sum differs) or sent a
  // different md5sum than the type's; logged as an error with both sums.
  Refused,
  // The provider answered the call with ok = 0: detail is its error text.
  Failed,
  // The connection ended before the whole response arrived (the provider died or closed it).
  ConnectionLost,
  // No complete response before the call's deadline; the connection is closed.
  Timeout,
  // The response announced more than NodeOptions::max_message_bytes, or did not decode.
  BadResponse,
  // The request Value does not serialize as the type's request (detail: the field); not sent.
  BadRequest,
};

constexpr std::string_view to_string(ServiceError e) noexcept {
  switch (e) {
    case ServiceError::NotFound:
      return "NotFound";
    case ServiceError::MasterUnreachable:
      return "MasterUnreachable";
    case ServiceError::ConnectFailed:
      return "ConnectFailed";
    case ServiceError::Refused:
      return "Refused";
    case ServiceError::Failed:
      return "Failed";
    case ServiceError::ConnectionLost:
      return "ConnectionLost";
    case ServiceError::Timeout:
      return "Timeout";
    case ServiceError::BadResponse:
      return "BadResponse";
    case ServiceError::BadRequest:
      return "BadRequest";
  }
  return "?";
}

struct ServiceClientOptions {
  bool persistent = false;                   // keep the connection between calls
  std::chrono::milliseconds timeout{10000};  // each call, lookup and connect included
};

namespace detail {
class NodeImpl;
class TcprosServiceClient;
}  // namespace detail

class ServiceClient {
 public:
  ~ServiceClient();
  ServiceClient(const ServiceClient&) = delete;
  ServiceClient& operator=(const ServiceClient&) = delete;

  const std::string& service() const noexcept;  // resolved
  const ServiceType& type() const noexcept;

  // Sends the serialized request; returns the serialized response.
  Result<std::vector<uint8_t>, Error<ServiceError>> call(std::span<const uint8_t> request);
  // The same with decoded values.
  Result<ros2::Value, Error<ServiceError>> call(const ros2::Value& request);
  // Whether the master knows a provider now (one lookupService, no connection).
  bool exists() const;
  // Closes a persistent connection (the next call connects again).
  void close();

 private:
  friend class Node;
  ServiceClient(std::shared_ptr<detail::NodeImpl> node,
                std::unique_ptr<detail::TcprosServiceClient> client);
  std::shared_ptr<detail::NodeImpl> node_;  // keeps the type registry and the log alive
  std::unique_ptr<detail::TcprosServiceClient> client_;
};

}  // namespace baton::ros1
