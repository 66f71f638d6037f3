// Private to baton_ros1: the TCPROS side of one published topic, a WireWriter. Each subscriber
// connection has its own queue and sender thread (a slow or dead subscriber holds up nobody);
// a message is serialized once into one frame ([uint32 length][bytes]) that every queue shares.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"
#include "socket.hpp"

namespace baton::ros1::detail {

// A frame's bytes are allocated without being zero-filled: every byte is written right after
// (length, then the serialization), and for a 4K image the fill was one more 24.9 MB pass (~1 ms
// here) that roscpp does not make.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: no zero fill
  }
};
using FrameBytes = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;
using Frame = std::shared_ptr<const FrameBytes>;

// One row of getBusInfo.
struct BusInfo {
  uint64_t id = 0;
  std::string peer;  // the remote callerid (inbound) or publisher URI (outbound)
  char direction = 'o';
  std::string topic;
  bool connected = true;
  std::string transport = "TCPROS";  // or "BATONSHM"
};

class TcprosPublication final : public WireWriter {
 public:
  TcprosPublication(std::string topic, const MessageType& type, std::string caller_id, bool latch,
                    size_t queue_size, LogHandler log);
  ~TcprosPublication() override;

  const std::string& topic() const noexcept { return topic_; }
  const MessageType& type() const noexcept { return type_; }
  const std::string& caller_id() const noexcept { return caller_id_; }
  bool latched() const noexcept { return latch_; }

  // Serves one subscriber whose header was read: checks it, answers (or refuses with an error
  // header), then sends frames until the connection or the publication closes. Runs on the
  // connection's own thread and returns when it is done.
  void serve(Socket socket, const ConnectionHeader& header, uint64_t connection_id);
  // Closes every connection; serve() calls return. Later writes fail with Closed.
  void shutdown();
  std::vector<BusInfo> bus_info() const;

  std::string_view wire() const noexcept override { return "TCPROS"; }
  size_t reader_count() const override;
  // Waits until at least `n` subscribers are connected (true) or `timeout` passes (false).
  bool wait_for_readers(size_t n, std::chrono::milliseconds timeout) const;
  // Waits until every connection has written all it was queued to its socket (true) or `timeout`
  // passes (false): what a publisher about to close waits for so that its last messages arrive.
  bool wait_until_sent(std::chrono::milliseconds timeout) const;
  Result<size_t, Error<WireError>> write(const ros2::Value& message) override;
  Result<size_t, Error<WireError>> write_serialized(std::span<const uint8_t> bytes) override;
  // `size` bytes that `fill` writes in place into the one frame every reader shares (nothing is
  // filled without readers); a failed fill is TypeMismatch with its reason.
  Result<size_t, Error<WireError>> write_filled(uint64_t size, const FillBytes& fill);
  WireStats stats() const override;

 private:
  struct Connection {
    uint64_t id = 0;
    int fd = -1;
    int wake = -1;  // eventfd an idle sender waits on (owned by serve())
    std::string caller_id;
    std::deque<Frame> queue;  // guarded by the publication's mutex_
    bool writing = false;     // a frame taken from the queue is being written (mutex_)
    bool idle = false;        // the sender waits on `wake` (mutex_)
    bool closed = false;
  };
  size_t enqueue(Frame frame);  // to every connection; returns how many

  const std::string topic_;
  const MessageType& type_;
  const std::string caller_id_;
  const bool latch_;
  const size_t queue_size_;
  const LogHandler log_;

  mutable std::mutex mutex_;
  mutable std::condition_variable readers_changed_;  // a connection was added or removed
  mutable std::condition_variable written_;          // a frame was written, or a connection left
  std::vector<std::shared_ptr<Connection>> connections_;
  Frame latched_;
  bool shut_down_ = false;
  std::atomic<uint64_t> serialized_{0}, sent_{0}, dropped_{0}, refused_{0}, bytes_{0};
};

}  // namespace baton::ros1::detail
