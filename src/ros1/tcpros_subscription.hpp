// Private to baton_ros1: one subscribed topic, a WireReader, composing the push form of the reader
// core (src/wire/pushed_reader.hpp, docs/design/wire.md). One link (thread) per publisher:
// requestTopic on the publisher's XML-RPC API, offering BATONSHM first when the node has shared
// memory (batonshm.hpp). A publisher that grants it is admitted to the core on shared memory and
// read in place by the ShmReader (the link's thread ends there); any other is admitted on the wire
// and read over TCPROS: connect, exchange headers (md5sum checked), then push length-prefixed
// messages into the core on the link's thread. Every length read is checked before use; bad input
// drops that connection only, with a logged reason. The core applies the exactly-once policy (each
// publisher read on the one path it was admitted on) and calls the sink one call at a time,
// whichever way a message came.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../wire/pushed_reader.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"
#include "shm_node.hpp"
#include "shm_reader.hpp"
#include "tcpros_publication.hpp"

namespace baton::ros1::detail {

struct LinkSettings {
  std::chrono::milliseconds rpc_timeout{5000};
  uint32_t max_message_bytes = 1'000'000'000;
  bool tcp_nodelay = true;
  uint32_t shm_queue = 100;  // unread BATONSHM messages kept per publisher
  // How long a TCPROS connection to a publisher the master removed is read on, waiting for the
  // publisher to close it (it does when it unregisters; one that goes on sending is cut here).
  std::chrono::milliseconds drain_grace{2000};
};

class TcprosSubscription final : public WireReader {
 public:
  TcprosSubscription(std::string topic, const MessageType& type, std::string caller_id, Sink sink,
                     LinkSettings settings, LogHandler log,
                     std::shared_ptr<std::atomic<uint64_t>> connection_ids,
                     std::shared_ptr<ShmNode> shm_node = nullptr);
  ~TcprosSubscription() override;

  const std::string& topic() const noexcept { return topic_; }
  const MessageType& type() const noexcept { return type_; }

  // The topic's publishers are now `uris` (registerSubscriber's answer, publisherUpdate):
  // connects to new ones (and to listed ones whose link ended for good: refused; a connection
  // that was lost is made again by its link itself), drops those gone. A TCPROS
  // connection to one that is gone is read on until the publisher closes it, and a BATONSHM one
  // until what it queued is delivered, for at most settings.drain_grace: a publisher unregisters
  // when it exits, and what it sent before is still on its way (a recorder must not lose a
  // talker's last messages to the master's publisherUpdate).
  // Does not block on the network.
  void update_publishers(const std::vector<std::string>& uris);
  // Drops every connection and waits for the link threads.
  void shutdown();
  std::vector<BusInfo> bus_info() const;

  std::string_view wire() const noexcept override { return "TCPROS"; }
  // Connections open now, including those being closed after an update removed them.
  size_t writer_count() const override;
  // Waits until writer_count() >= n (true) or `timeout` passes (false).
  bool wait_for_writers(size_t n, std::chrono::milliseconds timeout) const;
  // TCPROS only; shm_stats() has the BATONSHM side (received, refused, dropped = lost).
  WireStats stats() const override;
  WireStats shm_stats() const;

 private:
  struct Link {
    std::string uri;
    uint64_t id = 0;
    std::thread thread;
    std::mutex mutex;  // guards fd, stop, retiring
    int fd = -1;
    bool stop = false;
    bool retiring = false;  // its publisher was removed: a connection that ends is not made again
    std::atomic<bool> connected{false};
    std::atomic<bool> done{false};
    std::atomic<bool> via_shm{false};  // granted BATONSHM: read by shm_, no thread runs
    std::condition_variable ended;     // done or stop was set (notified with `mutex` held)
    std::thread drain_timer;           // a removed publisher's connection: stops it at the grace
  };
  // The link's thread: sessions until one ends for good (see LinkEnd), waiting between them.
  void run(Link& link);
  // Shm: BATONSHM was granted (shm_ reads it; the thread ends). Lost: a connection that was
  // reading ended; Failed: an attempt ended before it read (both may be made again). Final:
  // refused, or the link was stopped.
  enum class LinkEnd { Shm, Lost, Failed, Final };
  // One requestTopic, connection and read loop. An attempt that fails before it reads logs its
  // reason only when it is the link's `first` (later ones, at Debug).
  LinkEnd session(Link& link, bool first);
  // Between sessions of a link whose connection ended while its publisher is listed.
  static constexpr std::chrono::milliseconds RETRY_FIRST{100};
  static constexpr std::chrono::milliseconds RETRY_MAX{5000};
  // requestTopic, offering BATONSHM first when `offer_shm`: Shm (the grant was admitted),
  // Tcpros (`host` / `port` are the publisher's TCPROS server), Failed (the call failed) or
  // Refused (a malformed or unusable answer); `why` says what went wrong.
  enum class Negotiated { Shm, Tcpros, Failed, Refused };
  Negotiated negotiate(Link& link, bool offer_shm, std::string& host, int& port, std::string& why);
  void set_connected(Link& link, bool connected);  // with mutex_ NOT held
  void stop_link(Link& link);
  // Retires a TCPROS link whose publisher was removed: read on until it ends or drain_grace
  // passes.
  void drain_link(Link& link);
  // Retires a BATONSHM link whose publisher was removed: shm_ revokes it once what it queued is
  // delivered (or at drain_grace); it ends then.
  void retire_shm_link(Link& link);
  void reap(std::vector<std::shared_ptr<Link>>& links);  // joins finished links

  const std::string topic_;
  const MessageType& type_;
  const std::string caller_id_;
  const LinkSettings settings_;
  const LogHandler log_;
  const std::shared_ptr<std::atomic<uint64_t>> connection_ids_;

  mutable std::mutex mutex_;  // guards links_, retired_, shut_down_
  std::vector<std::shared_ptr<Link>> links_;
  std::vector<std::shared_ptr<Link>> retired_;  // stopped or draining, not yet joined
  bool shut_down_ = false;
  mutable std::condition_variable links_changed_;  // a link connected or ended (with mutex_)
  std::atomic<uint64_t> refused_{0};
  wire::PushedReader core_;         // the exactly-once policy, accounting and the sink
  std::unique_ptr<ShmReader> shm_;  // null without shared memory; pushes into core_
};

}  // namespace baton::ros1::detail
