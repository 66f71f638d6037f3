#include "baton/memory/domain/fd_passing.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "baton/common/thread_name.hpp"
#include "baton/shm/naming.hpp"

namespace baton::memory::domain {
namespace {

using E = Error<DomainError>;

// Abstract socket address: '\0' + "baton.<uid>.<ns>.fd.<name>", shortened to fit sun_path.
socklen_t make_address(const std::string& name, sockaddr_un& addr) {
  std::memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  std::string path = shm::segment_name("fd", name);
  if (path.size() > sizeof(addr.sun_path) - 1) {
    path = path.substr(0, 40) + "~" + std::to_string(std::hash<std::string>{}(path));
  }
  std::memcpy(addr.sun_path + 1, path.data(), path.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + path.size());
}

}  // namespace

bool send_fd(int socket, int fd, const void* payload, std::size_t payload_size) {
  char dummy = 0;
  iovec iov{};
  iov.iov_base = payload_size > 0 ? const_cast<void*>(payload) : &dummy;
  iov.iov_len = payload_size > 0 ? payload_size : 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  ssize_t n;
  do {
    n = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n > 0;
}

Result<int, Error<DomainError>> recv_fd(int socket, void* payload, std::size_t payload_size) {
  char dummy = 0;
  iovec iov{};
  iov.iov_base = payload_size > 0 ? payload : &dummy;
  iov.iov_len = payload_size > 0 ? payload_size : 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    return unexpected(
        E{DomainError::ExportFailed,
          std::string("recvmsg: ") + (n == 0 ? "peer closed" : std::strerror(errno))});
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    // Untrusted peer: accept exactly one int-sized SCM_RIGHTS record.
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(sizeof(int))) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
      return fd;
    }
  }
  return unexpected(E{DomainError::ExportFailed, "message carried no file descriptor"});
}

Result<std::unique_ptr<FdServer>, Error<DomainError>> FdServer::serve(const std::string& name,
                                                                      int fd) {
  std::unique_ptr<FdServer> s(new FdServer());
  s->name_ = name;
  s->fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  s->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s->fd_ < 0 || s->listen_fd_ < 0 || ::pipe2(s->wake_, O_CLOEXEC) != 0) {
    return unexpected(E{DomainError::ExportFailed, std::string("socket: ") + std::strerror(errno)});
  }
  sockaddr_un addr;
  const socklen_t len = make_address(name, addr);
  if (::bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(s->listen_fd_, 16) != 0) {
    return unexpected(
        E{DomainError::ExportFailed, "bind '" + name + "': " + std::string(std::strerror(errno))});
  }
  s->thread_ = std::thread([p = s.get()] {
    name_this_thread("baton-fd-pass");
    p->run();
  });
  return s;
}

void FdServer::run() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
  while (true) {
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    ucred cred{};
    socklen_t cl = sizeof(cred);
    // Only the same user may import our memory.
    if (::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.uid == ::getuid()) {
      send_fd(c, fd_, nullptr, 0);
    }
    ::close(c);
  }
}

FdServer::~FdServer() {
  if (thread_.joinable()) {
    const char b = 1;
    (void)!::write(wake_[1], &b, 1);
    thread_.join();
  }
  for (int fd : {listen_fd_, fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

Result<int, Error<DomainError>> fetch_fd(const std::string& name, int timeout_ms) {
  sockaddr_un addr;
  const socklen_t len = make_address(name, addr);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return unexpected(E{DomainError::ExportFailed, std::strerror(errno)});
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), len) == 0) {
      auto fd = recv_fd(s, nullptr, 0);
      ::close(s);
      return fd;
    }
    const int err = errno;
    ::close(s);
    if (std::chrono::steady_clock::now() >= deadline) {
      return unexpected(E{DomainError::ExportFailed,
                          "no fd server '" + name + "': " + std::string(std::strerror(err))});
    }
    ::usleep(1000);
  }
}

}  // namespace baton::memory::domain
