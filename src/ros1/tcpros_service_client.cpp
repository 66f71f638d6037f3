// TCPROS service caller side (tcpros_service_client.hpp).
#include "tcpros_service_client.hpp"

#include "tcpros_header_io.hpp"
#include "xmlrpc_call.hpp"

namespace baton::ros1::detail {
namespace {

using Err = Error<ServiceError>;

std::chrono::milliseconds left(std::chrono::steady_clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1), std::chrono::ceil<std::chrono::milliseconds>(
                                                    deadline - std::chrono::steady_clock::now()));
}

}  // namespace

TcprosServiceClient::TcprosServiceClient(std::string service, const ServiceType& type,
                                         std::string caller_id, const MasterClient& master,
                                         ServiceClientOptions options, uint32_t max_response_bytes,
                                         LogHandler log)
    : service_(std::move(service)),
      type_(type),
      caller_id_(std::move(caller_id)),
      master_(master),
      options_(options),
      max_response_bytes_(max_response_bytes),
      log_(std::move(log)) {}

void TcprosServiceClient::close() {
  std::lock_guard lock(mutex_);
  connection_ = Socket();
}

Result<Socket, Err> TcprosServiceClient::connect(Deadline deadline) {
  auto uri = master_.lookup_service(service_);
  if (!uri) {
    const bool master_down =
        uri.error().code == RpcError::Unreachable || uri.error().code == RpcError::Timeout;
    return unexpected(Err{master_down ? ServiceError::MasterUnreachable : ServiceError::NotFound,
                          master_down
                              ? uri.error().detail
                              : "no node provides " + service_ + " (" + uri.error().detail + ")"});
  }
  const auto address = parse_rosrpc_uri(*uri);
  if (!address)
    return unexpected(
        Err{ServiceError::BadResponse,
            "the master gave " + service_ + " the address '" + *uri + "', not rosrpc://host:port"});
  auto sock = connect_tcp(address->host, address->port, left(deadline));
  if (!sock)
    return unexpected(
        Err{ServiceError::ConnectFailed, service_ + " at " + *uri + ": " + sock.error()});
  set_no_delay(sock->fd());
  if (!write_connection_header(sock->fd(), {{"callerid", caller_id_},
                                            {"service", service_},
                                            {"md5sum", type_.md5sum},
                                            {"type", type_.name},
                                            {"persistent", options_.persistent ? "1" : "0"}}))
    return unexpected(Err{ServiceError::ConnectionLost,
                          service_ + " at " + *uri + ": connection lost while sending the header"});
  auto reply = read_connection_header(sock->fd(), deadline);
  if (!reply)
    return unexpected(
        Err{ServiceError::ConnectionLost, service_ + " at " + *uri + ": " + reply.error()});
  auto refused = [&](const std::string& why) {
    log_(LogLevel::Error, "service " + service_ + " at " + *uri + ": refused: " + why);
    return unexpected(Err{ServiceError::Refused, why});
  };
  if (const auto e = reply->find("error"); e != reply->end())
    return refused("the provider refused the connection: " + e->second);
  const auto md5 = reply->find("md5sum");
  if (md5 == reply->end()) return refused("the provider's header has no md5sum");
  if (md5->second != type_.md5sum && md5->second != "*") {
    const auto type = reply->find("type");
    return refused("md5sum mismatch: the provider serves " +
                   (type != reply->end() ? type->second : std::string("(no type)")) +
                   " with md5sum " + md5->second + ", this client calls " + type_.name +
                   " with md5sum " + type_.md5sum);
  }
  return std::move(*sock);
}

Result<std::vector<uint8_t>, Err> TcprosServiceClient::exchange(int fd,
                                                                std::span<const uint8_t> request,
                                                                Deadline deadline) {
  std::vector<uint8_t> frame(4 + request.size());
  const auto n = static_cast<uint32_t>(request.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(request.begin(), request.end(), frame.begin() + 4);
  set_send_timeout(fd, left(deadline));
  if (write_all(fd, frame.data(), frame.size()) != IoStatus::Ok)
    return unexpected(Err{ServiceError::ConnectionLost,
                          service_ + ": the connection failed while sending the request"});
  auto lost = [&](IoStatus st, const std::string& inside) {
    if (st == IoStatus::Timeout)
      return unexpected(Err{ServiceError::Timeout, service_ + ": no complete response within " +
                                                       std::to_string(options_.timeout.count()) +
                                                       " ms"});
    return unexpected(
        Err{ServiceError::ConnectionLost,
            service_ + ": the provider closed the connection " + inside + " (did it die?)"});
  };
  uint8_t head[5];
  if (const auto st = read_exact(fd, head, 5, deadline); st != IoStatus::Ok)
    return lost(st, "before answering the call");
  const uint32_t size = uint32_t{head[1]} | uint32_t{head[2]} << 8 | uint32_t{head[3]} << 16 |
                        uint32_t{head[4]} << 24;
  if (size > max_response_bytes_) {
    log_(LogLevel::Error, "service " + service_ + ": a response of " + std::to_string(size) +
                              " bytes announced (at most " + std::to_string(max_response_bytes_) +
                              "): connection dropped");
    return unexpected(
        Err{ServiceError::BadResponse,
            service_ + ": a response of " + std::to_string(size) + " bytes announced"});
  }
  std::vector<uint8_t> bytes(size);
  if (const auto st = read_exact(fd, bytes.data(), size, deadline); st != IoStatus::Ok)
    return lost(st == IoStatus::Eof ? IoStatus::Error : st, "inside the response");
  if (head[0] != 1)
    return unexpected(Err{ServiceError::Failed, std::string(bytes.begin(), bytes.end())});
  return bytes;
}

Result<std::vector<uint8_t>, Err> TcprosServiceClient::call(std::span<const uint8_t> request) {
  std::lock_guard lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  if (!connection_) {
    auto sock = connect(deadline);
    if (!sock) return unexpected(sock.error());
    connection_ = std::move(*sock);
  }
  auto response = exchange(connection_.fd(), request, deadline);
  // A failed call (ok = 0) leaves the stream in step; anything else does not.
  const bool in_step = response || response.error().code == ServiceError::Failed;
  if (!options_.persistent || !in_step) connection_ = Socket();
  return response;
}

}  // namespace baton::ros1::detail
