// Client: see include/baton/ros2/ros2_client.hpp.
#include "baton/ros2/ros2_client.hpp"

#include <algorithm>
#include <thread>

#include "baton/api/client_base.hpp"
#include "native_rpc.hpp"

namespace baton::ros2 {

using Err = Error<WireError>;
using CallErr = Error<CallError>;

namespace {
constexpr size_t MAX_SET_ASIDE = 1024;
}  // namespace

Result<std::unique_ptr<Client>, Err> Client::create(Node& node, const ServiceDescription& type,
                                                    const std::string& name, const WireQos& qos) {
  const std::string resolved = node.node().resolve(name);
  if (resolved.empty())
    return unexpected(Err{WireError::Endpoint, "invalid service name '" + name + "'"});
  std::unique_ptr<Client> c(new Client(type, resolved));
  const auto types = detail::native_service_types(type);
  const QoS shm_qos = detail::shm_qos(qos);
  c->id_ = ClientBase::next_client_id();
  // Responses first: the subscription exists before any request can be answered.
  auto port = baton::detail::make_subscriber(
      node.node(), baton::detail::response_topic(resolved, c->id_), types.response_topic, shm_qos,
      WaitMode::Blocking, std::chrono::microseconds(50), /*source_timestamps=*/true);
  if (!port)
    return unexpected(Err{WireError::Endpoint,
                          "baton response topic of '" + resolved + "': " + port.error().detail});
  c->responses_ = std::make_shared<RawSubscription>(std::move(*port));
  (void)c->waitset_.add_subscription(c->responses_);
  auto pub = baton::detail::make_publisher(node.node(), baton::detail::request_topic(resolved),
                                           types.request_topic, shm_qos, memory::PoolConfig{});
  if (!pub)
    return unexpected(Err{WireError::Endpoint,
                          "baton request topic of '" + resolved + "': " + pub.error().detail});
  c->requests_ = RawPublisher(std::move(*pub));
  c->graph_handle_ = baton::detail::register_in_graph(node.node(), graph::EndpointKind::Client,
                                                      resolved, types.graph, shm_qos);
  auto wire = detail::open_native_wire(node, detail::RpcWire::Role::Client, type, resolved, qos,
                                       c->waitset_);
  if (!wire) return unexpected(wire.error());
  c->wire_ = std::move(*wire);
  return c;
}

Client::Client(const ServiceDescription& type, std::string name)
    : type_(&type), name_(std::move(name)) {}

Client::~Client() {
  wire_.reset();  // unlisted and off DDS before the shared-memory side goes
  const std::string responses = responses_->port().topic().name();
  responses_.reset();
  requests_ = RawPublisher();
  topic::remove_topic_if_unused(responses);  // nobody else ever uses this client's topic
}

uint64_t Client::dropped() const noexcept {
  return shm_dropped_.load() + (wire_ ? wire_->dropped() : 0);
}
Guid Client::request_writer_gid() const { return wire_ ? wire_->writer_gid() : Guid{}; }
Guid Client::reply_reader_gid() const { return wire_ ? wire_->reader_gid() : Guid{}; }

void Client::log(const std::string& line) { detail::log_native(name_ + ": " + line); }

bool Client::service_is_ready() const {
  return detail::service_is_available(requests_.subscription_count(),
                                      [this] { return wire_ && wire_->server_available(); });
}

bool Client::wait_for_service(std::chrono::nanoseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!service_is_ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

Result<int64_t, CallErr> Client::async_send_request(const Value& request) {
  auto size = encoded_size(*type_->request, request);
  if (!size) return unexpected(CallErr{CallError::Encode, size.error().detail});
  std::lock_guard<std::mutex> lock(send_mutex_);
  const int64_t seq = next_sequence_.fetch_add(1);
  const bool on_wire = detail::request_goes_on_wire(
      requests_.subscription_count(), [this] { return wire_ && wire_->server_available(); });
  if (on_wire) {
    auto cdr = encode(*type_->request, request);
    if (!cdr) return unexpected(CallErr{CallError::Encode, cdr.error().detail});
    if (auto st = wire_->write_framed(*cdr, RequestHeader{wire_->client_guid(), seq}); !st)
      return unexpected(CallErr{CallError::Send, st.error()});
    ++sent_on_wire_;
    return seq;
  }
  std::string encode_error;
  auto st = detail::publish_shm_framed(
      requests_, id_, seq, *size, [&](std::span<uint8_t> out) -> Result<uint64_t, std::string> {
        auto used = encode_into(*type_->request, request, out);
        if (!used) {
          encode_error = used.error().detail;
          return unexpected(encode_error);
        }
        return *used;
      });
  if (!st)
    return unexpected(
        CallErr{encode_error.empty() ? CallError::Send : CallError::Encode, st.error()});
  ++sent_on_shm_;
  return seq;
}

std::optional<Response> Client::take_locked() {
  std::optional<Value> value;
  auto decode_into = [&](std::span<const uint8_t> cdr) {
    auto v = decode(*type_->response, cdr);
    if (!v) return std::string(to_string(v.error().code)) + ": " + v.error().detail;
    value = std::move(*v);
    return std::string();
  };
  const uint64_t id = id_;
  auto shm = detail::take_shm_framed(
      *responses_, [id](const auto& h) { return h.client_id == id; }, decode_into,
      [&](const std::string& why) {
        ++shm_dropped_;
        log("dropped a malformed response from shared memory: " + why);
      });
  if (shm) return Response{static_cast<int64_t>(shm->header.sequence), std::move(*value), false};
  if (!wire_) return std::nullopt;
  auto dds = wire_->take(decode_into);
  if (dds) return Response{dds->header.sequence, std::move(*value), true};
  return std::nullopt;
}

std::optional<Response> Client::take_response() {
  std::lock_guard<std::mutex> lock(take_mutex_);
  if (!set_aside_.empty()) {
    auto first = set_aside_.begin();
    Response r = std::move(first->second);
    set_aside_.erase(first);
    return r;
  }
  return take_locked();
}

bool Client::wait_locked(std::chrono::nanoseconds timeout) {
  // The guard is a flag: DDS samples still queued after a take are seen here, not through it.
  if (responses_->has_data() || (wire_ && wire_->has_data())) return true;
  return waitset_.wait(timeout).kind == WaitResultKind::Ready;
}

bool Client::wait(std::chrono::nanoseconds timeout) {
  std::lock_guard<std::mutex> lock(take_mutex_);
  return !set_aside_.empty() || wait_locked(timeout);
}

Result<Value, CallErr> Client::call(const Value& request, std::chrono::nanoseconds timeout) {
  auto seq = async_send_request(request);
  if (!seq) return unexpected(seq.error());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(take_mutex_);
  while (true) {
    if (auto it = set_aside_.find(*seq); it != set_aside_.end()) {
      Value v = std::move(it->second.value);
      set_aside_.erase(it);
      return v;
    }
    while (auto r = take_locked()) {
      if (r->sequence == *seq) return std::move(r->value);
      // Another call's (or take_response's) response: kept for it, the oldest forgotten first.
      if (set_aside_.size() >= MAX_SET_ASIDE) set_aside_.erase(set_aside_.begin());
      set_aside_.emplace(r->sequence, std::move(*r));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return unexpected(CallErr{CallError::Timeout, "no response from '" + name_ + "' to request " +
                                                        std::to_string(*seq)});
    // Short slices: a concurrent call waits on this lock meanwhile and checks what was set aside.
    (void)wait_locked(
        std::min<std::chrono::nanoseconds>(deadline - now, std::chrono::milliseconds(10)));
  }
}

}  // namespace baton::ros2
