// Services over shared memory, shaped like rclcpp::Service:
//
//   auto srv = node.service<AddTwoInts>("add_two_ints")
//                  .callback([](const AddTwoInts::Request& req, AddTwoInts::Response& res) {
//                    res.sum = req.a + req.b;
//                  })
//                  .create();  // Result<std::shared_ptr<Service<AddTwoInts>>, EndpointError>
//   executor.add_service(*srv);  // or executor.add_node(node)
//
// Zero-copy both ways: the callback reads the request in place in the client's shared memory
// and writes the response in place in a loan of the service's response publisher (value-
// initialised before the call). `req` is valid only during the callback. An executor (or a
// direct execute_one()) runs the callback; see service_base.hpp for routing and threading.
#pragma once

#include <functional>
#include <memory>
#include <new>
#include <string>

#include "baton/api/detail/service_wire.hpp"
#include "baton/api/node.hpp"
#include "baton/api/service_base.hpp"
#include "baton/api/service_traits.hpp"

namespace baton {

template <ServiceType S>
class Service : public ServiceBase {
 public:
  using Request = typename S::Request;
  using Response = typename S::Response;
  using Callback = std::function<void(const Request&, Response&)>;

  Service(std::shared_ptr<Context> context, std::string resolved_name, QoS qos,
          std::unique_ptr<topic::SubscriberPort> request_port, Callback callback)
      : ServiceBase(std::move(context), std::move(resolved_name), response_type_info_of<S>(), qos,
                    wire(), std::move(request_port)),
        callback_(std::move(callback)) {}

 private:
  static Wire wire() {
    return {detail::payload_offset<Request>(), detail::message_size<Request>(),
            detail::payload_offset<Response>(), detail::message_size<Response>()};
  }
  void handle(const std::byte* request, std::byte* response) override {
    Response* res = new (response) Response{};
    callback_(*std::launder(reinterpret_cast<const Request*>(request)), *res);
  }

  Callback callback_;
};

// Services' default QoS: keep_last(64), reliable, volatile; a response publisher waits at most
// 100 ms for a client that does not read its responses, then drops the response.
inline QoS services_default_qos() {
  return QoS(64).reliable_timeout(std::chrono::milliseconds(100));
}

template <ServiceType S>
class ServiceBuilder {
 public:
  ServiceBuilder(Node& node, std::string name) : node_(node), name_(std::move(name)) {}
  ServiceBuilder&& callback(typename Service<S>::Callback cb) && {
    cb_ = std::move(cb);
    return std::move(*this);
  }
  ServiceBuilder&& qos(const QoS& q) && {
    qos_ = q;
    return std::move(*this);
  }
  Result<std::shared_ptr<Service<S>>, EndpointError> create() && {
    if (!cb_) {
      return unexpected(EndpointError{EndpointCreateError::MissingCallback,
                                      "service '" + name_ + "' has no callback"});
    }
    const std::string resolved = node_.resolve(name_);
    if (resolved.empty()) {
      return unexpected(EndpointError{EndpointCreateError::InvalidName,
                                      "service name '" + name_ + "' is not a valid ROS name"});
    }
    auto port =
        detail::make_subscriber(node_, detail::request_topic(resolved), request_type_info_of<S>(),
                                qos_, WaitMode::Blocking, std::chrono::microseconds(50));
    if (!port) return unexpected(port.error());
    auto srv = std::make_shared<Service<S>>(node_.context(), resolved, qos_, std::move(*port),
                                            std::move(cb_));
    node_.entities()->add(node_.entities()->services, std::shared_ptr<ServiceBase>(srv));
    srv->graph_handle =
        detail::register_in_graph(node_, graph::EndpointKind::Service, name_,
                                  topic::TypeInfo::from_name(ServiceTraits<S>::name()), qos_);
    return srv;
  }

 private:
  Node& node_;
  std::string name_;
  QoS qos_ = services_default_qos();
  typename Service<S>::Callback cb_;
};

template <ServiceType S>
ServiceBuilder<S> Node::service(const std::string& name) {
  return {*this, name};
}

}  // namespace baton
