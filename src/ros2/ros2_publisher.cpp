// Publisher: see include/baton/ros2/ros2_publisher.hpp.
#include "baton/ros2/ros2_publisher.hpp"

#include <cstring>

#include "../wire/bridged_topic.hpp"
#include "baton/ros2/type_hash.hpp"
#include "dds_wire.hpp"
#include "endpoint_qos.hpp"
#include "foreign_dds_wire.hpp"
#include "node_endpoint.hpp"

namespace baton::ros2 {

namespace {

// A baton port that could not be made (host or in a memory domain).
Result<Publisher, Error<WireError>> endpoint_error(const std::string& ros_topic,
                                                   const std::string& detail) {
  return unexpected(
      Error<WireError>{WireError::Endpoint, "baton publisher on " + ros_topic + ": " + detail});
}

}  // namespace

Publisher::Publisher(const MessageDescription& type, RawPublisher pub, std::string topic)
    : type_(&type), publisher_(std::move(pub)), topic_(std::move(topic)) {}
Publisher::Publisher(const MessageDescription& type, baton::DomainPublisher pub, std::string topic)
    : type_(&type), domain_(std::move(pub)), topic_(std::move(topic)) {}
Publisher::~Publisher() = default;
Publisher::Publisher(Publisher&&) noexcept = default;
Publisher& Publisher::operator=(Publisher&&) noexcept = default;

uint64_t Publisher::wire_samples() const noexcept { return wire_ ? wire_->wire_samples() : 0; }
uint32_t Publisher::wire_readers() const { return wire_ ? wire_->wire().readers() : 0; }
uint32_t Publisher::wire_foreign_readers() { return wire_ ? wire_->wire().foreign_readers() : 0; }
Guid Publisher::gid() const { return wire_ ? wire_->wire().gid() : Guid{}; }

Result<Publisher, Error<WireError>> Publisher::create(baton::Node& node,
                                                      const MessageDescription& type,
                                                      const std::string& ros_topic,
                                                      DdsParticipant* wire, const WireQos& qos,
                                                      std::string_view domain) {
  std::optional<Publisher> made;
  if (domain.empty()) {
    auto pub = node.raw_publisher(ros_topic, type_info(type)).qos(detail::shm_qos(qos)).create();
    if (!pub) return endpoint_error(ros_topic, pub.error().detail);
    made.emplace(Publisher(type, std::move(*pub), ros_topic));
  } else {
    auto pub =
        create_domain_publisher(node, ros_topic, type_info(type), domain, detail::shm_qos(qos));
    if (!pub) return endpoint_error(ros_topic, std::string(domain) + ": " + pub.error().detail);
    made.emplace(Publisher(type, std::move(*pub), ros_topic));
  }
  Publisher out = std::move(*made);
  if (wire != nullptr) {
    auto w = wire->create_writer(dds_topic_name(ros_topic), type.dds_type_name(),
                                 detail::endpoint_wire_qos(type, qos));
    if (!w) return unexpected(w.error());
    out.wire_ = std::make_unique<wire::BridgedWriter>(detail::dds_foreign_writer(std::move(*w)),
                                                      qos.transient_local);
  }
  return out;
}

Result<Publisher, Error<WireError>> Publisher::create(Node& node, const MessageDescription& type,
                                                      const std::string& topic, const WireQos& qos,
                                                      std::string_view domain) {
  return detail::make_on_node(
      node, topic, /*reader=*/false,
      [&](const std::string& resolved) {
        return create(node.node(), type, resolved, &node.wire().dds(), qos, domain);
      },
      [](Publisher& p, std::unique_ptr<DiscoveryListing> l) {
        p.wire_->keep_listed(std::move(l));
      });
}

std::span<uint8_t> Loan::host_sample() const noexcept {
  if (chunk_ == nullptr) return {};
  return {reinterpret_cast<uint8_t*>(chunk_) + CDR_SAMPLE_OFFSET, size_};
}

std::span<uint8_t> Loan::array(std::string_view path) const {
  const ArraySlot* slot = find_slot(arrays_, path);
  if (slot == nullptr || !host_addressable_) return {};
  return host_sample().subspan(slot->offset, slot->bytes);
}

std::optional<DeviceArray> Loan::device_array(std::string_view path) const {
  const ArraySlot* slot = find_slot(arrays_, path);
  if (slot == nullptr || owner_ == nullptr) return std::nullopt;
  DeviceArray out;
  if (device_.valid()) {
    out.view = device_.view();  // starts at the chunk's start, as the host chunk
    out.view.owns_native = false;
  } else {
    out.view.host = chunk_;
    out.view.size = CDR_SAMPLE_OFFSET + size_;
  }
  out.offset = CDR_SAMPLE_OFFSET + slot->offset;
  out.bytes = slot->bytes;
  out.element_size = slot->element_size;
  return out;
}

Result<Loan, Error<CdrError>> Publisher::loan(const Value& shape) {
  auto size = encoded_size(*type_, shape);
  if (!size) return unexpected(size.error());
  Loan l;
  if (domain_) {
    auto d = (*domain_)->loan(*size, CDR_SAMPLE_OFFSET);
    if (!d)
      return unexpected(Error<CdrError>{CdrError::Internal, "no loan of " + std::to_string(*size) +
                                                                " bytes in " + domain() + ": " +
                                                                std::string(to_string(d.error()))});
    l.device_ = std::move(*d);
    l.chunk_ = l.device_.host_chunk();
    l.host_addressable_ = (*domain_)->backend().zero_copy_from_host();
  } else {
    auto h = publisher_.loan(CDR_SAMPLE_OFFSET + *size);
    if (!h)
      return unexpected(
          Error<CdrError>{CdrError::Internal, "no loan of " + std::to_string(*size) + " bytes"});
    l.host_ = std::move(*h);
    l.chunk_ = l.host_.data();
  }
  l.size_ = *size;
  std::memset(l.chunk_, 0, CDR_SAMPLE_OFFSET);
  // Encoded straight into the host chunk; a primitive array given as a Value::view (e.g. a camera
  // buffer) is copied once, from there into the loan; reserved arrays are left for the caller.
  auto used = encode_into(*type_, shape, l.host_sample(), &l.arrays_);
  if (!used) return unexpected(used.error());
  if (domain_) {
    // The small fields (everything between the reserved arrays) go into the domain loan too, so
    // it holds the whole sample; in a domain that is host memory this copies nothing.
    uint64_t from = 0;
    bool ok = true;
    for (const ArraySlot& a : l.arrays_) {
      const uint64_t at = CDR_SAMPLE_OFFSET + a.offset;
      ok = ok && (*domain_)->upload(l.device_, from, at - from);
      from = at + a.bytes;
    }
    ok = ok && (*domain_)->upload(l.device_, from, CDR_SAMPLE_OFFSET + *used - from);
    if (!ok)
      return unexpected(Error<CdrError>{CdrError::Internal,
                                        "copying the small fields into " + domain() + " failed"});
  }
  l.owner_ = this;
  return l;
}

Result<Loan, Error<CdrError>> Publisher::loan_serialized(uint64_t cdr_bytes) {
  if (domain_)
    return unexpected(Error<CdrError>{CdrError::Internal,
                                      "a serialized loan needs a host publisher, not " + domain()});
  auto h = publisher_.loan(CDR_SAMPLE_OFFSET + cdr_bytes);
  if (!h)
    return unexpected(
        Error<CdrError>{CdrError::Internal, "no loan of " + std::to_string(cdr_bytes) + " bytes"});
  Loan l;
  l.host_ = std::move(*h);
  l.chunk_ = l.host_.data();
  l.size_ = cdr_bytes;
  std::memset(l.chunk_, 0, CDR_SAMPLE_OFFSET);
  l.owner_ = this;
  return l;
}

Status<Error<CdrError>> Publisher::reserve_serialized(uint64_t cdr_bytes, uint32_t count) {
  if (domain_)
    return unexpected(Error<CdrError>{
        CdrError::Internal, "a serialized reservation needs a host publisher, not " + domain()});
  auto r = publisher_.reserve(CDR_SAMPLE_OFFSET + cdr_bytes, count);
  if (!r) return unexpected(Error<CdrError>{CdrError::Internal, r.error().detail});
  return Ok{};
}

Status<Error<CdrError>> Publisher::publish(const Value& v) {
  auto l = loan(v);
  if (!l) return unexpected(l.error());
  return publish(std::move(*l));
}

Status<Error<CdrError>> Publisher::publish(Loan&& l) {
  if (l.owner_ != this)
    return unexpected(Error<CdrError>{CdrError::Internal, "the loan is not this publisher's"});
  l.owner_ = nullptr;
  // Shared memory always; DDS per the exactly-once policy (src/wire/bridged_topic.hpp). From a
  // copying domain, the wire's copy comes to host memory first (one copy, which also serves host
  // subscribers: publish does not copy it again).
  auto publish_shm = [&]() -> std::string {
    const bool ok =
        domain_ ? (*domain_)->publish(std::move(l.device_), l.size_).has_value()
                : publisher_.publish(std::move(l.host_), l.size_, CDR_SAMPLE_OFFSET).has_value();
    l.chunk_ = nullptr;
    return ok ? "" : "shared-memory publish failed";
  };
  const auto done = wire::publish_bridged(
      wire_.get(),
      [&]() -> std::optional<std::span<const uint8_t>> {
        if (domain_ && !(*domain_)->write_host(l.device_, l.size_)) return std::nullopt;
        return l.host_sample();
      },
      publish_shm);
  if (!done.shm_error.empty())
    return unexpected(Error<CdrError>{CdrError::Internal, done.shm_error});
  if (!done.wire_error.empty())
    return unexpected(Error<CdrError>{CdrError::Internal, "DDS write failed: " + done.wire_error});
  return Ok{};
}

}  // namespace baton::ros2
