#include "py_service.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "baton/api/detail/service_wire.hpp"
#include "baton/baton.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

constexpr std::uint64_t HEADER = sizeof(detail::ServiceMessageHeader);

std::string layout_facts() { return "raw;wire=" + std::to_string(detail::SERVICE_WIRE_VERSION); }
topic::TypeInfo request_type(const std::string& srv_type) {
  return topic::TypeInfo::from_name(srv_type + "_Request", layout_facts());
}
topic::TypeInfo response_type(const std::string& srv_type) {
  return topic::TypeInfo::from_name(srv_type + "_Response", layout_facts());
}

// The bytes of a response or request object: bytes-like, or str (UTF-8).
std::string bytes_of(nb::handle obj) {
  if (obj.is_none()) return {};
  if (PyUnicode_Check(obj.ptr())) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
    if (s == nullptr) throw nb::python_error();
    return std::string(s, static_cast<std::size_t>(n));
  }
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  std::string out(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
  PyBuffer_Release(&view);
  return out;
}

bool header_ok(const topic::TakenSample& s, detail::ServiceMessageHeader& h) {
  if (s.size() < HEADER) return false;
  std::memcpy(&h, s.data(), HEADER);
  return detail::header_valid(h, s.size(), HEADER);
}

class PyService : public SubscriptionBase {
 public:
  PyService(std::shared_ptr<Context> ctx, std::string name, std::string srv_type, QoS qos,
            std::unique_ptr<topic::SubscriberPort> port, nb::object callback)
      : name_(std::move(name)),
        srv_type_(std::move(srv_type)),
        qos_(qos),
        node_(std::move(ctx), "_baton_service"),
        callback_(std::make_shared<PyRef>(std::move(callback))) {
    port_ = std::move(port);
  }
  ~PyService() override {
    std::vector<std::string> topics;
    for (auto& [id, pub] : responders_) topics.push_back(pub.topic_name());
    responders_.clear();
    for (const auto& t : topics) topic::remove_topic_if_unused(t);
  }
  bool has_data() override {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    return lock.owns_lock() && port_->has_data();
  }
  bool has_callback() const override { return true; }
  bool execute_one() override {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    auto sample = port_->take();
    if (!sample) return false;
    detail::ServiceMessageHeader h;
    if (!header_ok(*sample, h)) return drop();
    RawPublisher* pub = responder(h.client_id);
    if (pub == nullptr) return drop();
    RawLoan loan;
    std::uint64_t size = 0;
    {
      nb::gil_scoped_acquire gil;
      try {
        nb::bytes req(reinterpret_cast<const char*>(sample->data()) + HEADER,
                      sample->size() - HEADER);
        nb::object res = callback_->get()(req);
        const std::string payload = bytes_of(res);
        size = HEADER + payload.size();
        auto l = pub->loan(size);
        if (!l) return drop();
        loan = std::move(*l);
        const auto reply = detail::make_header(h.client_id, h.sequence);
        std::memcpy(loan.data(), &reply, HEADER);
        std::memcpy(loan.data() + HEADER, payload.data(), payload.size());
      } catch (nb::python_error& e) {
        stash_exception(e);
        return drop();
      }
    }
    sample->release();
    if (pub->publish(std::move(loan), size)) {
      handled_.fetch_add(1);
    } else {
      dropped_.fetch_add(1);
    }
    return true;
  }
  const std::string& name() const { return name_; }
  const std::string& srv_type() const { return srv_type_; }
  std::uint64_t handled() const { return handled_.load(); }
  std::uint64_t dropped() const { return dropped_.load(); }

 private:
  bool drop() {
    dropped_.fetch_add(1);
    return true;
  }
  void drop_responder(std::uint64_t id) {
    auto it = responders_.find(id);
    if (it == responders_.end()) return;
    const std::string t = it->second.topic_name();
    responders_.erase(it);
    topic::remove_topic_if_unused(t);
  }
  RawPublisher* responder(std::uint64_t id) {
    auto it = responders_.find(id);
    if (it != responders_.end()) {
      if (it->second.subscription_count() != 0) return &it->second;
      drop_responder(id);
      return nullptr;
    }
    // A new client: forget the ones that are gone (their response topics go with them).
    std::vector<std::uint64_t> gone;
    for (auto& [cid, p] : responders_) {
      if (p.subscription_count() == 0) gone.push_back(cid);
    }
    for (auto cid : gone) drop_responder(cid);
    if (responders_.size() >= ServiceBase::MAX_CACHED_CLIENTS) {
      drop_responder(responders_.begin()->first);
    }
    auto impl = detail::make_publisher(node_, detail::response_topic(name_, id),
                                       response_type(srv_type_), qos_, memory::PoolConfig{});
    if (!impl) return nullptr;
    RawPublisher pub(std::move(*impl));
    if (pub.subscription_count() == 0) {  // client_id came from shared memory: not a live client
      const std::string t = pub.topic_name();
      pub = RawPublisher();
      topic::remove_topic_if_unused(t);
      return nullptr;
    }
    return &responders_.emplace(id, std::move(pub)).first->second;
  }

  std::string name_;
  std::string srv_type_;
  QoS qos_;
  Node node_;
  std::shared_ptr<PyRef> callback_;
  std::mutex mutex_;
  std::map<std::uint64_t, RawPublisher> responders_;
  std::atomic<std::uint64_t> handled_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

class PyClient : public SubscriptionBase {
 public:
  PyClient(std::shared_ptr<Context> ctx, std::string name, std::string srv_type, std::uint64_t id,
           RawPublisher requests, std::unique_ptr<topic::SubscriberPort> responses)
      : ctx_(std::move(ctx)),
        name_(std::move(name)),
        srv_type_(std::move(srv_type)),
        id_(id),
        requests_(std::move(requests)) {
    port_ = std::move(responses);
  }
  ~PyClient() override {
    port_.reset();
    requests_ = RawPublisher();
    topic::remove_topic_if_unused(detail::response_topic(name_, id_));
  }
  bool has_data() override {
    std::unique_lock<std::mutex> lock(take_mutex_, std::try_to_lock);
    return lock.owns_lock() && port_->has_data();
  }
  bool has_callback() const override { return true; }
  bool execute_one() override {
    std::unique_lock<std::mutex> lock(take_mutex_, std::try_to_lock);
    return lock.owns_lock() && take_one_locked(0, nullptr);
  }

  bool service_is_ready() const {
    std::lock_guard<std::mutex> lock(publish_mutex_);
    return requests_.subscription_count() != 0;
  }
  bool wait_for_service(double timeout_s) {
    const auto deadline = deadline_after(timeout_s);
    std::int64_t pause_us = 100;
    while (!service_is_ready()) {
      if (!ctx_->ok()) return false;
      auto slice = next_slice(deadline);
      if (!slice) return false;
      {
        nb::gil_scoped_release release;
        std::this_thread::sleep_for(
            std::min<std::chrono::nanoseconds>(*slice, std::chrono::microseconds(pause_us)));
      }
      pause_us = std::min<std::int64_t>(pause_us * 2, 10'000);
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
    return true;
  }

  // Sends `request` and waits for the response (bytes).
  nb::bytes call(nb::handle request, double timeout_s) {
    const auto deadline = deadline_after(timeout_s);
    const std::string payload = bytes_of(request);
    if (!service_is_ready()) {
      const double left =
          deadline ? std::chrono::duration<double>(*deadline - Clock::now()).count() : -1.0;
      if (!wait_for_service(deadline ? std::max(left, 0.0) : -1.0)) {
        raise_error("ServiceUnavailable", "no service serves '" + name_ + "' (type " + srv_type_ +
                                              "); is the server running?");
      }
    }
    const std::uint64_t seq = next_sequence_.fetch_add(1);
    send(seq, payload);
    std::string result;
    std::unique_lock<std::mutex> lock(take_mutex_, std::defer_lock);
    {
      nb::gil_scoped_release release;
      lock.lock();
    }
    while (true) {
      bool got = false;
      {
        nb::gil_scoped_release release;
        while (!got && take_one_locked(seq, &result, &got)) {
        }
      }
      if (got) return nb::bytes(result.data(), result.size());
      auto slice = next_slice(deadline);
      if (!slice) {
        raise_error("Timeout", "no response from '" + name_ + "' within " +
                                   std::to_string(timeout_s) + " s; the request is dropped");
      }
      {
        nb::gil_scoped_release release;
        (void)port_->wait(*slice);
      }
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
  }

  // Sends `request`; returns a concurrent.futures.Future an executor completes with the bytes.
  nb::object call_async(nb::handle request) {
    const std::string payload = bytes_of(request);
    nb::object future = nb::module_::import_("concurrent.futures").attr("Future")();
    const std::uint64_t seq = next_sequence_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      pending_.emplace(seq, std::make_shared<PyRef>(future));
    }
    send(seq, payload);
    return future;
  }
  const std::string& name() const { return name_; }
  std::uint64_t id() const { return id_; }

 private:
  void send(std::uint64_t seq, const std::string& payload) {
    std::lock_guard<std::mutex> lock(publish_mutex_);
    const std::uint64_t size = HEADER + payload.size();
    auto loan = requests_.loan(size);
    if (!loan) raise_loan_error(loan.error(), size);
    const auto h = detail::make_header(id_, seq);
    std::memcpy(loan->data(), &h, HEADER);
    std::memcpy(loan->data() + HEADER, payload.data(), payload.size());
    if (!requests_.publish(std::move(*loan), size)) {
      raise_error("SendFailed", "the request to '" + name_ + "' could not be published");
    }
  }
  // Takes one response (take_mutex_ held). The one for `want` goes to *out; an async one
  // completes its future (taking the GIL). False if there was nothing to take.
  bool take_one_locked(std::uint64_t want, std::string* out, bool* got = nullptr) {
    auto s = port_->take();
    if (!s) return false;
    detail::ServiceMessageHeader h;
    if (!header_ok(*s, h) || h.client_id != id_) return true;
    const char* p = reinterpret_cast<const char*>(s->data()) + HEADER;
    const std::size_t n = s->size() - HEADER;
    if (out != nullptr && h.sequence == want) {
      out->assign(p, n);
      if (got != nullptr) *got = true;
      return true;
    }
    std::shared_ptr<PyRef> future;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      auto it = pending_.find(h.sequence);
      if (it == pending_.end()) return true;
      future = std::move(it->second);
      pending_.erase(it);
    }
    nb::gil_scoped_acquire gil;
    future->get().attr("set_result")(nb::bytes(p, n));
    return true;
  }

  std::shared_ptr<Context> ctx_;
  std::string name_;
  std::string srv_type_;
  std::uint64_t id_;
  mutable std::mutex publish_mutex_;
  RawPublisher requests_;
  std::mutex take_mutex_;
  std::mutex pending_mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<PyRef>> pending_;
  std::atomic<std::uint64_t> next_sequence_{1};
};

std::shared_ptr<PyService> create_service(Node& node, const std::string& name,
                                          const std::string& srv_type, const QoS& qos,
                                          nb::object callback) {
  const std::string resolved = node.resolve(name);
  if (resolved.empty()) {
    raise_error("InvalidName", "service name '" + name + "' is not a valid ROS name");
  }
  Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> port = unexpected(EndpointError{});
  {
    nb::gil_scoped_release release;
    port = detail::make_subscriber(node, detail::request_topic(resolved), request_type(srv_type),
                                   qos, WaitMode::Blocking, std::chrono::microseconds(50));
  }
  if (!port) raise_endpoint_error(port.error());
  auto srv = std::make_shared<PyService>(node.context(), resolved, srv_type, qos, std::move(*port),
                                         std::move(callback));
  srv->graph_handle = detail::register_in_graph(node, graph::EndpointKind::Service, name,
                                                topic::TypeInfo::from_name(srv_type), qos);
  detail::register_subscription(node, srv);
  return srv;
}

std::shared_ptr<PyClient> create_client(Node& node, const std::string& name,
                                        const std::string& srv_type, const QoS& qos) {
  const std::string resolved = node.resolve(name);
  if (resolved.empty()) {
    raise_error("InvalidName", "service name '" + name + "' is not a valid ROS name");
  }
  const std::uint64_t id = ClientBase::next_client_id();
  Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> port = unexpected(EndpointError{});
  Result<std::shared_ptr<detail::PublisherImpl>, EndpointError> pub = unexpected(EndpointError{});
  {
    nb::gil_scoped_release release;
    port =
        detail::make_subscriber(node, detail::response_topic(resolved, id), response_type(srv_type),
                                qos, WaitMode::Blocking, std::chrono::microseconds(50));
    if (port) {
      pub = detail::make_publisher(node, detail::request_topic(resolved), request_type(srv_type),
                                   qos, memory::PoolConfig{});
    }
  }
  if (!port) raise_endpoint_error(port.error());
  if (!pub) {
    port = unexpected(EndpointError{});
    topic::remove_topic_if_unused(detail::response_topic(resolved, id));
    raise_endpoint_error(pub.error());
  }
  auto cli = std::make_shared<PyClient>(node.context(), resolved, srv_type, id,
                                        RawPublisher(std::move(*pub)), std::move(*port));
  cli->graph_handle = detail::register_in_graph(node, graph::EndpointKind::Client, name,
                                                topic::TypeInfo::from_name(srv_type), qos);
  detail::register_subscription(node, cli);
  return cli;
}

}  // namespace

void bind_services(nb::module_& m) {
  nb::class_<PyService, SubscriptionBase>(m, "Service")
      .def_prop_ro("service_name", &PyService::name)
      .def_prop_ro("srv_type", &PyService::srv_type)
      .def_prop_ro("handled", &PyService::handled)
      .def_prop_ro("dropped", &PyService::dropped);
  nb::class_<PyClient, SubscriptionBase>(m, "Client")
      .def("call", &PyClient::call, "request"_a, "timeout"_a = -1.0)
      .def("call_async", &PyClient::call_async, "request"_a)
      .def("service_is_ready", &PyClient::service_is_ready)
      .def("wait_for_service", &PyClient::wait_for_service, "timeout"_a = -1.0)
      .def_prop_ro("service_name", &PyClient::name)
      .def_prop_ro("client_id", &PyClient::id);
  m.def("create_service", &create_service, "node"_a, "name"_a, "srv_type"_a, "qos"_a, "callback"_a);
  m.def("create_client", &create_client, "node"_a, "name"_a, "srv_type"_a, "qos"_a);
}

}  // namespace baton::py
