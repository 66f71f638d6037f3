// Ros2Publisher prototype: see include/baton/ros2/ros2_publisher.hpp.
#include "baton/ros2/ros2_publisher.hpp"

#include "baton/ros2/type_hash.hpp"

namespace baton::ros2 {

Result<Ros2Publisher, Error<WireError>> Ros2Publisher::create(Node& node,
                                                              const MessageDescription& type,
                                                              const std::string& ros_topic,
                                                              DdsParticipant* wire,
                                                              const WireQos& qos) {
  QoS q(qos.depth);
  if (!qos.reliable) q.best_effort();
  if (qos.transient_local) q.transient_local();
  auto pub = node.raw_publisher(ros_topic, type_info(type)).qos(q).create();
  if (!pub)
    return unexpected(Error<WireError>{
        WireError::Endpoint, "baton publisher on " + ros_topic + ": " + pub.error().detail});
  Ros2Publisher out(type, std::move(*pub));
  if (wire != nullptr) {
    auto w = wire->create_writer(dds_topic_name(ros_topic), type.dds_type_name(), qos);
    if (!w) return unexpected(w.error());
    out.writer_ = std::make_unique<DdsRawWriter>(std::move(*w));
  }
  return out;
}

Status<Error<CdrError>> Ros2Publisher::publish(const Value& v) {
  auto size = encoded_size(*type_, v);
  if (!size) return unexpected(size.error());
  auto loan = publisher_.loan(*size);
  if (!loan)
    return unexpected(
        Error<CdrError>{CdrError::Internal, "no loan of " + std::to_string(*size) + " bytes"});
  std::span<uint8_t> buf(reinterpret_cast<uint8_t*>(loan->data()), *size);
  auto used = encode_into(*type_, v, buf);
  if (!used) return unexpected(used.error());
  // The DDS copy is taken before the loan is consumed by publish (prototype: one copy).
  bool wire_failed = false;
  if (writer_ && writer_->matched_readers() > 0) {
    if (writer_->write(buf)) {
      ++wire_samples_;
    } else {
      wire_failed = true;
    }
  }
  if (!publisher_.publish(std::move(*loan), *used))
    return unexpected(Error<CdrError>{CdrError::Internal, "shared-memory publish failed"});
  if (wire_failed) return unexpected(Error<CdrError>{CdrError::Internal, "DDS write failed"});
  return Ok{};
}

}  // namespace baton::ros2
