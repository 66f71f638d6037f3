// Service: see include/baton/ros2/ros2_service.hpp.
#include "baton/ros2/ros2_service.hpp"

#include <optional>

#include "native_rpc.hpp"

namespace baton::ros2 {

using Err = Error<WireError>;

Result<std::unique_ptr<Service>, Err> Service::create(Node& node, const ServiceDescription& type,
                                                      const std::string& name, Callback callback,
                                                      const WireQos& qos) {
  const std::string resolved = node.node().resolve(name);
  if (resolved.empty())
    return unexpected(Err{WireError::Endpoint, "invalid service name '" + name + "'"});
  if (!callback)
    return unexpected(Err{WireError::Endpoint, "service '" + resolved + "' has no callback"});
  std::unique_ptr<Service> s(new Service(type, resolved, std::move(callback)));
  const auto types = detail::native_service_types(type);
  s->node_ = &node.node();
  s->shm_qos_ = detail::shm_qos(qos);
  s->response_type_ = types.response_topic;
  s->responders_ = std::make_unique<detail::ShmResponders>();
  auto port = baton::detail::make_subscriber(node.node(), baton::detail::request_topic(resolved),
                                             types.request_topic, s->shm_qos_, WaitMode::Blocking,
                                             std::chrono::microseconds(50),
                                             /*source_timestamps=*/true);
  if (!port)
    return unexpected(Err{WireError::Endpoint,
                          "baton request topic of '" + resolved + "': " + port.error().detail});
  s->requests_ = std::make_shared<RawSubscription>(std::move(*port));
  (void)s->waitset_.add_subscription(s->requests_);
  s->graph_handle_ = baton::detail::register_in_graph(node.node(), graph::EndpointKind::Service,
                                                      resolved, types.graph, s->shm_qos_);
  auto wire = detail::open_native_wire(node, detail::RpcWire::Role::Service, type, resolved, qos,
                                       s->waitset_);
  if (!wire) return unexpected(wire.error());
  s->wire_ = std::move(*wire);
  return s;
}

Service::Service(const ServiceDescription& type, std::string name, Callback cb)
    : type_(&type), name_(std::move(name)), callback_(std::move(cb)) {}

Service::~Service() {
  wire_.reset();  // unlisted and off DDS before the shared-memory side goes
  responders_.reset();
}

topic::TypeInfo Service::request_topic_type(const ServiceDescription& type) {
  return detail::native_service_types(type).request_topic;
}

uint64_t Service::dropped() const noexcept { return shm_dropped_ + (wire_ ? wire_->dropped() : 0); }
uint32_t Service::wire_clients() const { return wire_ ? wire_->matched_writers() : 0; }
Guid Service::request_reader_gid() const { return wire_ ? wire_->reader_gid() : Guid{}; }
Guid Service::reply_writer_gid() const { return wire_ ? wire_->writer_gid() : Guid{}; }

void Service::log(const std::string& line) { detail::log_native(name_ + ": " + line); }

std::optional<Value> Service::respond(const Value& request, uint64_t& encoded_bytes) {
  Value response = default_value(*type_->response);
  callback_(request, response);
  auto size = encoded_size(*type_->response, response);
  if (!size) {
    ++failed_replies_;
    log("the callback's response does not encode: " + size.error().detail);
    return std::nullopt;
  }
  encoded_bytes = *size;
  return response;
}

bool Service::serve_one_from_shm() {
  std::optional<Value> request;
  auto taken = detail::take_shm_framed(
      *requests_, [](const auto&) { return true; },
      [&](std::span<const uint8_t> cdr) {
        auto v = decode(*type_->request, cdr);
        if (!v) return std::string(to_string(v.error().code)) + ": " + v.error().detail;
        request = std::move(*v);
        return std::string();
      },
      [&](const std::string& why) {
        ++shm_dropped_;
        log("dropped a malformed request from shared memory: " + why);
      });
  if (!taken) return false;
  ++from_shm_;
  uint64_t size = 0;
  auto response = respond(*request, size);
  if (!response) return true;
  const uint64_t client_id = taken->header.client_id;
  auto pub = responders_->get(name_, client_id,
                              [&](const std::string& topic) -> Result<RawPublisher, std::string> {
                                auto impl = baton::detail::make_publisher(
                                    *node_, topic, response_type_, shm_qos_, memory::PoolConfig{});
                                if (!impl) return unexpected(impl.error().detail);
                                return RawPublisher(std::move(*impl));
                              });
  if (!pub || *pub == nullptr) {
    ++failed_replies_;
    log(pub ? "response to client " + std::to_string(client_id) + " dropped: it is gone"
            : pub.error());
    return true;
  }
  auto sent = detail::publish_shm_framed(
      **pub, client_id, static_cast<int64_t>(taken->header.sequence), size,
      [&](std::span<uint8_t> out) -> Result<uint64_t, std::string> {
        auto used = encode_into(*type_->response, *response, out);
        if (!used) return unexpected(used.error().detail);
        return *used;
      });
  if (!sent) {
    ++failed_replies_;
    log("response not sent: " + sent.error());
  }
  return true;
}

bool Service::serve_one_from_wire() {
  if (!wire_) return false;
  std::optional<Value> request;
  auto taken = wire_->take([&](std::span<const uint8_t> cdr) {
    auto v = decode(*type_->request, cdr);
    if (!v) return std::string(to_string(v.error().code)) + ": " + v.error().detail;
    request = std::move(*v);
    return std::string();
  });
  if (!taken) return false;
  ++from_wire_;
  uint64_t size = 0;
  auto response = respond(*request, size);
  if (!response) return true;
  // A reply to a client that is gone is lost, as on DDS.
  if (!wire_->wait_for_reply_reader(taken->publication_handle)) {
    ++failed_replies_;
    log("reply to a DDS client dropped: it is gone");
    return true;
  }
  auto cdr = encode(*type_->response, *response);
  auto sent = cdr ? wire_->write_framed(*cdr, taken->header)
                  : Status<std::string>(unexpected(cdr.error().detail));
  if (!sent) {
    ++failed_replies_;
    log("DDS reply not sent: " + sent.error());
  }
  return true;
}

size_t Service::serve_pending() {
  size_t n = 0;
  // Shared memory first, then DDS; a malformed request never hides the next one.
  while (serve_one_from_shm()) ++n;
  while (serve_one_from_wire()) ++n;
  return n;
}

size_t Service::spin_some(std::chrono::nanoseconds timeout) {
  if (!requests_->has_data() && !(wire_ && wire_->has_data())) {
    (void)waitset_.wait(timeout);
  }
  return serve_pending();
}

}  // namespace baton::ros2
