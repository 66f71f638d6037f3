// ros1::Node and its NodeImpl: names and environment, the master registration, the slave API
// handlers and the TCPROS accept path (node.hpp, node_impl.hpp).
#include "baton/ros1/node.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "baton/common/thread_name.hpp"
#include "batonshm.hpp"
#include "node_impl.hpp"
#include "xmlrpc_call.hpp"

namespace baton::ros1 {
namespace detail {
namespace {

using XmlRpc::XmlRpcValue;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// A ROS graph name: [~/a-zA-Z][/a-zA-Z0-9_]*, no "//".
bool valid_graph_name(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '/' || n[0] == '~'))
    return false;
  for (size_t i = 1; i < n.size(); ++i) {
    const char c = n[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '/') return false;
    if (c == '/' && n[i - 1] == '/') return false;
  }
  return true;
}

std::string join(const std::string& ns, const std::string& name) {
  return ns == "/" ? "/" + name : ns + "/" + name;
}

void default_log(LogLevel level, std::string_view text) {
  if (level < LogLevel::Warn) return;
  std::fprintf(stderr, "[baton_ros1] %s: %.*s\n", std::string(to_string(level)).c_str(),
               static_cast<int>(text.size()), text.data());
}

std::string peer_address(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(addr.sin_port));
}

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

XmlRpcValue empty_list() {
  XmlRpcValue v;
  v.setSize(0);
  return v;
}

}  // namespace

Result<std::shared_ptr<NodeImpl>, Error<NodeError>> NodeImpl::start(const std::string& name,
                                                                    NodeOptions options) {
  using Err = Error<NodeError>;
  auto node = std::shared_ptr<NodeImpl>(new NodeImpl());
  node->log_ = options.log ? options.log : LogHandler(default_log);
  // Remappings first, then options, then the environment, as roscpp does.
  std::string node_name = name, ns = options.ns, master = options.master_uri, host = options.host;
  for (const auto& arg : options.arguments) {
    const auto sep = arg.find(":=");
    if (sep == std::string::npos) continue;
    const std::string key = arg.substr(0, sep), value = arg.substr(sep + 2);
    if (key == "__name") node_name = value;
    if (key == "__ns") ns = value;
    if (key == "__master") master = value;
    if (key == "__ip" || key == "__hostname") host = value;
  }
  if (ns.empty()) ns = env("ROS_NAMESPACE");
  if (ns.empty() || ns[0] != '/') ns = "/" + ns;
  while (ns.size() > 1 && ns.back() == '/') ns.pop_back();
  if (master.empty()) master = env("ROS_MASTER_URI");
  if (host.empty()) host = env("ROS_IP");
  if (host.empty()) host = env("ROS_HOSTNAME");
  if (host.empty()) {
    char buf[256] = {};
    host = ::gethostname(buf, sizeof buf - 1) == 0 && buf[0] != '\0' ? buf : "127.0.0.1";
  }
  if (!valid_graph_name(ns) || !valid_graph_name(node_name) || node_name[0] == '~')
    return unexpected(Err{NodeError::BadName, "node name '" + node_name + "' in namespace '" + ns +
                                                  "' is not a valid ROS graph name"});
  node->ns_ = ns;
  node->name_ = node_name[0] == '/' ? node_name : join(ns, node_name);
  if (!detail::parse_http_uri(master))
    return unexpected(Err{NodeError::NoMasterUri,
                          master.empty()
                              ? std::string("ROS_MASTER_URI is not set (e.g. "
                                            "http://127.0.0.1:11311/)")
                              : "ROS_MASTER_URI '" + master + "' is not http://host:port/"});
  node->master_uri_ = master;
  node->host_ = host;
  node->options_ = std::move(options);
  if (node->options_.rosout) {
    // The node's own lines reach /rosout too; Rosout only queues them (they may come from a
    // thread holding a lock of the publishing path).
    node->rosout_ = std::make_shared<Rosout>(node->name_, node->options_.rosout_level);
    node->log_ = [handler = node->log_, rosout = node->rosout_](LogLevel level,
                                                                std::string_view text) {
      handler(level, text);
      rosout->push(level, text);
    };
  }
  node->types_ = node->options_.types;
  if (!node->types_) {
    node->types_ = std::make_shared<TypeRegistry>();
    node->types_->add_default_roots();
  }
  node->master_ = std::make_unique<MasterClient>(master, node->name_, node->options_.rpc_timeout);
  if (auto pid = node->master_->get_pid(); !pid)
    return unexpected(
        Err{NodeError::MasterUnreachable, "the ROS master at " + master + " does not answer (" +
                                              std::string(to_string(pid.error().code)) + ": " +
                                              pid.error().detail + "); is roscore running there?"});
  // TCPROS server: on the advertised address when it is an IPv4 address, else on all.
  in_addr probe{};
  const std::string bind_to = ::inet_pton(AF_INET, host.c_str(), &probe) == 1 ? host : "";
  auto listener = listen_tcp(bind_to, node->tcpros_port_);
  if (!listener) return unexpected(Err{NodeError::Network, "TCPROS server: " + listener.error()});
  node->listener_ = std::move(*listener);
  node->wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (node->wake_fd_ < 0) return unexpected(Err{NodeError::Network, "eventfd failed"});
  if (node->options_.shared_memory)
    node->shm_node_ = std::make_shared<ShmNode>(node->name_, node->options_.shm_context);
  node->slave_ = std::make_unique<SlaveApi>(node->log_);
  node->add_slave_methods();
  auto port = node->slave_->start();
  if (!port) return unexpected(Err{NodeError::Network, "XML-RPC server: " + port.error()});
  node->uri_ = "http://" + host + ":" + std::to_string(*port) + "/";
  node->service_uri_ = "rosrpc://" + host + ":" + std::to_string(node->tcpros_port_);
  node->accept_thread_ = std::thread([raw = node.get()] {
    name_this_thread("ros1-accept");
    raw->accept_loop();
  });
  return node;
}

NodeImpl::~NodeImpl() {
  stopping_ = true;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  if (slave_) slave_->stop();
  {
    std::lock_guard lock(inbound_mutex_);
    for (auto& in : inbound_)
      if (in->fd >= 0) ::shutdown(in->fd, SHUT_RDWR);
  }
  // Publishers, Subscriptions and ServiceServers keep the node alive, so every publication and
  // service was shut down and no connection still serves one: the threads end.
  for (auto& in : inbound_)
    if (in->thread.joinable()) in->thread.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Result<std::string, Error<EndpointError>> NodeImpl::resolve(const std::string& name) const {
  using Err = Error<EndpointError>;
  std::string out;
  if (!name.empty() && name[0] == '~')
    out = name_ + "/" + name.substr(name.size() > 1 && name[1] == '/' ? 2 : 1);
  else if (!name.empty() && name[0] == '/')
    out = name;
  else
    out = join(ns_, name);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (name.empty() || !valid_graph_name(out))
    return unexpected(Err{EndpointError::BadName, "'" + name + "' is not a valid ROS name"});
  return out;
}

Result<std::shared_ptr<Publication>, Error<EndpointError>> NodeImpl::advertise(
    const std::string& topic, const std::string& type, const PublisherOptions& options,
    bool shared_memory) {
  using Err = Error<EndpointError>;
  auto resolved = resolve(topic);
  if (!resolved) return unexpected(resolved.error());
  auto t = types_->message(type);
  if (!t) return unexpected(Err{EndpointError::UnknownType, t.error().detail});
  auto tcpros = std::make_shared<TcprosPublication>(*resolved, **t, name_, options.latch,
                                                    options.queue_size, log_);
  // A latched topic stays on TCPROS: a late subscriber must get the last message only.
  std::optional<RawPublisher> shm;
  if (shm_node_ && shared_memory && !options.latch) {
    auto made = shm_node_->publisher(*resolved, **t, static_cast<uint32_t>(options.queue_size));
    if (made)
      shm.emplace(std::move(*made));
    else
      log_(LogLevel::Warn, *resolved + ": no BATONSHM, TCPROS only: " + made.error());
  }
  auto pub = std::make_shared<Publication>(std::move(tcpros), std::move(shm));
  {
    std::lock_guard lock(mutex_);
    if (!publications_.emplace(*resolved, pub).second)
      return unexpected(Err{EndpointError::Duplicate, name_ + " already publishes " + *resolved});
  }
  if (auto r = master_->register_publisher(*resolved, (*t)->name, uri_); !r) {
    std::lock_guard lock(mutex_);
    publications_.erase(*resolved);
    return unexpected(Err{EndpointError::MasterFailed,
                          std::string(to_string(r.error().code)) + ": " + r.error().detail});
  }
  return pub;
}

Result<std::shared_ptr<TcprosSubscription>, Error<EndpointError>> NodeImpl::subscribe(
    const std::string& topic, const std::string& type, WireReader::Sink sink,
    const SubscriptionOptions& options) {
  using Err = Error<EndpointError>;
  auto resolved = resolve(topic);
  if (!resolved) return unexpected(resolved.error());
  auto t = types_->message(type);
  if (!t) return unexpected(Err{EndpointError::UnknownType, t.error().detail});
  LinkSettings settings{options_.rpc_timeout, options_.max_message_bytes, options.tcp_nodelay,
                        options.queue_size};
  auto sub = std::make_shared<TcprosSubscription>(*resolved, **t, name_, std::move(sink), settings,
                                                  log_, connection_ids_, shm_node_);
  {
    std::lock_guard lock(mutex_);
    if (!subscriptions_.emplace(*resolved, sub).second)
      return unexpected(
          Err{EndpointError::Duplicate, name_ + " already subscribes to " + *resolved});
  }
  auto publishers = master_->register_subscriber(*resolved, (*t)->name, uri_);
  if (!publishers) {
    std::lock_guard lock(mutex_);
    subscriptions_.erase(*resolved);
    return unexpected(
        Err{EndpointError::MasterFailed,
            std::string(to_string(publishers.error().code)) + ": " + publishers.error().detail});
  }
  sub->update_publishers(*publishers);
  return sub;
}

Result<std::shared_ptr<TcprosServiceServer>, Error<EndpointError>> NodeImpl::advertise_service(
    const std::string& service, const std::string& type, ServiceHandler handler) {
  using Err = Error<EndpointError>;
  auto resolved = resolve(service);
  if (!resolved) return unexpected(resolved.error());
  auto t = types_->service(type);
  if (!t) return unexpected(Err{EndpointError::UnknownType, t.error().detail});
  auto server = std::make_shared<TcprosServiceServer>(
      *resolved, **t, name_, service_uri_, std::move(handler), options_.max_message_bytes,
      options_.handshake_timeout, log_);
  {
    std::lock_guard lock(mutex_);
    if (!services_.emplace(*resolved, server).second)
      return unexpected(Err{EndpointError::Duplicate, name_ + " already provides " + *resolved});
  }
  if (auto r = master_->register_service(*resolved, service_uri_, uri_); !r) {
    std::lock_guard lock(mutex_);
    services_.erase(*resolved);
    return unexpected(Err{EndpointError::MasterFailed,
                          std::string(to_string(r.error().code)) + ": " + r.error().detail});
  }
  return server;
}

Result<std::unique_ptr<TcprosServiceClient>, Error<EndpointError>> NodeImpl::service_client(
    const std::string& service, const std::string& type, const ServiceClientOptions& options) {
  using Err = Error<EndpointError>;
  auto resolved = resolve(service);
  if (!resolved) return unexpected(resolved.error());
  auto t = types_->service(type);
  if (!t) return unexpected(Err{EndpointError::UnknownType, t.error().detail});
  return std::make_unique<TcprosServiceClient>(*resolved, **t, name_, *master_, options,
                                               options_.max_message_bytes, log_);
}

std::vector<std::string> NodeImpl::published_topics() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> topics;
  for (const auto& [topic, publication] : publications_) topics.push_back(topic);
  return topics;
}

// The master forgets the endpoint, then the node does (no requestTopic, publisherUpdate or
// inbound connection reaches it after that), then its connections close.
void NodeImpl::retire(Publication& publication) {
  forget(publications_, publication.topic(),
         master_->unregister_publisher(publication.topic(), uri_));
  publication.shutdown();
}

void NodeImpl::retire(TcprosSubscription& subscription) {
  forget(subscriptions_, subscription.topic(),
         master_->unregister_subscriber(subscription.topic(), uri_));
  subscription.shutdown();
}

void NodeImpl::retire(TcprosServiceServer& service) {
  forget(services_, service.service(),
         master_->unregister_service(service.service(), service_uri_));
  service.shutdown();
}

void NodeImpl::add_slave_methods() {
  auto ok = [](XmlRpcValue value) { return ros_answer(1, "", std::move(value)); };
  slave_->add("getPid",
              [ok](XmlRpcValue&, XmlRpcValue& r) { r = ok(static_cast<int>(::getpid())); });
  slave_->add("getMasterUri",
              [this, ok](XmlRpcValue&, XmlRpcValue& r) { r = ok(XmlRpcValue(master_uri_)); });
  slave_->add("shutdown", [this](XmlRpcValue& p, XmlRpcValue& r) {
    std::string why = p.size() > 1 && p[1].getType() == XmlRpcValue::TypeString
                          ? std::string(p[1])
                          : std::string("(no reason given)");
    shutdown_requested_ = true;
    log_(LogLevel::Warn, name_ + ": shutdown requested by " + std::string(p[0]) + ": " + why);
    r = ros_answer(1, "shutdown", XmlRpcValue(0));
  });
  slave_->add("paramUpdate", [](XmlRpcValue&, XmlRpcValue& r) { r = ros_answer(1, "", 0); });
  auto topic_types = [this](bool publications) {
    std::lock_guard lock(mutex_);
    XmlRpcValue list = empty_list();
    int i = 0;
    if (publications) {
      for (const auto& [topic, pub] : publications_) {
        list[i][0] = topic;
        list[i++][1] = pub->type().name;
      }
    } else {
      for (const auto& [topic, sub] : subscriptions_) {
        list[i][0] = topic;
        list[i++][1] = sub->type().name;
      }
    }
    return list;
  };
  slave_->add("getPublications",
              [topic_types, ok](XmlRpcValue&, XmlRpcValue& r) { r = ok(topic_types(true)); });
  slave_->add("getSubscriptions",
              [topic_types, ok](XmlRpcValue&, XmlRpcValue& r) { r = ok(topic_types(false)); });
  slave_->add("getBusInfo", [this, ok](XmlRpcValue&, XmlRpcValue& r) {
    std::vector<BusInfo> rows;
    {
      std::lock_guard lock(mutex_);
      for (const auto& [topic, pub] : publications_)
        for (auto& row : pub->tcpros().bus_info()) rows.push_back(std::move(row));
      for (const auto& [topic, sub] : subscriptions_)
        for (auto& row : sub->bus_info()) rows.push_back(std::move(row));
    }
    XmlRpcValue list = empty_list();
    for (size_t i = 0; i < rows.size(); ++i) {
      XmlRpcValue& row = list[static_cast<int>(i)];
      row[0] = static_cast<int>(rows[i].id);
      row[1] = rows[i].peer;
      row[2] = std::string(1, rows[i].direction);
      row[3] = rows[i].transport;
      row[4] = rows[i].topic;
      row[5] = rows[i].connected;
      row[6] = std::string();
    }
    r = ok(list);
  });
  slave_->add("getBusStats", [this, ok](XmlRpcValue&, XmlRpcValue& r) {
    // [publishStats, subscribeStats, serviceStats]; per topic [topic, messages, connections].
    XmlRpcValue stats;
    stats[0] = empty_list();
    stats[1] = empty_list();
    stats[2] = empty_list();
    std::lock_guard lock(mutex_);
    int i = 0;
    for (const auto& [topic, pub] : publications_) {
      stats[0][i][0] = topic;
      stats[0][i][1] = static_cast<int>(pub->tcpros().stats().sent + pub->shm_stats().sent);
      stats[0][i++][2] = empty_list();
    }
    i = 0;
    for (const auto& [topic, sub] : subscriptions_) {
      stats[1][i][0] = topic;
      stats[1][i++][1] = empty_list();
    }
    r = ok(stats);
  });
  slave_->add("publisherUpdate", [this](XmlRpcValue& p, XmlRpcValue& r) {
    const std::string topic = p[1];
    auto uris = string_list(p[2], "publisherUpdate " + topic);
    if (!uris) {
      log_(LogLevel::Warn, "publisherUpdate: " + uris.error().detail);
      r = ros_answer(-1, uris.error().detail, 0);
      return;
    }
    std::shared_ptr<TcprosSubscription> sub;
    {
      std::lock_guard lock(mutex_);
      if (auto it = subscriptions_.find(topic); it != subscriptions_.end()) sub = it->second;
    }
    if (sub) sub->update_publishers(*uris);
    r = ros_answer(1, "", 0);
  });
  slave_->add("requestTopic", [this](XmlRpcValue& p, XmlRpcValue& r) {
    const std::string caller = p[0], topic = p[1];
    XmlRpcValue& protocols = p[2];
    std::shared_ptr<Publication> pub;
    {
      std::lock_guard lock(mutex_);
      if (auto it = publications_.find(topic); it != publications_.end()) pub = it->second;
    }
    if (!pub) {
      r = ros_answer(-1, name_ + " does not publish " + topic, 0);
      return;
    }
    // The first protocol offered that this node speaks, as roscpp picks.
    for (int i = 0; i < protocols.size(); ++i) {
      XmlRpcValue& offered = protocols[i];
      if (auto grant = pub->grant(); grant && is_local_shm_offer(offered)) {
        r = ros_answer(1, "BATONSHM on " + grant->topic, encode_grant(*grant));
        return;
      }
      if (offered.getType() == XmlRpcValue::TypeArray && offered.size() >= 1 &&
          offered[0].getType() == XmlRpcValue::TypeString && std::string(offered[0]) == "TCPROS") {
        XmlRpcValue params;
        params[0] = std::string("TCPROS");
        params[1] = host_;
        params[2] = tcpros_port_;
        r = ros_answer(1, "ready on " + host_ + ":" + std::to_string(tcpros_port_), params);
        return;
      }
    }
    log_(LogLevel::Warn, "requestTopic " + topic + " from " + caller +
                             ": no protocol offered that this node speaks (TCPROS, BATONSHM "
                             "from this host) in " +
                             protocols.toXml());
    r = ros_answer(0, "no supported protocol (this node speaks TCPROS)", empty_list());
  });
}

void NodeImpl::accept_loop() {
  pollfd fds[2] = {{listener_.fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stopping_) {
    if (::poll(fds, 2, -1) < 0) continue;
    if (stopping_ || (fds[1].revents & POLLIN)) break;
    if (!(fds[0].revents & POLLIN)) continue;
    Socket sock(::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!sock) continue;
    std::lock_guard lock(inbound_mutex_);
    std::erase_if(inbound_, [](const std::shared_ptr<Inbound>& in) {
      if (!in->done) return false;
      in->thread.join();
      return true;
    });
    auto in = std::make_shared<Inbound>();
    in->fd = sock.fd();
    in->thread = std::thread([this, raw = in.get(), s = std::move(sock)]() mutable {
      name_this_thread("ros1-inbound");  // a subscriber's or a service client's connection
      serve_inbound(*raw, std::move(s));
    });
    inbound_.push_back(std::move(in));
  }
}

void NodeImpl::serve_inbound(Inbound& inbound, Socket socket) {
  const std::string peer = peer_address(socket.fd());
  auto drop = [&](LogLevel level, const std::string& why) {
    log_(level, "TCPROS: dropped the connection from " + peer + ": " + why);
  };
  auto run = [&] {
    set_receive_timeout(socket.fd(), options_.handshake_timeout);
    uint8_t prefix[4];
    if (const auto st = read_exact(socket.fd(), prefix, 4); st != IoStatus::Ok)
      return drop(LogLevel::Warn, st == IoStatus::Eof ? "closed before sending a header"
                                                      : "no header (timeout or error)");
    auto length = check_header_length(le32(prefix));
    if (!length)
      return drop(LogLevel::Error, "bad connection header (TooLarge): " + length.error().detail);
    std::vector<uint8_t> body(*length);
    if (read_exact(socket.fd(), body.data(), body.size()) != IoStatus::Ok)
      return drop(LogLevel::Error, "connection header truncated: fewer than the " +
                                       std::to_string(*length) + " bytes announced");
    auto header = decode_connection_header(body);
    if (!header)
      return drop(LogLevel::Error, "bad connection header (" +
                                       std::string(to_string(header.error().code)) +
                                       "): " + header.error().detail);
    if (header->count("service") != 0)
      return serve_service(inbound, std::move(socket), *header, peer);
    auto topic = require_field(*header, "topic");
    if (!topic) {
      const std::string why = topic.error().detail + " (nor a 'service' field)";
      const auto reply = encode_connection_header({{"error", why}});
      (void)write_all(socket.fd(), reply.data(), reply.size());
      return drop(LogLevel::Error, why);
    }
    std::shared_ptr<Publication> pub;
    {
      std::lock_guard lock(mutex_);
      if (auto it = publications_.find(*topic); it != publications_.end()) pub = it->second;
    }
    if (!pub) {
      const std::string why = name_ + " does not publish " + *topic;
      const auto reply = encode_connection_header({{"error", why}});
      (void)write_all(socket.fd(), reply.data(), reply.size());
      return drop(LogLevel::Warn, why);
    }
    set_receive_timeout(socket.fd(), std::chrono::milliseconds(0));
    {
      std::lock_guard lock(inbound_mutex_);
      inbound.fd = -1;  // from here the publication's shutdown() stops the connection
    }
    pub->tcpros().serve(std::move(socket), *header, connection_ids_->fetch_add(1));
  };
  run();
  {
    std::lock_guard lock(inbound_mutex_);
    inbound.fd = -1;
  }
  inbound.done = true;
}

void NodeImpl::serve_service(Inbound& inbound, Socket socket, const ConnectionHeader& header,
                             const std::string& peer) {
  const std::string& service = header.at("service");
  std::shared_ptr<TcprosServiceServer> server;
  {
    std::lock_guard lock(mutex_);
    if (auto it = services_.find(service); it != services_.end()) server = it->second;
  }
  if (!server) {
    const std::string why = name_ + " does not provide service " + service;
    const auto reply = encode_connection_header({{"error", why}});
    (void)write_all(socket.fd(), reply.data(), reply.size());
    log_(LogLevel::Warn, "TCPROS: dropped the connection from " + peer + ": " + why);
    return;
  }
  set_receive_timeout(socket.fd(), std::chrono::milliseconds(0));
  {
    std::lock_guard lock(inbound_mutex_);
    inbound.fd = -1;  // from here the service's shutdown() stops the connection
  }
  server->serve(std::move(socket), header);
}

}  // namespace detail

Result<std::shared_ptr<Node>, Error<NodeError>> Node::create(const std::string& name,
                                                             NodeOptions options) {
  auto impl = detail::NodeImpl::start(name, std::move(options));
  if (!impl) return unexpected(impl.error());
  auto node = std::shared_ptr<Node>(new Node(std::move(*impl)));
  if (auto& rosout = node->impl_->rosout_) {
    // As many lines as Rosout queues may be on their way to a slow subscriber (roscore's rosout).
    PublisherOptions queue;
    queue.queue_size = detail::Rosout::MAX_QUEUED;
    auto pub = node->advertise("/rosout", "rosgraph_msgs/Log", queue, /*shared_memory=*/false);
    if (pub) {
      node->rosout_ = std::move(*pub);
      rosout->start(*node->rosout_,
                    [impl = node->impl_.get()] { return impl->published_topics(); });
    } else {
      node->impl_->log_(LogLevel::Warn, "no /rosout (" + pub.error().detail +
                                            "): the node logs to NodeOptions::log only");
      rosout->stop();
    }
  }
  return node;
}

Node::Node(std::shared_ptr<detail::NodeImpl> impl) : impl_(std::move(impl)) {}

Node::~Node() {
  // The /rosout thread publishes through rosout_: it ends before rosout_ unregisters.
  if (impl_->rosout_) impl_->rosout_->stop();
}

void Node::log(LogLevel level, std::string_view text) { impl_->log_(level, text); }

Result<std::unique_ptr<Publisher>, Error<EndpointError>> Node::advertise(const std::string& topic,
                                                                         const std::string& type,
                                                                         PublisherOptions options) {
  return advertise(topic, type, options, /*shared_memory=*/true);
}

Result<std::unique_ptr<Publisher>, Error<EndpointError>> Node::advertise(const std::string& topic,
                                                                         const std::string& type,
                                                                         PublisherOptions options,
                                                                         bool shared_memory) {
  auto pub = impl_->advertise(topic, type, options, shared_memory);
  if (!pub) return unexpected(pub.error());
  return std::unique_ptr<Publisher>(new Publisher(
      std::make_unique<detail::Registered<detail::Publication>>(impl_, std::move(*pub))));
}

Result<std::unique_ptr<Subscription>, Error<EndpointError>> Node::subscribe(
    const std::string& topic, const std::string& type, WireReader::Sink sink,
    SubscriptionOptions options) {
  auto sub = impl_->subscribe(topic, type, std::move(sink), options);
  if (!sub) return unexpected(sub.error());
  return std::unique_ptr<Subscription>(new Subscription(
      std::make_unique<detail::Registered<detail::TcprosSubscription>>(impl_, std::move(*sub))));
}

Result<std::unique_ptr<ServiceServer>, Error<EndpointError>> Node::advertise_service(
    const std::string& service, const std::string& type, ServiceHandler handler) {
  auto server = impl_->advertise_service(service, type, std::move(handler));
  if (!server) return unexpected(server.error());
  return std::unique_ptr<ServiceServer>(
      new ServiceServer(std::make_unique<detail::Registered<detail::TcprosServiceServer>>(
          impl_, std::move(*server))));
}

Result<std::unique_ptr<ServiceClient>, Error<EndpointError>> Node::service_client(
    const std::string& service, const std::string& type, ServiceClientOptions options) {
  auto client = impl_->service_client(service, type, options);
  if (!client) return unexpected(client.error());
  return std::unique_ptr<ServiceClient>(new ServiceClient(impl_, std::move(*client)));
}

const std::string& Node::name() const noexcept { return impl_->name_; }
const std::string& Node::uri() const noexcept { return impl_->uri_; }
const std::string& Node::master_uri() const noexcept { return impl_->master_uri_; }
const MasterClient& Node::master() const noexcept { return *impl_->master_; }
TypeRegistry& Node::types() noexcept { return *impl_->types_; }
Result<std::string, Error<EndpointError>> Node::resolve(const std::string& name) const {
  return impl_->resolve(name);
}
bool Node::shutdown_requested() const noexcept { return impl_->shutdown_requested_; }

}  // namespace baton::ros1
