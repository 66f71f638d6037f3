// Blocking TCP helpers for TCPROS (socket.hpp).
#include "socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace baton::ros1::detail {

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

IoStatus read_exact(int fd, void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, p + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0) {
      return got == 0 ? IoStatus::Eof : IoStatus::Error;
    } else if (errno != EINTR) {
      return IoStatus::Error;
    }
  }
  return IoStatus::Ok;
}

IoStatus read_exact(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline) {
  auto* p = static_cast<uint8_t*>(data);
  size_t got = 0;
  while (got < n) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return IoStatus::Timeout;
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno != EINTR) return IoStatus::Error;
    if (ready <= 0) continue;
    const ssize_t r = ::recv(fd, p + got, n - got, MSG_DONTWAIT);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0) {
      return got == 0 ? IoStatus::Eof : IoStatus::Error;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return IoStatus::Error;
    }
  }
  return IoStatus::Ok;
}

IoStatus write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  size_t sent = 0;
  while (sent < n) {
    const ssize_t r = ::send(fd, p + sent, n - sent, MSG_NOSIGNAL);
    if (r > 0) {
      sent += static_cast<size_t>(r);
    } else if (r < 0 && errno != EINTR) {
      return IoStatus::Error;
    }
  }
  return IoStatus::Ok;
}

Result<Socket, std::string> connect_tcp(const std::string& host, int port,
                                        std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
      rc != 0)
    return unexpected(where + ": cannot resolve: " + ::gai_strerror(rc));
  Socket sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!sock) {
    ::freeaddrinfo(found);
    return unexpected(where + ": socket: " + std::strerror(errno));
  }
  int rc = ::connect(sock.fd(), found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  if (rc != 0 && errno != EINPROGRESS) return unexpected(where + ": " + std::strerror(errno));
  if (rc != 0) {
    pollfd pfd{sock.fd(), POLLOUT, 0};
    do {
      rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    if (rc == 0)
      return unexpected(where + ": no connection within " + std::to_string(timeout.count()) +
                        " ms");
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(sock.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (rc < 0 || err != 0) return unexpected(where + ": " + std::strerror(rc < 0 ? errno : err));
  }
  const int flags = ::fcntl(sock.fd(), F_GETFL);
  ::fcntl(sock.fd(), F_SETFL, flags & ~O_NONBLOCK);
  return sock;
}

Result<Socket, std::string> listen_tcp(const std::string& bind_address, int& port) {
  Socket sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock) return unexpected(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!bind_address.empty() && ::inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1)
    return unexpected("'" + bind_address + "' is not an IPv4 address");
  if (::bind(sock.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(sock.fd(), 64) != 0)
    return unexpected("bind / listen on " + (bind_address.empty() ? "*" : bind_address) + ": " +
                      std::strerror(errno));
  socklen_t len = sizeof addr;
  ::getsockname(sock.fd(), reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return sock;
}

namespace {

void set_timeout(int fd, int option, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

void set_receive_timeout(int fd, std::chrono::milliseconds timeout) {
  set_timeout(fd, SO_RCVTIMEO, timeout);
}

void set_send_timeout(int fd, std::chrono::milliseconds timeout) {
  set_timeout(fd, SO_SNDTIMEO, timeout);
}

void set_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace baton::ros1::detail
