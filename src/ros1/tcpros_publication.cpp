// TCPROS publisher side (tcpros_publication.hpp).
#include "tcpros_publication.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "baton/ros1/serialization.hpp"

namespace baton::ros1::detail {
namespace {

// An idle sender's wait: until a frame is queued for it (`wake`, an eventfd that enqueue() and
// shutdown() write) or its subscriber hangs up; false on a hang-up. A subscriber sends nothing
// after its header, so its socket is watched for the peer's close only (POLLRDHUP; POLLHUP and
// POLLERR always come): not for POLLIN, which a peer sending bytes anyway would keep raised. A
// subscriber that left is dropped at once, with its socket and this thread, instead of at the
// next send (getNumSubscribers, `rostopic info`, and what a publisher serializes for).
bool wait_for_frame(int wake, int socket) {
  pollfd fds[2] = {{wake, POLLIN, 0}, {socket, POLLRDHUP, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (fds[1].revents != 0) return false;  // POLLRDHUP, POLLHUP, POLLERR or POLLNVAL
    if (fds[0].revents & POLLIN) {
      std::uint64_t count;
      (void)!::read(wake, &count, sizeof count);  // reset; the queue is looked at under the lock
      return true;
    }
  }
}

void wake_sender(int wake) {
  const std::uint64_t one = 1;
  (void)!::write(wake, &one, sizeof one);
}

Frame make_frame(std::span<const uint8_t> bytes) {
  auto frame = std::make_shared<FrameBytes>(4 + bytes.size());
  const auto n = static_cast<uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) (*frame)[i] = static_cast<uint8_t>(n >> (8 * i));
  if (!bytes.empty()) std::copy(bytes.begin(), bytes.end(), frame->begin() + 4);
  return frame;
}

}  // namespace

TcprosPublication::TcprosPublication(std::string topic, const MessageType& type,
                                     std::string caller_id, bool latch, size_t queue_size,
                                     LogHandler log)
    : topic_(std::move(topic)),
      type_(type),
      caller_id_(std::move(caller_id)),
      latch_(latch),
      queue_size_(std::max<size_t>(1, queue_size)),
      log_(std::move(log)) {}

TcprosPublication::~TcprosPublication() { shutdown(); }

void TcprosPublication::serve(Socket socket, const ConnectionHeader& header,
                              uint64_t connection_id) {
  const auto who = header.find("callerid");
  const std::string caller = who != header.end() ? who->second : "(no callerid)";
  auto refuse = [&](const std::string& why) {
    ++refused_;
    log_(LogLevel::Error, "TCPROS " + topic_ + ": refused subscriber " + caller + ": " + why);
    const auto reply = encode_connection_header({{"error", why}});
    (void)write_all(socket.fd(), reply.data(), reply.size());
  };
  auto md5 = require_field(header, "md5sum");
  if (!md5) return refuse(md5.error().detail);
  if (*md5 != "*" && *md5 != type_.md5sum) {
    const auto type = header.find("type");
    return refuse("md5sum mismatch: the subscriber expects " +
                  (type != header.end() ? type->second : std::string("(no type)")) +
                  " with md5sum " + *md5 + ", this publisher sends " + type_.name +
                  " with md5sum " + type_.md5sum);
  }
  if (const auto nodelay = header.find("tcp_nodelay");
      nodelay != header.end() && nodelay->second == "1")
    set_no_delay(socket.fd());
  // Registered before the reply goes out: once the subscriber has the header, every message
  // published is queued for it (and sent after the header, by this thread).
  const Socket wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));  // Socket: owns the descriptor
  if (!wake) {
    log_(LogLevel::Error, "TCPROS " + topic_ + ": subscriber " + caller +
                              " refused: no eventfd for its sender (" + std::strerror(errno) + ")");
    return;
  }
  auto conn = std::make_shared<Connection>();
  conn->id = connection_id;
  conn->fd = socket.fd();
  conn->wake = wake.fd();
  conn->caller_id = caller;
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return;
    if (latch_ && latched_) conn->queue.push_back(latched_);
    connections_.push_back(conn);
  }
  readers_changed_.notify_all();
  const auto reply = encode_connection_header({{"callerid", caller_id_},
                                               {"md5sum", type_.md5sum},
                                               {"type", type_.name},
                                               {"message_definition", type_.definition},
                                               {"latching", latch_ ? "1" : "0"},
                                               {"topic", topic_}});
  if (write_all(socket.fd(), reply.data(), reply.size()) != IoStatus::Ok) {
    {
      std::lock_guard lock(mutex_);
      conn->closed = true;
      std::erase(connections_, conn);
    }
    readers_changed_.notify_all();
    log_(LogLevel::Info, "TCPROS " + topic_ + ": subscriber " + caller + " left during handshake");
    return;
  }
  log_(LogLevel::Debug, "TCPROS " + topic_ + ": subscriber " + caller + " connected");
  for (;;) {
    Frame frame;
    {
      std::lock_guard lock(mutex_);
      if (conn->closed) break;
      if (conn->queue.empty()) {
        conn->idle = true;  // enqueue() wakes us from here on
      } else {
        frame = std::move(conn->queue.front());
        conn->queue.pop_front();
        conn->writing = true;
      }
    }
    if (!frame) {
      if (!wait_for_frame(conn->wake, conn->fd)) {
        std::lock_guard lock(mutex_);
        conn->closed = true;  // the subscriber hung up
      }
      continue;
    }
    const bool ok = write_all(conn->fd, frame->data(), frame->size()) == IoStatus::Ok;
    if (ok) bytes_ += frame->size() - 4;
    {
      std::lock_guard lock(mutex_);
      conn->writing = false;
    }
    written_.notify_all();
    if (!ok) break;
  }
  {
    std::lock_guard lock(mutex_);
    conn->closed = true;
    std::erase(connections_, conn);
  }
  readers_changed_.notify_all();
  written_.notify_all();
  log_(LogLevel::Info, "TCPROS " + topic_ + ": subscriber " + caller + " disconnected");
}

void TcprosPublication::shutdown() {
  std::lock_guard lock(mutex_);
  shut_down_ = true;
  for (auto& c : connections_) {
    c->closed = true;
    ::shutdown(c->fd, SHUT_RDWR);  // a send blocked on a full socket returns
    wake_sender(c->wake);          // an idle sender sees `closed`
  }
}

std::vector<BusInfo> TcprosPublication::bus_info() const {
  std::lock_guard lock(mutex_);
  std::vector<BusInfo> out;
  for (const auto& c : connections_) out.push_back({c->id, c->caller_id, 'o', topic_, true});
  return out;
}

size_t TcprosPublication::reader_count() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

size_t TcprosPublication::enqueue(Frame frame) {
  std::lock_guard lock(mutex_);
  if (latch_) latched_ = frame;
  size_t queued = 0;
  for (auto& c : connections_) {
    if (c->closed) continue;
    if (c->queue.size() >= queue_size_) {
      c->queue.pop_front();
      ++dropped_;
    }
    c->queue.push_back(frame);
    ++queued;
    if (c->idle) {  // one write per idle sender; a busy one finds the frame when it looks
      c->idle = false;
      wake_sender(c->wake);
    }
  }
  sent_ += queued;
  return queued;
}

Result<size_t, Error<WireError>> TcprosPublication::write(const ros2::Value& message) {
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return unexpected(Error<WireError>{WireError::Closed, topic_});
    if (connections_.empty() && !latch_) return size_t{0};  // nobody to serialize for
  }
  auto size = serialized_size(*type_.description, message);
  if (!size)
    return unexpected(Error<WireError>{WireError::TypeMismatch,
                                       topic_ + " (" + type_.name + "): " + size.error().detail});
  return write_filled(*size, [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
    auto written = serialize_into(*type_.description, message, room);
    if (!written) return unexpected(written.error().detail);
    return Ok{};
  });
}

Result<size_t, Error<WireError>> TcprosPublication::write_filled(uint64_t size,
                                                                 const FillBytes& fill) {
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return unexpected(Error<WireError>{WireError::Closed, topic_});
    if (connections_.empty() && !latch_) return size_t{0};  // nobody to fill for
  }
  if (size > UINT32_MAX)
    return unexpected(Error<WireError>{WireError::TypeMismatch,
                                       topic_ + " (" + type_.name + "): larger than 4 GiB"});
  auto frame = std::make_shared<FrameBytes>(4 + size);
  for (int i = 0; i < 4; ++i) (*frame)[i] = static_cast<uint8_t>(size >> (8 * i));
  if (auto filled = fill(std::span<uint8_t>(frame->data() + 4, size)); !filled)
    return unexpected(Error<WireError>{WireError::TypeMismatch, filled.error()});
  ++serialized_;
  return enqueue(std::move(frame));
}

Result<size_t, Error<WireError>> TcprosPublication::write_serialized(
    std::span<const uint8_t> bytes) {
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return unexpected(Error<WireError>{WireError::Closed, topic_});
    if (connections_.empty() && !latch_) return size_t{0};
  }
  if (bytes.size() > UINT32_MAX)
    return unexpected(Error<WireError>{WireError::TypeMismatch, topic_ + ": larger than 4 GiB"});
  return enqueue(make_frame(bytes));
}

bool TcprosPublication::wait_for_readers(size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return readers_changed_.wait_for(lock, timeout, [&] { return connections_.size() >= n; });
}

bool TcprosPublication::wait_until_sent(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return written_.wait_for(lock, timeout, [&] {
    return std::all_of(connections_.begin(), connections_.end(), [](const auto& c) {
      return c->closed || (c->queue.empty() && !c->writing);
    });
  });
}

WireStats TcprosPublication::stats() const {
  return WireStats{.serialized = serialized_,
                   .sent = sent_,
                   .dropped = dropped_,
                   .refused = refused_,
                   .bytes = bytes_};
}

}  // namespace baton::ros1::detail
