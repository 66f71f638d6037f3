// Private to baton_ros1: the few blocking TCP operations TCPROS needs, on plain file descriptors.
// Sends never raise SIGPIPE (MSG_NOSIGNAL); a peer gone is an error return.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "baton/common/result.hpp"

namespace baton::ros1::detail {

// Owns a socket descriptor (closed on destruction). Move-only.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& o) noexcept : fd_(o.release()) {}
  Socket& operator=(Socket&& o) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();
  int fd() const noexcept { return fd_; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

enum class IoStatus : uint8_t { Ok, Eof, Error, Timeout };

// Reads exactly `n` bytes (Eof: the peer closed before the first byte; a close after it is Error).
IoStatus read_exact(int fd, void* data, size_t n);
// The same, or Timeout when all `n` bytes have not arrived by `deadline`.
IoStatus read_exact(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline);
// Writes all `n` bytes.
IoStatus write_all(int fd, const void* data, size_t n);

// Connects to host:port (a name or an IPv4 address) within `timeout`; the error text says why.
Result<Socket, std::string> connect_tcp(const std::string& host, int port,
                                        std::chrono::milliseconds timeout);
// Listens on `bind_address` ("" for any IPv4 address), port 0; `port` gets the port chosen.
Result<Socket, std::string> listen_tcp(const std::string& bind_address, int& port);

// Receive timeout (0: none) for the handshake of an inbound connection.
void set_receive_timeout(int fd, std::chrono::milliseconds timeout);
// Send timeout (0: none): a write_all to a peer that reads nothing fails instead of blocking.
void set_send_timeout(int fd, std::chrono::milliseconds timeout);
void set_no_delay(int fd);

}  // namespace baton::ros1::detail
