// ros1::Node: a baton node on a ROS 1 graph. It registers with the ROS master over XML-RPC,
// provides and calls services over TCPROS, reads and writes the parameter server (master()),
// answers the slave API other nodes and tools call (requestTopic, publisherUpdate, getBusInfo,
// getBusStats, getPid, getMasterUri, getSubscriptions, getPublications, shutdown) and moves
// messages over TCPROS, so rospy / roscpp nodes and rostopic / rosnode see and talk to it.
//
//   auto node = ros1::Node::create("talker");                      // ROS_MASTER_URI, ROS_IP...
//   auto pub = node->advertise("chatter", "std_msgs/String");
//   ros2::Value msg;  msg.items = {ros2::Value::of_string("hello")};
//   pub->publish(msg);                                              // serialized once
//   auto sub = node->subscribe("chatter", "std_msgs/String", [](const ros1::WireSample& s) {...});
//
// Baton nodes on the same host (shared-memory domain) negotiate BATONSHM in requestTopic and read
// each other's messages in place; stock nodes get TCPROS (NodeOptions::shared_memory).
//
// Threads: an XML-RPC server thread, a TCPROS accept thread, one thread per TCPROS connection,
// one BATONSHM reader per subscription that reads shared memory, the /rosout publisher's
// (ros1-rosout), baton's janitor.
// Ownership: Publisher, Subscription, ServiceServer and ServiceClient keep their node alive;
// destroying an endpoint's handle unregisters it from the master and closes its connections.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "baton/api/context.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/master_client.hpp"
#include "baton/ros1/node_error.hpp"
#include "baton/ros1/publisher.hpp"
#include "baton/ros1/service_client.hpp"
#include "baton/ros1/service_server.hpp"
#include "baton/ros1/subscription.hpp"
#include "baton/ros1/type_registry.hpp"

namespace baton::ros1 {

struct NodeOptions {
  std::string master_uri;  // "" = $ROS_MASTER_URI
  // The address other nodes reach this one at: "" = $ROS_IP, else $ROS_HOSTNAME, else the host
  // name. When it is an IPv4 address the TCPROS server listens on it only.
  std::string host;
  std::string ns;  // "" = $ROS_NAMESPACE, else "/"
  // ROS command-line remappings that apply to the node: __name:=, __ns:=, __master:=, __ip:=,
  // __hostname:= (others are ignored).
  std::vector<std::string> arguments;
  std::chrono::milliseconds rpc_timeout{5000};        // each XML-RPC call, connect included
  std::chrono::milliseconds handshake_timeout{5000};  // an inbound TCPROS header must arrive
  uint32_t max_message_bytes = 1'000'000'000;         // larger announced lengths drop the link
  // BATONSHM: subscriptions offer it in requestTopic and publications grant it to baton nodes in
  // the same shared-memory domain, which then read messages in place (no TCP payload). Off:
  // TCPROS only, as a stock node.
  bool shared_memory = true;
  // The baton Context the BATONSHM endpoints live in; null = one of the node's own. Share one with
  // the process's native baton nodes for one janitor (its periodic reclaim of what dead peers
  // held) and one view of the topics.
  std::shared_ptr<Context> shm_context;
  LogHandler log;  // default: warnings and errors to stderr, "[baton_ros1] ..."
  // /rosout: lines logged at rosout_level or above — Node::log's and the node's own — are also
  // published on /rosout as rosgraph_msgs/Log, as roscpp and rospy nodes do (rqt_console,
  // roscore's rosout node and its /rosout_agg). The node registers /rosout when it is created.
  // Off: no /rosout publication (as rospy's disable_rosout).
  bool rosout = true;
  LogLevel rosout_level = LogLevel::Info;
  // Where message types come from; default: a registry with add_default_roots().
  std::shared_ptr<TypeRegistry> types;
};

struct PublisherOptions {
  bool latch = false;       // new subscribers get the last message first
  size_t queue_size = 100;  // per subscriber; when full the oldest message is dropped
};

struct SubscriptionOptions {
  bool tcp_nodelay = true;    // asked of publishers in the connection header
  uint32_t queue_size = 100;  // BATONSHM: unread messages kept per publisher, oldest dropped
};

namespace detail {
class NodeImpl;
}

class Node {
 public:
  // Starts the node's servers and checks that the master answers (getPid). The node registers
  // /rosout (unless NodeOptions::rosout is off); nothing else until advertise / subscribe.
  static Result<std::shared_ptr<Node>, Error<NodeError>> create(const std::string& name,
                                                                NodeOptions options = {});
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Registers as a publisher of `topic` (resolved against the namespace; "~x" is private).
  Result<std::unique_ptr<Publisher>, Error<EndpointError>> advertise(const std::string& topic,
                                                                     const std::string& type,
                                                                     PublisherOptions options = {});
  // Registers as a subscriber; `sink` gets each message (WireSample::bytes: ROS 1 serialized).
  Result<std::unique_ptr<Subscription>, Error<EndpointError>> subscribe(
      const std::string& topic, const std::string& type, WireReader::Sink sink,
      SubscriptionOptions options = {});

  // Provides service `service` (resolved as topics are) of type `type` ("std_srvs/SetBool"):
  // registered with the master, answered on the node's TCPROS port (service_server.hpp).
  Result<std::unique_ptr<ServiceServer>, Error<EndpointError>> advertise_service(
      const std::string& service, const std::string& type, ServiceHandler handler);
  // A caller of `service` (service_client.hpp). Nothing is looked up until the first call.
  Result<std::unique_ptr<ServiceClient>, Error<EndpointError>> service_client(
      const std::string& service, const std::string& type, ServiceClientOptions options = {});

  const std::string& name() const noexcept;  // fully qualified: "/ns/talker"
  const std::string& uri() const noexcept;   // the slave API: "http://host:port/"
  const std::string& master_uri() const noexcept;
  const MasterClient& master() const noexcept;
  TypeRegistry& types() noexcept;
  // `name` resolved as this node resolves topic names ("/abs", "rel" -> "/ns/rel", "~p").
  Result<std::string, Error<EndpointError>> resolve(const std::string& name) const;
  // The master (or anyone) called the slave API's shutdown: roscpp would exit. The node keeps
  // working; the owner decides.
  bool shutdown_requested() const noexcept;

  // Logs `text` as the node's own lines are: to NodeOptions::log, and to /rosout at
  // NodeOptions::rosout_level or above (as ROS_INFO / rospy.loginfo do). Thread-safe.
  void log(LogLevel level, std::string_view text);

 private:
  explicit Node(std::shared_ptr<detail::NodeImpl> impl);
  // advertise(); `shared_memory` false offers TCPROS only (/rosout).
  Result<std::unique_ptr<Publisher>, Error<EndpointError>> advertise(const std::string& topic,
                                                                     const std::string& type,
                                                                     PublisherOptions options,
                                                                     bool shared_memory);
  std::shared_ptr<detail::NodeImpl> impl_;
  std::unique_ptr<Publisher> rosout_;  // destroyed first: it holds impl_ too
};

}  // namespace baton::ros1
