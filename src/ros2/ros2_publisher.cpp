// Ros2Publisher: see include/baton/ros2/ros2_publisher.hpp.
#include "baton/ros2/ros2_publisher.hpp"

#include <cstring>

#include "baton/ros2/type_hash.hpp"
#include "endpoint_qos.hpp"

namespace baton::ros2 {

Result<Ros2Publisher, Error<WireError>> Ros2Publisher::create(Node& node,
                                                              const MessageDescription& type,
                                                              const std::string& ros_topic,
                                                              DdsParticipant* wire,
                                                              const WireQos& qos) {
  auto pub = node.raw_publisher(ros_topic, type_info(type)).qos(detail::shm_qos(qos)).create();
  if (!pub)
    return unexpected(Error<WireError>{
        WireError::Endpoint, "baton publisher on " + ros_topic + ": " + pub.error().detail});
  Ros2Publisher out(type, std::move(*pub), ros_topic);
  if (wire != nullptr) {
    auto w = wire->create_writer(dds_topic_name(ros_topic), type.dds_type_name(),
                                 detail::endpoint_wire_qos(type, qos));
    if (!w) return unexpected(w.error());
    out.writer_ = std::make_unique<DdsRawWriter>(std::move(*w));
    out.always_wire_ = qos.transient_local;
  }
  return out;
}

Result<Ros2Publisher, Error<WireError>> Ros2Publisher::create(Ros2Node& node,
                                                              const MessageDescription& type,
                                                              const std::string& topic,
                                                              const WireQos& qos) {
  const std::string resolved = node.node().resolve(topic);
  if (resolved.empty())
    return unexpected(Error<WireError>{WireError::Endpoint, "invalid topic name '" + topic + "'"});
  auto out = create(node.node(), type, resolved, &node.wire().dds(), qos);
  if (!out) return out;
  auto listing =
      DiscoveryListing::create(node.wire(), node.get_namespace(), node.name(), out->gid(), false);
  if (!listing) return unexpected(listing.error());
  out->listing_ = std::move(*listing);
  return out;
}

Status<Error<CdrError>> Ros2Publisher::publish(const Value& v) {
  auto size = encoded_size(*type_, v);
  if (!size) return unexpected(size.error());
  auto loan = publisher_.loan(CDR_SAMPLE_OFFSET + *size);
  if (!loan)
    return unexpected(
        Error<CdrError>{CdrError::Internal, "no loan of " + std::to_string(*size) + " bytes"});
  std::memset(loan->data(), 0, CDR_SAMPLE_OFFSET);
  // A primitive array given as a Value::view (e.g. a camera buffer) is copied once, from there
  // straight into the loan.
  std::span<uint8_t> buf(reinterpret_cast<uint8_t*>(loan->data()) + CDR_SAMPLE_OFFSET, *size);
  auto used = encode_into(*type_, v, buf);
  if (!used) return unexpected(used.error());
  // The DDS copy is taken before the loan is consumed by publish. Only readers outside this
  // shared-memory domain need it (and late joiners, for transient local); same-tag baton readers
  // get the loan.
  bool wire_failed = false;
  if (writer_ && (always_wire_ || writer_->matched_foreign_readers() > 0)) {
    if (writer_->write(buf.first(*used))) {
      ++wire_samples_;
    } else {
      wire_failed = true;
    }
  }
  if (!publisher_.publish(std::move(*loan), *used, CDR_SAMPLE_OFFSET))
    return unexpected(Error<CdrError>{CdrError::Internal, "shared-memory publish failed"});
  if (wire_failed) return unexpected(Error<CdrError>{CdrError::Internal, "DDS write failed"});
  return Ok{};
}

}  // namespace baton::ros2
