// A native baton ROS 2 client of a `.srv` type, with dynamic `Value` requests and responses, that
// calls any ROS 2 service:
//
//   a server in this shared-memory domain (native Service, rclpy on rmw_baton_cpp) listens
//       -> the request goes on "<service>/_request" (shared memory, no DDS), the response comes
//          back on "<service>/_response/<client id>"
//   otherwise, a foreign server is matched on DDS (rmw_baton_cpp in another namespace or host,
//   rmw_cyclonedds_cpp)
//       -> DDS "rq/<service>Request" / "rr/<service>Reply" with rmw_cyclonedds_cpp's request
//          header (src/ros2/rpc_wire.hpp, the code rmw_baton_cpp runs)
// One path per request, never both; the rule is rmw_baton_cpp's (request_goes_on_wire in
// src/ros2/rpc_shm.hpp).
// Servers that do not read the request header (rmw_fastrtps_cpp) are not counted as servers, so
// nothing is sent to them.
//
//   auto cli = Client::create(**node, **reg.service("example_interfaces/srv/AddTwoInts"),
//                                 "add");
//   if ((*cli)->wait_for_service(5s)) auto sum = (*cli)->call(request, 5s);
//
// A response that does not decode (either path) is dropped, counted and logged on stderr
// ("[baton_ros2] …"); other clients' responses are skipped silently.
// Thread-safe: calls from several threads each get their own response.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "baton/api/publisher.hpp"
#include "baton/api/subscription.hpp"
#include "baton/api/wait_set.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {

namespace detail {
class RpcWire;
}  // namespace detail

enum class CallError : uint8_t {
  // The request does not encode as the service's request type (detail names the field).
  Encode,
  // The shared-memory publish or the DDS write failed (detail says which and why).
  Send,
  // No response within the timeout (the server is gone, slow, or the request was lost).
  Timeout,
};

constexpr std::string_view to_string(CallError e) noexcept {
  switch (e) {
    case CallError::Encode:
      return "Encode";
    case CallError::Send:
      return "Send";
    case CallError::Timeout:
      return "Timeout";
  }
  return "?";
}

struct Response {
  int64_t sequence = 0;  // what async_send_request returned for its request
  Value value;
  bool from_wire = false;  // true: came through DDS; false: through shared memory
};

class Client {
 public:
  // `name` resolved by the node. Errors: Endpoint (invalid name, a baton topic or DDS endpoint
  // could not be made; detail says which).
  static Result<std::unique_ptr<Client>, Error<WireError>> create(Node& node,
                                                                  const ServiceDescription& type,
                                                                  const std::string& name,
                                                                  const WireQos& qos = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // A server of this shared-memory domain listens, or a foreign server is matched on DDS.
  bool service_is_ready() const;
  // Polls service_is_ready() every 10 ms until true or `timeout` passes.
  bool wait_for_service(std::chrono::nanoseconds timeout) const;

  // Sends `request` on one path (see above); returns its sequence number. With no server at all
  // it goes to shared memory, where nobody takes it (as a DDS request nobody reads).
  Result<int64_t, Error<CallError>> async_send_request(const Value& request);
  // The next response to this client (responses a concurrent call() set aside come first).
  std::optional<Response> take_response();
  // Waits until take_response() may have a response (true) or `timeout` passes (false).
  bool wait(std::chrono::nanoseconds timeout);
  // Sends `request` and waits for its own response (others taken meanwhile are set aside for
  // their callers / take_response, at most 1024).
  Result<Value, Error<CallError>> call(const Value& request, std::chrono::nanoseconds timeout);

  uint64_t sent_on_shm() const noexcept { return sent_on_shm_; }
  uint64_t sent_on_wire() const noexcept { return sent_on_wire_; }
  // Responses dropped: malformed (either path) or dropped by the DDS side.
  uint64_t dropped() const noexcept;
  // The DDS endpoints' GUIDs (listed in ros_discovery_info); zero without a wire.
  Guid request_writer_gid() const;
  Guid reply_reader_gid() const;
  const std::string& name() const noexcept { return name_; }

 private:
  // Out of line: the members' types are complete only there.
  Client(const ServiceDescription& type, std::string name);
  std::optional<Response> take_locked();
  bool wait_locked(std::chrono::nanoseconds timeout);
  void log(const std::string& line);

  const ServiceDescription* type_;
  std::string name_;
  uint64_t id_ = 0;  // baton client id: its response topic and the shm header's client_id
  std::atomic<int64_t> next_sequence_{1};
  std::mutex send_mutex_;
  RawPublisher requests_;
  std::mutex take_mutex_;  // responses_, the wire's reader, waitset_, set_aside_
  std::shared_ptr<RawSubscription> responses_;
  std::shared_ptr<void> graph_handle_;
  WaitSet waitset_;
  std::map<int64_t, Response> set_aside_;
  std::unique_ptr<detail::RpcWire> wire_;  // null: shared memory only
  std::atomic<uint64_t> sent_on_shm_{0}, sent_on_wire_{0}, shm_dropped_{0};
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Client [[deprecated("use baton::ros2::Client")]] = Client;
using Ros2Response [[deprecated("use baton::ros2::Response")]] = Response;

}  // namespace baton::ros2
