// ros1::ServiceServer: a ROS 1 service provided by a ros1::Node (created by
// Node::advertise_service). The node registers it with the master (registerService, its
// service_api being the node's TCPROS address "rosrpc://host:port") and answers service
// connections on its TCPROS port: rosservice, rospy / roscpp ServiceProxy and baton
// ServiceClients call it. Destroying the handle unregisters the service and closes its
// connections.
//
// Calls: the handler gets each request's ROS 1 serialized bytes and returns the response's, or an
// error text the client receives as a failed call (TCPROS ok byte 0). Calls are handled one at a
// time per service, on the thread of the connection that sent them; connections are persistent
// when the client asks (persistent=1), else closed after one call; a probe (probe=1, what
// rosservice sends to learn the type) gets the header only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/service_type.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros1 {

struct ServiceRequest {
  std::span<const uint8_t> bytes;  // the request, ROS 1 serialized; valid during the call
  std::string_view caller_id;      // the client's callerid
};

// The response's serialized bytes, or the error text sent back (and logged as a warning).
using ServiceHandler =
    std::function<Result<std::vector<uint8_t>, std::string>(const ServiceRequest&)>;

// A ServiceHandler over decoded values: requests that do not decode as `type`'s request are
// answered with the decoder's error, the callback's Value is serialized as `type`'s response (a
// Value of the wrong shape is an error answer too). `type` must outlive the handler.
using ServiceValueCallback = std::function<Result<ros2::Value, std::string>(const ros2::Value&)>;
ServiceHandler value_handler(const ServiceType& type, ServiceValueCallback callback);

struct ServiceStats {
  uint64_t connections = 0;  // client connections whose header was accepted (probes aside)
  uint64_t probes = 0;       // probe connections answered with the header
  uint64_t calls = 0;        // requests answered (ok or not)
  uint64_t failed = 0;       // answered with ok = 0 (the handler's error)
  uint64_t refused = 0;      // connections refused (md5sum) or dropped for bad input
};

namespace detail {
class TcprosServiceServer;
template <typename Endpoint>
struct Registered;
}  // namespace detail

class ServiceServer {
 public:
  ~ServiceServer();
  ServiceServer(const ServiceServer&) = delete;
  ServiceServer& operator=(const ServiceServer&) = delete;

  const std::string& service() const noexcept;  // resolved: "/ns/add_two_ints"
  const ServiceType& type() const noexcept;
  const std::string& uri() const noexcept;  // "rosrpc://host:port", as registered
  ServiceStats stats() const;

 private:
  friend class Node;
  explicit ServiceServer(std::unique_ptr<detail::Registered<detail::TcprosServiceServer>> r);
  std::unique_ptr<detail::Registered<detail::TcprosServiceServer>> registered_;  // keeps the node
};

}  // namespace baton::ros1
