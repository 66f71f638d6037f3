// TCPROS subscriber side (tcpros_subscription.hpp).
#include "tcpros_subscription.hpp"

#include <sys/socket.h>
#include <unistd.h>
#include <xmlrpcpp/XmlRpcException.h>

#include <algorithm>

#include "baton/common/thread_name.hpp"
#include "baton/ros1/connection_header.hpp"
#include "batonshm.hpp"
#include "socket.hpp"
#include "xmlrpc_call.hpp"

namespace baton::ros1::detail {
namespace {

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The core's sample as the sink's: the transport named by the path it came by.
wire::PushedReader::Sink as_wire_sample(WireReader::Sink sink) {
  return [sink = std::move(sink)](const wire::PushedSample& s) {
    sink(WireSample{s.bytes, s.source, s.connection, s.sequence,
                    s.path == wire::ReadPath::Shm ? BATONSHM : "TCPROS"});
  };
}

}  // namespace

TcprosSubscription::TcprosSubscription(std::string topic, const MessageType& type,
                                       std::string caller_id, Sink sink, LinkSettings settings,
                                       LogHandler log,
                                       std::shared_ptr<std::atomic<uint64_t>> connection_ids,
                                       std::shared_ptr<ShmNode> shm_node)
    : topic_(std::move(topic)),
      type_(type),
      caller_id_(std::move(caller_id)),
      settings_(settings),
      log_(std::move(log)),
      connection_ids_(std::move(connection_ids)),
      core_(as_wire_sample(std::move(sink))) {
  if (shm_node)
    shm_ = std::make_unique<ShmReader>(topic_, type_, std::move(shm_node), settings_.shm_queue,
                                       settings_.max_message_bytes, core_, log_);
}

TcprosSubscription::~TcprosSubscription() { shutdown(); }

void TcprosSubscription::stop_link(Link& link) {
  {
    std::lock_guard lock(link.mutex);
    link.stop = true;
    if (link.fd >= 0) ::shutdown(link.fd, SHUT_RDWR);  // a blocked recv returns
    link.ended.notify_all();
  }
  core_.revoke(link.id);  // nothing of it is delivered from now on
  if (link.via_shm) {     // no thread reads it: it ends here
    link.connected = false;
    link.done = true;
    links_changed_.notify_all();
  }
}

void TcprosSubscription::drain_link(Link& link) {
  {
    std::lock_guard lock(link.mutex);
    link.retiring = true;  // its connection is not made again once it ends
    link.ended.notify_all();
  }
  link.drain_timer = std::thread([this, &link] {
    name_this_thread("ros1-drain");
    {
      std::unique_lock lock(link.mutex);
      if (link.ended.wait_for(lock, settings_.drain_grace,
                              [&] { return link.done.load() || link.stop; }))
        return;
    }
    log_(LogLevel::Info,
         "TCPROS " + topic_ + " from " + link.uri +
             ": the master removed this publisher and it kept the connection open " +
             std::to_string(settings_.drain_grace.count()) + " ms: closed");
    stop_link(link);
  });
}

void TcprosSubscription::set_connected(Link& link, bool connected) {
  {
    std::lock_guard lock(mutex_);
    link.connected = connected;
  }
  links_changed_.notify_all();
}

bool TcprosSubscription::wait_for_writers(size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return links_changed_.wait_for(lock, timeout, [&] {
    auto connected = [](const auto& l) { return l->connected.load(); };
    return static_cast<size_t>(std::count_if(links_.begin(), links_.end(), connected) +
                               std::count_if(retired_.begin(), retired_.end(), connected)) >= n;
  });
}

void TcprosSubscription::retire_shm_link(Link& link) {
  shm_->retire(link.id, settings_.drain_grace, [this, &link] {
    {
      std::lock_guard lock(mutex_);  // reap() frees a done link under it
      link.connected = false;
      link.done = true;
    }
    links_changed_.notify_all();
  });
}

void TcprosSubscription::reap(std::vector<std::shared_ptr<Link>>& links) {
  std::erase_if(links, [](const std::shared_ptr<Link>& l) {
    if (!l->done) return false;
    if (l->thread.joinable()) l->thread.join();
    if (l->drain_timer.joinable()) l->drain_timer.join();  // it returns once done is set
    return true;
  });
}

void TcprosSubscription::update_publishers(const std::vector<std::string>& uris) {
  std::lock_guard lock(mutex_);
  if (shut_down_) return;
  reap(retired_);
  // Links to publishers no longer listed, or whose connection ended, are retired: a TCPROS
  // connection that is open (its header may still be on its way) drains, a BATONSHM link is
  // revoked once what it queued is read, the rest stop now.
  std::erase_if(links_, [&](const std::shared_ptr<Link>& l) {
    const bool listed = std::find(uris.begin(), uris.end(), l->uri) != uris.end();
    if (listed && !l->done) return false;
    bool open = false;
    {
      std::lock_guard link_lock(l->mutex);
      open = l->fd >= 0 && !l->stop;
    }
    if (!listed && l->via_shm && !l->done && shm_)
      retire_shm_link(*l);
    else if (!listed && open && !l->done && !l->via_shm)
      drain_link(*l);
    else
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
    link->thread = std::thread([this, raw = link.get()] {
      name_this_thread("ros1-tcpros-in");
      run(*raw);
    });
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
  for (auto& l : all) {
    if (l->thread.joinable()) l->thread.join();
    if (l->drain_timer.joinable()) l->drain_timer.join();
  }
  if (shm_) shm_->shutdown();
}

TcprosSubscription::Negotiated TcprosSubscription::negotiate(Link& link, bool offer_shm,
                                                             std::string& host, int& port,
                                                             std::string& why) {
  XmlRpc::XmlRpcValue params;
  params[0] = caller_id_;
  params[1] = topic_;
  params[2].setSize(0);
  if (offer_shm) params[2][0] = shm_offer();
  params[2][params[2].size()][0] = std::string("TCPROS");
  auto answer = ros_call(link.uri, "requestTopic", params, settings_.rpc_timeout);
  if (!answer) {
    why = "requestTopic failed: " + answer.error().detail;
    return Negotiated::Failed;
  }
  if (offer_shm && is_shm_answer(*answer)) {
    auto grant = decode_grant(*answer);
    if (!grant) {
      why = grant.error();
      return Negotiated::Refused;
    }
    auto port = shm_->attach(*grant);
    if (!port) {
      why = "BATONSHM granted but not usable: " + port.error();
      return Negotiated::Refused;
    }
    core_.admit_shm(link.id, grant->caller_id, *port);
    return Negotiated::Shm;
  }
  // ["TCPROS", host, port].
  try {
    if (answer->getType() != XmlRpc::XmlRpcValue::TypeArray || answer->size() != 3 ||
        std::string((*answer)[0]) != "TCPROS") {
      why = "requestTopic answered " + answer->toXml() + ", not [TCPROS, host, port]";
      return Negotiated::Refused;
    }
    host = std::string((*answer)[1]);
    port = (*answer)[2];
  } catch (const XmlRpc::XmlRpcException& e) {
    why = "requestTopic answered " + answer->toXml() + ": " + e.getMessage();
    return Negotiated::Refused;
  }
  return Negotiated::Tcpros;
}

void TcprosSubscription::run(Link& link) {
  // A connection to a publisher the master still lists that ends (the network, the publisher's
  // socket) is made again, as roscpp and rospy make theirs, after RETRY_FIRST, doubling up to
  // RETRY_MAX, until it works, the publisher is refused, or the link is stopped or retired.
  auto wait = RETRY_FIRST;
  for (bool first = true;; wait = std::min(wait * 2, RETRY_MAX), first = false) {
    const LinkEnd end = session(link, first);
    if (end == LinkEnd::Shm) return;  // read by shm_; stop_link or retire_shm_link ends it
    if (end == LinkEnd::Final) break;
    if (end == LinkEnd::Lost) wait = RETRY_FIRST;  // it had worked: start over
    {
      std::unique_lock lock(link.mutex);
      if (link.stop || link.retiring) break;
      log_(wait == RETRY_FIRST ? LogLevel::Info : LogLevel::Debug,
           "TCPROS " + topic_ + " from " + link.uri +
               ": the master still lists this publisher: "
               "connecting again in " +
               std::to_string(wait.count()) + " ms");
      if (link.ended.wait_for(lock, wait, [&] { return link.stop || link.retiring; })) break;
    }
  }
  std::lock_guard lock(link.mutex);
  link.done = true;
  link.ended.notify_all();  // a drain timer stops waiting
}

TcprosSubscription::LinkEnd TcprosSubscription::session(Link& link, bool first) {
  const std::string where = "TCPROS " + topic_ + " from " + link.uri;
  bool reading = false;  // the connection got as far as reading messages
  // The connection ended: nothing of it is delivered any more. `end` says whether it may be made
  // again (Lost, Failed: the network, the publisher's socket) or not (Final).
  auto end_session = [&](LogLevel level, const std::string& why, LinkEnd end) {
    if (!why.empty()) log_(level, where + ": " + why);
    core_.revoke(link.id);
    {
      std::lock_guard lock(link.mutex);
      if (link.fd >= 0) ::close(link.fd);
      link.fd = -1;
    }
    set_connected(link, false);
    return end;
  };
  // A publisher that is down fails every attempt alike: its reason is logged on the first attempt,
  // then at Debug; a connection that worked is logged when it is lost.
  auto lost = [&](LogLevel level, const std::string& why) {
    if (reading) return end_session(level, why, LinkEnd::Lost);
    return end_session(first ? level : LogLevel::Debug, why, LinkEnd::Failed);
  };
  auto refused = [&](const std::string& why) {
    ++refused_;
    return end_session(LogLevel::Error, why, LinkEnd::Final);
  };
  std::string host, why;
  int port = 0;
  auto how = negotiate(link, shm_ != nullptr, host, port, why);
  if (how == Negotiated::Shm) {
    {
      // The order update_publishers takes them in: stop_link then either sees via_shm, or this
      // sees stop.
      std::lock_guard lock(mutex_);
      std::lock_guard link_lock(link.mutex);
      if (link.stop) {
        core_.revoke(link.id);
        return LinkEnd::Final;
      }
      link.via_shm = true;
      link.connected = true;
    }
    links_changed_.notify_all();
    log_(LogLevel::Debug, "BATONSHM " + topic_ + " from " + link.uri + ": reading in place");
    return LinkEnd::Shm;
  }
  if (how == Negotiated::Refused && shm_) {  // a bad grant: TCPROS still works
    log_(LogLevel::Warn, where + ": " + why + "; asking for TCPROS instead");
    how = negotiate(link, false, host, port, why);
  }
  if (how == Negotiated::Failed) return lost(LogLevel::Warn, why);
  if (how == Negotiated::Refused) return refused(why);
  auto sock = connect_tcp(host, port, settings_.rpc_timeout);
  if (!sock) return lost(LogLevel::Warn, "cannot connect: " + sock.error());
  {
    std::lock_guard lock(link.mutex);
    if (link.stop) return end_session(LogLevel::Debug, "", LinkEnd::Final);
    link.fd = sock->release();
  }
  const int fd = link.fd;  // owned by the link until end_session closes it
  if (settings_.tcp_nodelay) set_no_delay(fd);
  const auto header =
      encode_connection_header({{"callerid", caller_id_},
                                {"topic", topic_},
                                {"type", type_.name},
                                {"md5sum", type_.md5sum},
                                {"message_definition", type_.definition},
                                {"tcp_nodelay", settings_.tcp_nodelay ? "1" : "0"}});
  if (write_all(fd, header.data(), header.size()) != IoStatus::Ok)
    return lost(LogLevel::Warn, "connection lost while sending the header");
  uint8_t prefix[4];
  if (read_exact(fd, prefix, 4) != IoStatus::Ok)
    return lost(LogLevel::Warn, "connection closed before the publisher's header");
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
  // Read over TCPROS from now on: this link's messages are the publisher's (an earlier admission
  // of it, on either path, is superseded).
  const auto admitted = core_.admit_wire(link.id, caller);
  bool stopped = false;
  {
    // stop_link's revoke may have come before the admission, which must not outlive it.
    std::lock_guard lock(link.mutex);
    stopped = link.stop;
  }
  if (stopped) return end_session(LogLevel::Debug, "", LinkEnd::Final);  // revokes it
  set_connected(link, true);
  reading = true;
  log_(LogLevel::Debug, where + ": connected to " + caller);
  std::unique_ptr<uint8_t[]> buffer;
  size_t capacity = 0;
  while (true) {
    const IoStatus st = read_exact(fd, prefix, 4);
    if (st != IoStatus::Ok)
      return lost(LogLevel::Info,
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
      return lost(LogLevel::Info,
                  "connection closed inside a message of " + std::to_string(size) + " bytes");
    core_.push_wire(*admitted, std::span<const uint8_t>(buffer.get(), size));
  }
}

std::vector<BusInfo> TcprosSubscription::bus_info() const {
  std::lock_guard lock(mutex_);
  std::vector<BusInfo> out;
  for (const auto& l : links_)
    out.push_back(
        {l->id, l->uri, 'i', topic_, l->connected.load(), l->via_shm ? "BATONSHM" : "TCPROS"});
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
  const auto tcpros = core_.stats(wire::ReadPath::Wire);
  return WireStats{.received = tcpros.received, .refused = refused_, .bytes = tcpros.bytes};
}

WireStats TcprosSubscription::shm_stats() const {
  if (!shm_) return {};
  return WireStats{.dropped = shm_->lost(),
                   .received = core_.stats(wire::ReadPath::Shm).received,
                   .refused = shm_->refused()};
}

}  // namespace baton::ros1::detail
