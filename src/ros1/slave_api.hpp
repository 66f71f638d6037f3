// Private to baton_ros1: the node's XML-RPC server (xmlrpcpp's XmlRpcServer) on its own thread.
// Handlers run on that thread, one at a time; a handler that throws (xmlrpcpp throws on a wrong
// argument type) answers [-1, "bad arguments: ...", 0] instead of taking the server down.
#pragma once

#include <xmlrpcpp/XmlRpcValue.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"

namespace XmlRpc {
class XmlRpcServer;
class XmlRpcServerMethod;
}  // namespace XmlRpc

namespace baton::ros1::detail {

class SlaveApi {
 public:
  using Handler = std::function<void(XmlRpc::XmlRpcValue& params, XmlRpc::XmlRpcValue& result)>;

  explicit SlaveApi(LogHandler log);
  ~SlaveApi();  // stop()
  SlaveApi(const SlaveApi&) = delete;
  SlaveApi& operator=(const SlaveApi&) = delete;

  // Before start() only.
  void add(const std::string& method, Handler handler);
  // Listens on a free port (all IPv4 addresses; xmlrpcpp binds no single one) and starts serving.
  Result<int, std::string> start();
  void stop();

 private:
  class Method;
  class Wake;
  void run();

  LogHandler log_;
  std::unique_ptr<XmlRpc::XmlRpcServer> server_;
  std::vector<std::unique_ptr<XmlRpc::XmlRpcServerMethod>> methods_;
  std::unique_ptr<Wake> wake_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// [code, status, value]: the answer every ROS API method gives.
XmlRpc::XmlRpcValue ros_answer(int code, const std::string& status, XmlRpc::XmlRpcValue value);

}  // namespace baton::ros1::detail
