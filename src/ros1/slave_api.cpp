// The node's XML-RPC server (slave_api.hpp).
#include "slave_api.hpp"

#include <sys/eventfd.h>
#include <unistd.h>
#include <xmlrpcpp/XmlRpc.h>

#include "baton/common/thread_name.hpp"

namespace baton::ros1::detail {

// Runs a Handler; exceptions become a ROS error answer.
class SlaveApi::Method final : public XmlRpc::XmlRpcServerMethod {
 public:
  Method(const std::string& name, XmlRpc::XmlRpcServer* server, Handler handler, LogHandler& log)
      : XmlRpcServerMethod(name, server), handler_(std::move(handler)), log_(log) {}
  void execute(XmlRpc::XmlRpcValue& params, XmlRpc::XmlRpcValue& result) override {
    try {
      handler_(params, result);
    } catch (const XmlRpc::XmlRpcException& e) {
      refuse(params, result, e.getMessage());
    } catch (const std::exception& e) {
      refuse(params, result, e.what());
    }
  }

 private:
  void refuse(XmlRpc::XmlRpcValue& params, XmlRpc::XmlRpcValue& result, const std::string& why) {
    log_(LogLevel::Warn,
         "XML-RPC " + _name + ": refused a call with bad arguments " + params.toXml() + ": " + why);
    result = ros_answer(-1, "bad arguments to " + _name + ": " + why, XmlRpc::XmlRpcValue(0));
  }
  Handler handler_;
  LogHandler& log_;
};

// An eventfd in the server's dispatcher: writing it makes work() return.
class SlaveApi::Wake final : public XmlRpc::XmlRpcSource {
 public:
  explicit Wake(XmlRpc::XmlRpcDispatch* dispatch)
      : XmlRpcSource(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), dispatch_(dispatch) {
    setKeepOpen(true);
  }
  ~Wake() override {
    if (getfd() >= 0) ::close(getfd());
  }
  void signal() {
    const uint64_t one = 1;
    (void)!::write(getfd(), &one, sizeof one);
  }
  unsigned handleEvent(unsigned) override {
    uint64_t count;
    (void)!::read(getfd(), &count, sizeof count);
    dispatch_->exit();
    return XmlRpc::XmlRpcDispatch::ReadableEvent;
  }

 private:
  XmlRpc::XmlRpcDispatch* dispatch_;
};

XmlRpc::XmlRpcValue ros_answer(int code, const std::string& status, XmlRpc::XmlRpcValue value) {
  XmlRpc::XmlRpcValue out;
  out[0] = code;
  out[1] = status;
  out[2] = value;
  return out;
}

SlaveApi::SlaveApi(LogHandler log)
    : log_(std::move(log)), server_(std::make_unique<XmlRpc::XmlRpcServer>()) {}

SlaveApi::~SlaveApi() { stop(); }

void SlaveApi::add(const std::string& method, Handler handler) {
  methods_.push_back(std::make_unique<Method>(method, server_.get(), std::move(handler), log_));
}

Result<int, std::string> SlaveApi::start() {
  if (!server_->bindAndListen(0))
    return unexpected(std::string("the XML-RPC server cannot listen (see xmlrpcpp's message)"));
  wake_ = std::make_unique<Wake>(server_->get_dispatch());
  if (wake_->getfd() < 0) return unexpected(std::string("eventfd failed"));
  server_->get_dispatch()->addSource(wake_.get(), XmlRpc::XmlRpcDispatch::ReadableEvent);
  thread_ = std::thread([this] {
    name_this_thread("ros1-xmlrpc");
    run();
  });
  return server_->get_port();
}

void SlaveApi::run() {
  while (!stop_) server_->work(-1.0);
  server_->get_dispatch()->removeSource(wake_.get());
  server_->shutdown();
}

void SlaveApi::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  wake_->signal();
  thread_.join();
}

}  // namespace baton::ros1::detail
