// Private to baton_ros1: the TCPROS side of a service client: lookupService, connect, the header
// exchange with the md5sum check, and [length][request] out / [ok][length][response] in, each
// step bounded by the call's deadline.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "baton/ros1/log.hpp"
#include "baton/ros1/master_client.hpp"
#include "baton/ros1/service_client.hpp"
#include "socket.hpp"

namespace baton::ros1::detail {

class TcprosServiceClient {
 public:
  TcprosServiceClient(std::string service, const ServiceType& type, std::string caller_id,
                      const MasterClient& master, ServiceClientOptions options,
                      uint32_t max_response_bytes, LogHandler log);

  const std::string& service() const noexcept { return service_; }
  const ServiceType& type() const noexcept { return type_; }

  Result<std::vector<uint8_t>, Error<ServiceError>> call(std::span<const uint8_t> request);
  bool exists() const { return master_.lookup_service(service_).has_value(); }
  void close();

 private:
  using Deadline = std::chrono::steady_clock::time_point;
  // A connection whose header exchange passed, or why not.
  Result<Socket, Error<ServiceError>> connect(Deadline deadline);
  // Sends one request and reads its response on `fd`.
  Result<std::vector<uint8_t>, Error<ServiceError>> exchange(int fd, std::span<const uint8_t> req,
                                                             Deadline deadline);

  const std::string service_;
  const ServiceType& type_;
  const std::string caller_id_;
  const MasterClient& master_;  // the node's, alive while the handle keeps the node
  const ServiceClientOptions options_;
  const uint32_t max_response_bytes_;
  const LogHandler log_;

  std::mutex mutex_;   // one call at a time; guards connection_
  Socket connection_;  // persistent: kept between calls
};

}  // namespace baton::ros1::detail
