// TCPROS subscriber side (tcpros_subscription.hpp).
#include "tcpros_subscription.hpp"

#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpcpp/XmlRpcException.h>

#include <algorithm>

#include "baton/ros1/connection_header.hpp"
#include "socket.hpp"
#include "xmlrpc_call.hpp"

namespace baton::ros1::detail {
namespace {

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

TcprosSubscription::TcprosSubscription(std::string topic, const MessageType& type,
                                       std::string caller_id, Sink sink, LinkSettings settings,
                                       LogHandler log,
                                       std::shared_ptr<std::atomic<uint64_t>> connection_ids)
    : topic_(std::move(topic)),
      type_(type),
      caller_id_(std::move(caller_id)),
      sink_(std::move(sink)),
      settings_(settings),
      log_(std::move(log)),
      connection_ids_(std::move(connection_ids)) {}

TcprosSubscription::~TcprosSubscription() { shutdown(); }

void TcprosSubscription::stop_link(Link& link) {
  std::lock_guard lock(link.mutex);
  link.stop = true;
  if (link.fd >= 0) ::shutdown(link.fd, SHUT_RDWR);  // a blocked recv returns
}

void TcprosSubscription::reap(std::vector<std::shared_ptr<Link>>& links) {
  std::erase_if(links, [](const std::shared_ptr<Link>& l) {
    if (!l->done) return false;
    if (l->thread.joinable()) l->thread.join();
    return true;
  });
}

void TcprosSubscription::update_publishers(const std::vector<std::string>& uris) {
  std::lock_guard lock(mutex_);
  if (shut_down_) return;
  reap(retired_);
  // Links to publishers no longer listed, or whose connection ended, are retired.
  std::erase_if(links_, [&](const std::shared_ptr<Link>& l) {
    const bool listed = std::find(uris.begin(), uris.end(), l->uri) != uris.end();
    if (listed && !l->done) return false;
    stop_link(*l);
    retired_.push_back(l);
    return true;
  });
  for (const auto& uri : uris) {
    if (std::any_of(links_.begin(), links_.end(),
                    [&](const std::shared_ptr<Link>& l) { return l->uri == uri; }))
      continue;
    auto link = std::make_shared<Link>();
    link->uri = uri;
    link->id = connection_ids_->fetch_add(1);
    link->thread = std::thread([this, raw = link.get()] { run(*raw); });
    links_.push_back(std::move(link));
  }
}

void TcprosSubscription::shutdown() {
  std::vector<std::shared_ptr<Link>> all;
  {
    std::lock_guard lock(mutex_);
    shut_down_ = true;
    all = std::move(links_);
    all.insert(all.end(), retired_.begin(), retired_.end());
    links_.clear();
    retired_.clear();
  }
  for (auto& l : all) stop_link(*l);
  for (auto& l : all)
    if (l->thread.joinable()) l->thread.join();
}

void TcprosSubscription::run(Link& link) {
  const std::string where = "TCPROS " + topic_ + " from " + link.uri;
  auto finish = [&](LogLevel level, const std::string& why) {
    if (!why.empty()) log_(level, where + ": " + why);
    std::lock_guard lock(link.mutex);
    if (link.fd >= 0) ::close(link.fd);
    link.fd = -1;
    link.connected = false;
    link.done = true;
  };
  auto refused = [&](const std::string& why) {
    ++refused_;
    finish(LogLevel::Error, why);
  };
  // requestTopic: ["TCPROS", host, port].
  XmlRpc::XmlRpcValue params;
  params[0] = caller_id_;
  params[1] = topic_;
  params[2][0][0] = std::string("TCPROS");
  auto answer = ros_call(link.uri, "requestTopic", params, settings_.rpc_timeout);
  if (!answer) return finish(LogLevel::Warn, "requestTopic failed: " + answer.error().detail);
  std::string host;
  int port = 0;
  try {
    if (answer->getType() != XmlRpc::XmlRpcValue::TypeArray || answer->size() != 3 ||
        std::string((*answer)[0]) != "TCPROS")
      return refused("requestTopic answered " + answer->toXml() + ", not [TCPROS, host, port]");
    host = std::string((*answer)[1]);
    port = (*answer)[2];
  } catch (const XmlRpc::XmlRpcException& e) {
    return refused("requestTopic answered " + answer->toXml() + ": " + e.getMessage());
  }
  auto sock = connect_tcp(host, port, settings_.rpc_timeout);
  if (!sock) return finish(LogLevel::Warn, "cannot connect: " + sock.error());
  {
    std::lock_guard lock(link.mutex);
    if (link.stop) return finish(LogLevel::Debug, "");
    link.fd = sock->release();
  }
  const int fd = link.fd;  // owned by the link until finish() closes it
  if (settings_.tcp_nodelay) set_no_delay(fd);
  const auto header =
      encode_connection_header({{"callerid", caller_id_},
                                {"topic", topic_},
                                {"type", type_.name},
                                {"md5sum", type_.md5sum},
                                {"message_definition", type_.definition},
                                {"tcp_nodelay", settings_.tcp_nodelay ? "1" : "0"}});
  if (write_all(fd, header.data(), header.size()) != IoStatus::Ok)
    return finish(LogLevel::Warn, "connection lost while sending the header");
  uint8_t prefix[4];
  if (read_exact(fd, prefix, 4) != IoStatus::Ok)
    return finish(LogLevel::Warn, "connection closed before the publisher's header");
  auto length = check_header_length(le32(prefix));
  if (!length) return refused("bad header (TooLarge): " + length.error().detail);
  std::vector<uint8_t> body(*length);
  if (read_exact(fd, body.data(), body.size()) != IoStatus::Ok)
    return refused("header truncated: the connection closed inside its " + std::to_string(*length) +
                   " bytes");
  auto reply = decode_connection_header(body);
  if (!reply)
    return refused("bad header (" + std::string(to_string(reply.error().code)) +
                   "): " + reply.error().detail);
  if (auto e = reply->find("error"); e != reply->end())
    return refused("the publisher refused: " + e->second);
  auto md5 = require_field(*reply, "md5sum");
  if (!md5) return refused(md5.error().detail);
  if (*md5 != type_.md5sum && *md5 != "*") {
    const auto type = reply->find("type");
    return refused("md5sum mismatch: the publisher sends " +
                   (type != reply->end() ? type->second : std::string("(no type)")) +
                   " with md5sum " + *md5 + ", this subscriber expects " + type_.name +
                   " with md5sum " + type_.md5sum);
  }
  const auto caller = reply->count("callerid") ? reply->at("callerid") : link.uri;
  link.connected = true;
  log_(LogLevel::Debug, where + ": connected to " + caller);
  std::unique_ptr<uint8_t[]> buffer;
  size_t capacity = 0;
  for (uint64_t sequence = 0;; ++sequence) {
    const IoStatus st = read_exact(fd, prefix, 4);
    if (st != IoStatus::Ok)
      return finish(LogLevel::Info,
                    st == IoStatus::Eof ? "publisher closed the connection" : "connection lost");
    const uint32_t size = le32(prefix);
    if (size > settings_.max_message_bytes)
      return refused("a message of " + std::to_string(size) + " bytes announced (at most " +
                     std::to_string(settings_.max_message_bytes) + "): dropped the connection");
    if (size > capacity) {
      buffer.reset(new uint8_t[size]);
      capacity = size;
    }
    if (size != 0 && read_exact(fd, buffer.get(), size) != IoStatus::Ok)
      return finish(LogLevel::Info,
                    "connection closed inside a message of " + std::to_string(size) + " bytes");
    {
      std::lock_guard lock(sink_mutex_);
      sink_(WireSample{std::span<const uint8_t>(buffer.get(), size), caller, link.id, sequence});
    }
    ++received_;
  }
}

std::vector<BusInfo> TcprosSubscription::bus_info() const {
  std::lock_guard lock(mutex_);
  std::vector<BusInfo> out;
  for (const auto& l : links_) out.push_back({l->id, l->uri, 'i', topic_, l->connected.load()});
  return out;
}

size_t TcprosSubscription::writer_count() const {
  // Retired links count until their thread has left the read loop: once this is 0 after an
  // update, the sink is not called for the publishers it removed.
  std::lock_guard lock(mutex_);
  auto connected = [](const auto& l) { return l->connected.load(); };
  return static_cast<size_t>(std::count_if(links_.begin(), links_.end(), connected) +
                             std::count_if(retired_.begin(), retired_.end(), connected));
}

WireStats TcprosSubscription::stats() const {
  return WireStats{.received = received_, .refused = refused_};
}

}  // namespace baton::ros1::detail
