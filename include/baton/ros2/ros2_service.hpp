// A native baton ROS 2 service of a `.srv` type, with dynamic `Value` requests and responses,
// served to every ROS 2 client:
//
//   clients in this shared-memory domain (native Client, rclpy on rmw_baton_cpp)
//       -> "<service>/_request" / "<service>/_response/<client id>" baton topics, CDR framed as
//          rmw_baton_cpp frames it (src/ros2/rpc_shm.hpp): no socket, no DDS
//   other clients (rmw_baton_cpp in another namespace or host, rmw_cyclonedds_cpp)
//       -> DDS "rq/<service>Request" / "rr/<service>Reply" in rmw_cyclonedds_cpp's convention
//          (request header, serviceid= / clientid= pairing; src/ros2/rpc_wire.hpp, the same code
//          rmw_baton_cpp runs)
//
//   TypeRegistry reg;  reg.add_share_root(".venv-ros/share");
//   auto srv = Service::create(**node, **reg.service("example_interfaces/srv/AddTwoInts"),
//       "add", [&](const Value& req, Value& res) { ... });
//   while (running) (*srv)->spin_some(100ms);          // waits, then serves what is waiting
//
// Each request is answered on the path it came by, once. A request that does not decode (from
// either path) or that comes from a DDS client that does not frame its requests (rmw_fastrtps_cpp)
// is dropped, counted and logged on stderr ("[baton_ros2] …"), never served.
// Not thread-safe: one thread serves at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "baton/api/guard_condition.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/subscription.hpp"
#include "baton/api/wait_set.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::ros2 {

namespace detail {
class RpcWire;
class ShmResponders;
}  // namespace detail

class Service {
 public:
  // Fills `response` (a default value of the response type) from `request`.
  using Callback = std::function<void(const Value& request, Value& response)>;

  // `name` resolved by the node ("add" -> "/<ns>/add"); the service is listed in baton's graph
  // and, with its two DDS endpoints, in ros_discovery_info. Errors: Endpoint (invalid name, a
  // baton topic or DDS endpoint could not be made; detail says which).
  static Result<std::unique_ptr<Service>, Error<WireError>> create(Node& node,
                                                                   const ServiceDescription& type,
                                                                   const std::string& name,
                                                                   Callback callback,
                                                                   const WireQos& qos = {});
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Waits up to `timeout` for a request (either path), then serves every request waiting.
  // Returns the number answered.
  size_t spin_some(std::chrono::nanoseconds timeout);
  // Serves every request waiting now, without waiting.
  size_t serve_pending();

  // The TypeInfo of the baton topics "<service>/_request" and "<service>/_response/<client id>"
  // of `type` (rmw_baton_cpp's form), for tools and tests that read or write them directly.
  static topic::TypeInfo request_topic_type(const ServiceDescription& type);

  // The counters may be read from any thread while another one serves.
  uint64_t served_from_shm() const noexcept { return from_shm_; }
  uint64_t served_from_wire() const noexcept { return from_wire_; }
  // Requests dropped: malformed on shared memory, or dropped by the DDS side (malformed,
  // unframed, from a writer that does not frame).
  uint64_t dropped() const noexcept;
  // Replies not sent (no loan, the client is gone, a DDS write failed); each is logged.
  uint64_t failed_replies() const noexcept { return failed_replies_; }
  // DDS clients whose request writer this service's request reader has matched (its own side of
  // discovery; a request written before it is lost to a volatile reader); 0 without a wire.
  uint32_t wire_clients() const;
  // The DDS endpoints' GUIDs (listed in ros_discovery_info); zero without a wire.
  Guid request_reader_gid() const;
  Guid reply_writer_gid() const;
  const std::string& name() const noexcept { return name_; }

 private:
  // Out of line: the members' types are complete only there.
  Service(const ServiceDescription& type, std::string name, Callback cb);
  bool serve_one_from_shm();
  bool serve_one_from_wire();
  // Runs the callback; nullopt (counted, logged) when its response does not encode, else the
  // response and (`encoded_bytes`) its CDR size.
  std::optional<Value> respond(const Value& request, uint64_t& encoded_bytes);
  void log(const std::string& line);

  const ServiceDescription* type_;
  std::string name_;
  Callback callback_;
  baton::Node* node_ = nullptr;
  QoS shm_qos_;
  std::shared_ptr<RawSubscription> requests_;
  topic::TypeInfo response_type_;                      // of the response topics
  std::unique_ptr<detail::ShmResponders> responders_;  // per client, on its first reply
  std::shared_ptr<void> graph_handle_;
  WaitSet waitset_;
  std::unique_ptr<detail::RpcWire> wire_;  // null: shared memory only
  std::atomic<uint64_t> from_shm_{0}, from_wire_{0}, shm_dropped_{0}, failed_replies_{0};
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Service [[deprecated("use baton::ros2::Service")]] = Service;

}  // namespace baton::ros2
