// Passing file descriptors between processes over Unix sockets (SCM_RIGHTS): how exported device
// memory (a CUDA VMM allocation's POSIX fd) reaches another process.
//
// FdServer listens on an abstract Unix socket (no file on disk; the name is per user and per
// BATON_NAMESPACE) and hands its fd to every connecting process of the same uid (checked with
// SO_PEERCRED). fetch_fd() connects and receives a duplicate. The received fd is the caller's
// (close it when done).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "baton/common/result.hpp"
#include "baton/memory/domain/domain_error.hpp"

namespace baton::memory::domain {

// Sends `fd` plus a small payload on a connected Unix socket; false on failure.
bool send_fd(int socket, int fd, const void* payload, std::size_t payload_size);
// Receives one fd (and up to `payload_size` payload bytes) from a connected Unix socket.
Result<int, Error<DomainError>> recv_fd(int socket, void* payload, std::size_t payload_size);

class FdServer {
 public:
  // Serves a duplicate of `fd` under `name` until destroyed; the server keeps its own duplicate.
  static Result<std::unique_ptr<FdServer>, Error<DomainError>> serve(const std::string& name,
                                                                     int fd);
  ~FdServer();
  FdServer(const FdServer&) = delete;
  const std::string& name() const noexcept { return name_; }

 private:
  FdServer() = default;
  void run();
  std::string name_;
  int listen_fd_ = -1;
  int fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
};

// Connects to the FdServer named `name` and receives its fd; waits up to `timeout_ms` for it.
Result<int, Error<DomainError>> fetch_fd(const std::string& name, int timeout_ms = 1000);

}  // namespace baton::memory::domain
