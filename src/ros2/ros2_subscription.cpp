// Subscription: see include/baton/ros2/ros2_subscription.hpp.
#include "baton/ros2/ros2_subscription.hpp"

#include <cstdio>

#include "../wire/bridged_topic.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/topic/topic_layout.hpp"
#include "dds_wire.hpp"
#include "dropped_sample_log.hpp"
#include "endpoint_qos.hpp"
#include "foreign_dds_wire.hpp"
#include "node_endpoint.hpp"

namespace baton::ros2 {

using Err = Error<WireError>;

Subscription::Subscription(const MessageDescription& type, std::string topic)
    : type_(&type), topic_(std::move(topic)) {}

Result<std::unique_ptr<Subscription>, Err> Subscription::create(baton::Node& node,
                                                                const MessageDescription& type,
                                                                const std::string& ros_topic,
                                                                DdsParticipant* wire,
                                                                const WireQos& qos) {
  std::unique_ptr<Subscription> s(new Subscription(type, ros_topic));
  auto shm = node.raw_subscription(ros_topic, type_info(type)).qos(detail::shm_qos(qos)).create();
  if (!shm)
    return unexpected(
        Err{WireError::Endpoint, "baton subscription on " + ros_topic + ": " + shm.error().detail});
  std::unique_ptr<wire::ForeignReader> reader;
  if (wire != nullptr) {
    auto r = wire->create_reader(dds_topic_name(ros_topic), type.dds_type_name(),
                                 detail::endpoint_wire_qos(type, qos));
    if (!r) return unexpected(r.error());
    reader = detail::dds_foreign_reader(std::move(*r));
  }
  s->core_ = std::make_unique<wire::BridgedReader>(std::move(*shm), std::move(reader));
  if (auto added = s->waitset_.add_subscription(s->core_->port()); !added)
    return unexpected(
        Err{WireError::Endpoint, "wait set: " + std::string(to_string(added.error()))});
  // A DDS sample wakes wait() through a guard condition in the same wait set as the shm port.
  if (auto guard = s->core_->wire_guard()) (void)s->waitset_.add_guard_condition(guard);
  return s;
}

Result<std::unique_ptr<Subscription>, Err> Subscription::create(Node& node,
                                                                const MessageDescription& type,
                                                                const std::string& topic,
                                                                const WireQos& qos) {
  return detail::make_on_node(
      node, topic, /*reader=*/true,
      [&](const std::string& resolved) {
        return create(node.node(), type, resolved, &node.wire().dds(), qos);
      },
      [](Subscription& s, std::unique_ptr<DiscoveryListing> l) {
        s.core_->keep_listed(std::move(l));
      });
}

Subscription::~Subscription() = default;

uint64_t Subscription::dropped_same_tag() const noexcept {
  return core_->wire() ? core_->wire()->dropped_same_tag() : 0;
}
uint32_t Subscription::wire_writers() const { return core_->wire() ? core_->wire()->writers() : 0; }
Guid Subscription::gid() const { return core_->wire() ? core_->wire()->gid() : Guid{}; }

std::optional<Value> Subscription::decode_or_drop(std::span<const uint8_t> cdr, bool from_wire,
                                                  bool view) {
  auto v = view ? decode_view(*type_, cdr) : decode(*type_, cdr);
  if (v) {
    ++(from_wire ? from_wire_ : from_shm_);
    return std::move(*v);
  }
  ++malformed_;
  detail::log_dropped_sample(topic_, type_->full_name(), from_wire, cdr.size(), v.error(),
                             malformed_);
  return std::nullopt;
}

void Subscription::warn_views_held() {
  // Shared-memory samples wait in the ring until a view is dropped; say why nothing arrives
  // (once per episode of hitting the limit, not on every poll).
  if (views_exhausted_) return;
  views_exhausted_ = true;
  std::fprintf(stderr,
               "[baton_ros2] %s: %u samples taken with take_view() are still held; shared-memory "
               "samples wait until one is dropped\n",
               topic_.c_str(), topic::MAX_LOANS_PER_SUBSCRIBER);
}

std::optional<SampleView> Subscription::next(bool view) {
  // A malformed sample is dropped and the next one looked at: it must not hide the next one.
  std::optional<SampleView> out;
  core_->next(
      [&](RawSample&& raw) {
        // raw.size() was checked against the chunk by the port: decoding within it stays inside.
        views_exhausted_ = false;
        const std::span cdr(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
        auto v = decode_or_drop(cdr, false, view);
        if (!v) return false;
        // An owned value does not need the chunk: give it back now.
        if (!view) raw.release();
        out.emplace(SampleView(std::move(raw), std::move(*v), false));
        return true;
      },
      [&](std::vector<uint8_t>&& bytes) {
        // A DDS sample is a buffer of our own that dies here: its value always owns its bytes.
        auto v = decode_or_drop(bytes, true, false);
        if (!v) return false;
        out.emplace(SampleView(RawSample{}, std::move(*v), true));
        return true;
      },
      [&](TakeError e) {
        if (e == TakeError::TooManyLoans) warn_views_held();
        return false;  // the wire may still have samples
      });
  return out;
}

std::optional<Sample> Subscription::take() {
  auto s = next(false);
  if (!s) return std::nullopt;
  return Sample{std::move(s->value_), s->from_wire_};
}

std::optional<SampleView> Subscription::take_view() { return next(true); }

bool Subscription::wait(std::chrono::nanoseconds timeout) {
  // The guard is a flag, not a count: samples still queued in the DDS reader after a take are
  // seen here, not through it. True means "may have": a queued sample can still be dropped.
  if (core_->has_data()) return true;
  const auto r = waitset_.wait(timeout);
  return r.kind == WaitResultKind::Ready;
}

}  // namespace baton::ros2
