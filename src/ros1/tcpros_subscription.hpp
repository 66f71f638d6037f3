// Private to baton_ros1: the TCPROS side of one subscribed topic, a WireReader. One link (thread)
// per publisher: requestTopic on the publisher's XML-RPC API, connect, exchange headers (md5sum
// checked), then read length-prefixed messages into the sink. Every length read is checked
// before use; bad input drops that connection only, with a logged reason.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "baton/ros1/log.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"
#include "tcpros_publication.hpp"

namespace baton::ros1::detail {

struct LinkSettings {
  std::chrono::milliseconds rpc_timeout{5000};
  uint32_t max_message_bytes = 1'000'000'000;
  bool tcp_nodelay = true;
};

class TcprosSubscription final : public WireReader {
 public:
  TcprosSubscription(std::string topic, const MessageType& type, std::string caller_id, Sink sink,
                     LinkSettings settings, LogHandler log,
                     std::shared_ptr<std::atomic<uint64_t>> connection_ids);
  ~TcprosSubscription() override;

  const std::string& topic() const noexcept { return topic_; }
  const MessageType& type() const noexcept { return type_; }

  // The topic's publishers are now `uris` (registerSubscriber's answer, publisherUpdate):
  // connects to new ones (and to listed ones whose connection ended), drops those gone. Does not
  // block on the network.
  void update_publishers(const std::vector<std::string>& uris);
  // Drops every connection and waits for the link threads.
  void shutdown();
  std::vector<BusInfo> bus_info() const;

  std::string_view wire() const noexcept override { return "TCPROS"; }
  // Connections open now, including those being closed after an update removed them.
  size_t writer_count() const override;
  WireStats stats() const override;

 private:
  struct Link {
    std::string uri;
    uint64_t id = 0;
    std::thread thread;
    std::mutex mutex;  // guards fd, stop
    int fd = -1;
    bool stop = false;
    std::atomic<bool> connected{false};
    std::atomic<bool> done{false};
  };
  void run(Link& link);
  void stop_link(Link& link);
  void reap(std::vector<std::shared_ptr<Link>>& links);  // joins finished links

  const std::string topic_;
  const MessageType& type_;
  const std::string caller_id_;
  const Sink sink_;
  const LinkSettings settings_;
  const LogHandler log_;
  const std::shared_ptr<std::atomic<uint64_t>> connection_ids_;

  mutable std::mutex mutex_;  // guards links_, retired_, shut_down_
  std::vector<std::shared_ptr<Link>> links_;
  std::vector<std::shared_ptr<Link>> retired_;  // stopped, not yet joined
  bool shut_down_ = false;
  std::mutex sink_mutex_;  // one sink call at a time
  std::atomic<uint64_t> received_{0}, refused_{0};
};

}  // namespace baton::ros1::detail
