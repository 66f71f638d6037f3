// Private to baton_ros1: the state behind a ros1::Node, shared by its Publisher and Subscription
// handles (each keeps it alive).
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "baton/ros1/node.hpp"
#include "publication.hpp"
#include "rosout.hpp"
#include "shm_node.hpp"
#include "slave_api.hpp"
#include "socket.hpp"
#include "tcpros_publication.hpp"
#include "tcpros_service_client.hpp"
#include "tcpros_service_server.hpp"
#include "tcpros_subscription.hpp"

namespace baton::ros1::detail {

class NodeImpl {
 public:
  static Result<std::shared_ptr<NodeImpl>, Error<NodeError>> start(const std::string& name,
                                                                   NodeOptions options);
  ~NodeImpl();

  Result<std::string, Error<EndpointError>> resolve(const std::string& name) const;
  // `shared_memory` false: TCPROS only (/rosout: a stream for roscore's rosout, not worth a
  // shared-memory topic in every node).
  Result<std::shared_ptr<Publication>, Error<EndpointError>> advertise(
      const std::string& topic, const std::string& type, const PublisherOptions& options,
      bool shared_memory = true);
  Result<std::shared_ptr<TcprosSubscription>, Error<EndpointError>> subscribe(
      const std::string& topic, const std::string& type, WireReader::Sink sink,
      const SubscriptionOptions& options);
  Result<std::shared_ptr<TcprosServiceServer>, Error<EndpointError>> advertise_service(
      const std::string& service, const std::string& type, ServiceHandler handler);
  Result<std::unique_ptr<TcprosServiceClient>, Error<EndpointError>> service_client(
      const std::string& service, const std::string& type, const ServiceClientOptions& options);
  // The topics this node publishes, /rosout included (rosgraph_msgs/Log's `topics`).
  std::vector<std::string> published_topics() const;
  // Unregister from the master and close the endpoint's connections (Registered's destructor).
  void retire(Publication& publication);
  void retire(TcprosSubscription& subscription);
  void retire(TcprosServiceServer& service);

  std::string name_;  // "/ns/name"
  std::string ns_;    // "/ns" or "/"
  std::string host_;
  std::string uri_;  // slave API
  std::string master_uri_;
  NodeOptions options_;
  LogHandler log_;                  // NodeOptions::log, then rosout_
  std::shared_ptr<Rosout> rosout_;  // null when NodeOptions::rosout is off
  std::shared_ptr<TypeRegistry> types_;
  std::unique_ptr<MasterClient> master_;
  std::atomic<bool> shutdown_requested_{false};

 private:
  struct Inbound {
    std::thread thread;
    int fd = -1;  // while handshaking (guarded by inbound_mutex_)
    std::atomic<bool> done{false};
  };
  // Drops `topic` from `endpoints`; logs a failed unregistration (the node goes on regardless).
  template <typename Map>
  void forget(Map& endpoints, const std::string& topic, const Result<int, Error<RpcError>>& r) {
    {
      std::lock_guard lock(mutex_);
      endpoints.erase(topic);
    }
    if (!r) log_(LogLevel::Warn, r.error().detail);
  }
  void add_slave_methods();
  void accept_loop();
  void serve_inbound(Inbound& inbound, Socket socket);
  // An inbound connection whose header names a service (serve_inbound's second half).
  void serve_service(Inbound& inbound, Socket socket, const ConnectionHeader& header,
                     const std::string& peer);

  mutable std::mutex mutex_;  // guards publications_, subscriptions_, services_
  std::map<std::string, std::shared_ptr<Publication>> publications_;
  std::map<std::string, std::shared_ptr<TcprosSubscription>> subscriptions_;
  std::map<std::string, std::shared_ptr<TcprosServiceServer>> services_;
  std::string service_uri_;  // "rosrpc://host:tcpros_port": where services are called
  std::shared_ptr<std::atomic<uint64_t>> connection_ids_ =
      std::make_shared<std::atomic<uint64_t>>(1);

  std::shared_ptr<ShmNode> shm_node_;  // null when NodeOptions::shared_memory is off
  std::unique_ptr<SlaveApi> slave_;
  Socket listener_;
  int tcpros_port_ = 0;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::mutex inbound_mutex_;
  std::list<std::shared_ptr<Inbound>> inbound_;
};

// An endpoint registered by `node`, held by its Publisher / Subscription handle: keeps the node
// alive, and unregisters and closes the endpoint when the handle goes.
template <typename Endpoint>
struct Registered {
  std::shared_ptr<NodeImpl> node;
  std::shared_ptr<Endpoint> endpoint;
  ~Registered() { node->retire(*endpoint); }
};

}  // namespace baton::ros1::detail
