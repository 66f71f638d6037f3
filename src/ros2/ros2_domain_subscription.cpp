// DomainSubscription: see include/baton/ros2/ros2_domain_subscription.hpp.
#include "baton/ros2/ros2_domain_subscription.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/staging_backend.hpp"
#include "baton/ros2/type_hash.hpp"
#include "dds_wire.hpp"
#include "dropped_sample_log.hpp"
#include "endpoint_qos.hpp"
#include "foreign_dds_wire.hpp"
#include "node_endpoint.hpp"

namespace baton::ros2 {

using Err = Error<WireError>;
using memory::domain::DomainBackend;
using memory::domain::DomainPool;

// A DDS sample copied into the domain: a pool of its own and a view of it, released together.
struct WireDomainCopy {
  std::shared_ptr<DomainBackend> backend;
  DomainPool pool;
  memory::domain::DeviceView view;
  ~WireDomainCopy() {
    if (backend) backend->release_view(view);
  }
};

std::optional<DeviceArray> DomainSample::array(std::string_view path) const {
  const ArraySlot* slot = find_slot(arrays_, path);
  if (slot == nullptr) return std::nullopt;
  // slot->offset + slot->bytes was checked against the received sample by decode_locate, and
  // the view holds sample_offset_ + the sample.
  DeviceArray out;
  out.view = view_;
  out.view.owns_native = false;
  out.offset = sample_offset_ + slot->offset;
  out.bytes = slot->bytes;
  out.element_size = slot->element_size;
  return out;
}

Result<std::unique_ptr<DomainSubscription>, Err> DomainSubscription::create(
    baton::Node& node, const MessageDescription& type, const std::string& ros_topic,
    DdsParticipant* wire, std::string_view domain, const WireQos& qos) {
  std::unique_ptr<DomainSubscription> s(new DomainSubscription(type, ros_topic));
  auto backend = memory::domain::open_domain(domain);
  if (!backend)
    return unexpected(
        Err{WireError::Endpoint, std::string(domain) + " unavailable: " + backend.error().detail});
  s->backend_ = std::move(*backend);
  auto shm =
      create_domain_subscription(node, ros_topic, type_info(type), domain, detail::shm_qos(qos));
  if (!shm)
    return unexpected(Err{WireError::Endpoint, "baton subscription on " + ros_topic + " in " +
                                                   std::string(domain) + ": " +
                                                   shm.error().detail});
  s->shm_.emplace(std::move(*shm));
  if (wire != nullptr) {
    auto r = wire->create_reader(dds_topic_name(ros_topic), type.dds_type_name(),
                                 detail::endpoint_wire_qos(type, qos));
    if (!r) return unexpected(r.error());
    s->reader_ = detail::dds_foreign_reader(std::move(*r));
  }
  return s;
}

Result<std::unique_ptr<DomainSubscription>, Err> DomainSubscription::create(
    Node& node, const MessageDescription& type, const std::string& topic, std::string_view domain,
    const WireQos& qos) {
  return detail::make_on_node(
      node, topic, /*reader=*/true,
      [&](const std::string& resolved) {
        return create(node.node(), type, resolved, &node.wire().dds(), domain, qos);
      },
      [](DomainSubscription& s, std::unique_ptr<DiscoveryListing> l) {
        s.listing_ = std::move(l);
      });
}

DomainSubscription::DomainSubscription(const MessageDescription& type, std::string topic)
    : type_(&type), topic_(std::move(topic)) {}

DomainSubscription::~DomainSubscription() {
  listing_.reset();
  reader_.reset();
}

uint64_t DomainSubscription::dropped_same_tag() const noexcept {
  return reader_ ? reader_->dropped_same_tag() : 0;
}
Guid DomainSubscription::gid() const { return reader_ ? reader_->gid() : Guid{}; }

bool DomainSubscription::locate_or_drop(std::span<const uint8_t> cdr, bool from_wire,
                                        DomainSample& s) {
  auto v = decode_locate(*type_, cdr, s.arrays_);
  if (v) {
    s.value_ = std::move(*v);
    ++(from_wire ? from_wire_ : from_shm_);
    return true;
  }
  ++malformed_;
  detail::log_dropped_sample(topic_, type_->full_name(), from_wire, cdr.size(), v.error(),
                             malformed_);
  return false;
}

std::optional<DomainSample> DomainSubscription::from_shared_memory() {
  // Drains until a good sample or nothing: a bad one must not hide the next.
  while (true) {
    auto d = (*shm_)->take();
    if (!d) {
      if (d.error() == DomainTakeError::NoData || d.error() == DomainTakeError::TooManyLoans)
        return std::nullopt;
      ++domain_failures_;  // CopyFailed / Busy: that message is skipped
      std::fprintf(stderr, "[baton_ros2] %s: a message could not be brought into %s: %s\n",
                   topic_.c_str(), backend_->spec().str().c_str(),
                   std::string(to_string(d.error())).c_str());
      continue;
    }
    DomainSample s;
    // The small fields are in the host chunk (a Publisher in a domain writes them there);
    // the arrays' host bytes are not read. d->size() was checked against the chunk by the port.
    const std::span cdr(reinterpret_cast<const uint8_t*>(d->host().data()), d->size());
    if (!locate_or_drop(cdr, false, s)) continue;
    s.view_ = d->view();
    s.view_.owns_native = false;  // the DomainSample releases it
    s.sample_offset_ = d->payload_offset();
    s.path_ = d->path();
    s.shm_ = std::move(*d);
    return s;
  }
}

std::optional<DomainSample> DomainSubscription::from_dds() {
  while (reader_) {
    auto bytes = reader_->take();
    if (!bytes) return std::nullopt;
    DomainSample s;
    if (!locate_or_drop(*bytes, true, s)) continue;
    // The one copy of a DDS sample into the domain, at CDR_SAMPLE_OFFSET as a shared-memory
    // sample lies, so its arrays are element-aligned there too.
    const uint64_t n = CDR_SAMPLE_OFFSET + bytes->size();
    auto copy = std::make_shared<WireDomainCopy>();
    copy->backend = backend_;
    const std::string name = "baton_r2dds_" + std::to_string(::getpid()) + "_" +
                             std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
                             std::to_string(++wire_copies_);
    auto pool = backend_->create_pool(n, name);
    bool ok = pool.has_value();
    if (ok) copy->pool = std::move(*pool);
    // Staging names a /dev/shm segment after the pool; this copy is never exported, so the name
    // goes now (the mapping stays valid) and nothing is left behind when the sample is dropped.
    if (ok && backend_->spec().kind == memory::domain::DomainKind::Staging)
      memory::domain::StagingBackend::unlink_pool(name);
    ok =
        ok && backend_->copy_from_host(copy->pool, CDR_SAMPLE_OFFSET, bytes->data(), bytes->size());
    if (ok) {
      auto v = backend_->view(copy->pool, 0, n);
      ok = v.has_value();
      if (ok) copy->view = *v;
    }
    if (!ok) {
      ++domain_failures_;
      std::fprintf(stderr,
                   "[baton_ros2] %s: a DDS sample of %zu bytes could not be copied into %s\n",
                   topic_.c_str(), bytes->size(), backend_->spec().str().c_str());
      continue;
    }
    s.view_ = copy->view;
    s.view_.owns_native = false;  // the WireDomainCopy releases it
    s.sample_offset_ = CDR_SAMPLE_OFFSET;
    s.path_ = DomainPath::MadeCopy;
    s.from_wire_ = true;
    s.wire_ = std::move(copy);
    return s;
  }
  return std::nullopt;
}

std::optional<DomainSample> DomainSubscription::take() {
  if (auto s = from_shared_memory()) return s;
  return from_dds();
}

bool DomainSubscription::wait(std::chrono::nanoseconds timeout) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + timeout;
  while (true) {
    if ((*shm_)->has_data() || (reader_ && reader_->has_data())) return true;
    const auto left = duration_cast<nanoseconds>(deadline - steady_clock::now());
    if (left.count() <= 0) return false;
    // The DDS reader has no futex word: sleep on the port in slices and look at it between.
    (void)(*shm_)->wait(reader_ ? std::min<nanoseconds>(left, milliseconds(10)) : left);
  }
}

}  // namespace baton::ros2
