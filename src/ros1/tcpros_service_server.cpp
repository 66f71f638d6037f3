// TCPROS service provider side (tcpros_service_server.hpp): the service connection header, then
// per call [uint32 length][request] in and [uint8 ok][uint32 length][response or error text] out.
#include "tcpros_service_server.hpp"

#include <sys/socket.h>

#include <vector>

#include "baton/ros1/service_header.hpp"
#include "tcpros_header_io.hpp"

namespace baton::ros1::detail {
namespace {

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// [ok][length][bytes]: the response frame.
bool send_reply(int fd, bool ok, std::span<const uint8_t> bytes) {
  std::vector<uint8_t> frame(5 + bytes.size());
  frame[0] = ok ? 1 : 0;
  const auto n = static_cast<uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) frame[1 + i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(bytes.begin(), bytes.end(), frame.begin() + 5);
  return write_all(fd, frame.data(), frame.size()) == IoStatus::Ok;
}

std::span<const uint8_t> text_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

TcprosServiceServer::TcprosServiceServer(std::string service, const ServiceType& type,
                                         std::string caller_id, std::string uri,
                                         ServiceHandler handler, uint32_t max_request_bytes,
                                         std::chrono::milliseconds request_timeout, LogHandler log)
    : service_(std::move(service)),
      type_(type),
      caller_id_(std::move(caller_id)),
      uri_(std::move(uri)),
      handler_(std::move(handler)),
      max_request_bytes_(max_request_bytes),
      request_timeout_(request_timeout),
      log_(std::move(log)) {}

TcprosServiceServer::~TcprosServiceServer() { shutdown(); }

void TcprosServiceServer::serve(Socket socket, const ConnectionHeader& header) {
  const int fd = socket.fd();
  auto parsed = parse_service_call_header(header);
  const auto who = header.find("callerid");
  const std::string caller = who != header.end() ? who->second : "(no callerid)";
  const std::string where = "service " + service_ + ": client " + caller;
  auto refuse = [&](const std::string& why) {
    ++refused_;
    log_(LogLevel::Error, where + " refused: " + why);
    (void)write_connection_header(fd, {{"error", why}});
  };
  if (!parsed) return refuse(parsed.error().detail);
  if (parsed->md5sum != "*" && parsed->md5sum != type_.md5sum) {
    const auto type = header.find("type");
    return refuse("md5sum mismatch: the client expects " +
                  (type != header.end() ? type->second + " with md5sum " : "md5sum ") +
                  parsed->md5sum + ", this service is " + type_.name + " with md5sum " +
                  type_.md5sum);
  }
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return;
    fds_.insert(fd);
  }
  const bool sent = write_connection_header(fd, {{"callerid", caller_id_},
                                                 {"md5sum", type_.md5sum},
                                                 {"type", type_.name},
                                                 {"request_type", type_.request->name},
                                                 {"response_type", type_.response->name}});
  if (sent && parsed->probe) ++probes_;
  if (sent && !parsed->probe) {
    ++connections_;
    const bool persistent = parsed->persistent;
    for (;;) {
      uint8_t prefix[4];
      const IoStatus st = read_exact(fd, prefix, 4);  // an idle persistent client may wait long
      if (st != IoStatus::Ok) {
        if (st == IoStatus::Error) log_(LogLevel::Info, where + ": connection lost between calls");
        break;
      }
      if (!answer(fd, le32(prefix), caller) || !persistent) break;
    }
  }
  std::lock_guard lock(mutex_);
  fds_.erase(fd);
}

bool TcprosServiceServer::answer(int fd, uint32_t length, const std::string& caller) {
  const std::string where = "service " + service_ + ": client " + caller;
  if (length > max_request_bytes_) {
    ++refused_;
    const std::string why = "a request of " + std::to_string(length) +
                            " bytes announced (at most " + std::to_string(max_request_bytes_) +
                            "): connection dropped";
    log_(LogLevel::Error, where + ": " + why);
    (void)send_reply(fd, false, text_bytes(why));
    return false;
  }
  std::vector<uint8_t> request(length);
  const auto deadline = std::chrono::steady_clock::now() + request_timeout_;
  if (const IoStatus st = read_exact(fd, request.data(), length, deadline); st != IoStatus::Ok) {
    ++refused_;
    log_(LogLevel::Error,
         where + ": request truncated: " +
             (st == IoStatus::Timeout
                  ? "not all of its " + std::to_string(length) + " bytes arrived within " +
                        std::to_string(request_timeout_.count()) + " ms"
                  : "the connection closed inside its " + std::to_string(length) + " bytes") +
             "; connection dropped");
    return false;
  }
  Result<std::vector<uint8_t>, std::string> reply = unexpected(std::string("service shut down"));
  {
    std::lock_guard call(call_mutex_);
    {
      std::lock_guard lock(mutex_);
      if (shut_down_) return false;
    }
    reply = handler_(ServiceRequest{request, caller});
  }
  ++calls_;
  if (!reply) {
    ++failed_;
    log_(LogLevel::Warn, where + ": call failed: " + reply.error());
    return send_reply(fd, false, text_bytes(reply.error()));
  }
  return send_reply(fd, true, *reply);
}

void TcprosServiceServer::shutdown() {
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
    for (const int fd : fds_) ::shutdown(fd, SHUT_RDWR);  // blocked reads return
  }
  std::lock_guard wait_for_call(call_mutex_);
}

ServiceStats TcprosServiceServer::stats() const {
  return ServiceStats{.connections = connections_,
                      .probes = probes_,
                      .calls = calls_,
                      .failed = failed_,
                      .refused = refused_};
}

}  // namespace baton::ros1::detail
