// Private to baton_ros1: the TCPROS side of one advertised service. Each client connection is
// served on the node's inbound thread that accepted it (serve()); handler calls are made one at a
// time, and none runs once shutdown() has returned.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/service_server.hpp"
#include "socket.hpp"

namespace baton::ros1::detail {

class TcprosServiceServer {
 public:
  // `request_timeout`: how long a request may take to arrive once its length has (a client that
  // announces bytes and stops sending loses its connection, it does not hold the thread).
  TcprosServiceServer(std::string service, const ServiceType& type, std::string caller_id,
                      std::string uri, ServiceHandler handler, uint32_t max_request_bytes,
                      std::chrono::milliseconds request_timeout, LogHandler log);
  ~TcprosServiceServer();

  const std::string& service() const noexcept { return service_; }
  const ServiceType& type() const noexcept { return type_; }
  const std::string& uri() const noexcept { return uri_; }

  // Serves one client whose header was read: checks its md5sum, answers the header, then (unless
  // it is a probe) answers requests until the client closes, after one call when it is not
  // persistent, or until shutdown().
  void serve(Socket socket, const ConnectionHeader& header);
  // Closes every connection and waits for a handler call in progress; serve() calls return.
  void shutdown();
  ServiceStats stats() const;

 private:
  // Answers one request whose length was read; false when the connection must close.
  bool answer(int fd, uint32_t length, const std::string& caller);

  const std::string service_;
  const ServiceType& type_;
  const std::string caller_id_;
  const std::string uri_;
  const ServiceHandler handler_;
  const uint32_t max_request_bytes_;
  const std::chrono::milliseconds request_timeout_;
  const LogHandler log_;

  std::mutex mutex_;  // guards fds_, shut_down_
  std::set<int> fds_;
  bool shut_down_ = false;
  std::mutex call_mutex_;  // one handler call at a time; held by shutdown() to wait for it
  std::atomic<uint64_t> connections_{0}, probes_{0}, calls_{0}, failed_{0}, refused_{0};
};

}  // namespace baton::ros1::detail
