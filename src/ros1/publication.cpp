// A published ROS 1 topic: BATONSHM and TCPROS (publication.hpp).
#include "publication.hpp"

#include <cstring>

#include "baton/ros1/serialization.hpp"

namespace baton::ros1::detail {

Publication::Publication(std::shared_ptr<TcprosPublication> tcpros, std::optional<RawPublisher> shm)
    : tcpros_(std::move(tcpros)), shm_(std::move(shm)) {}

std::optional<ShmGrant> Publication::grant() const {
  if (!shm_) return std::nullopt;
  const auto& port = shm_->port();
  return ShmGrant{port.topic().name(), type().name,       type().md5sum,
                  port.slot(),         port.generation(), tcpros_->caller_id()};
}

size_t Publication::reader_count() const { return tcpros_->reader_count() + shm_readers(); }

WireStats Publication::shm_stats() const {
  return WireStats{.serialized = shm_serialized_, .sent = shm_sent_};
}

Result<size_t, Error<WireError>> Publication::write(const ros2::Value& message) {
  if (shm_readers() == 0) return tcpros_->write(message);
  const auto& d = *type().description;
  auto size = serialized_size(d, message);
  if (!size)
    return unexpected(Error<WireError>{WireError::TypeMismatch,
                                       topic() + " (" + type().name + "): " + size.error().detail});
  return write_shm(*size, [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
    auto written = serialize_into(d, message, room);
    if (!written) return unexpected(written.error().detail);
    ++shm_serialized_;
    return Ok{};
  });
}

Result<size_t, Error<WireError>> Publication::write_serialized(std::span<const uint8_t> bytes) {
  if (shm_readers() == 0) return tcpros_->write_serialized(bytes);
  return write_shm(bytes.size(), [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
    if (!bytes.empty()) std::memcpy(room.data(), bytes.data(), bytes.size());
    return Ok{};
  });
}

Result<size_t, Error<WireError>> Publication::write_filled(uint64_t size, const FillBytes& fill) {
  if (shm_readers() == 0) return tcpros_->write_filled(size, fill);
  return write_shm(size, [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
    auto filled = fill(room);
    if (filled) ++shm_serialized_;
    return filled;
  });
}

Result<size_t, Error<WireError>> Publication::write_shm(uint64_t size, const FillBytes& fill) {
  auto loan = shm_->loan(size);
  if (!loan)
    return unexpected(Error<WireError>{
        WireError::Closed, topic() + ": no shared-memory loan of " + std::to_string(size) +
                               " bytes (" + std::string(to_string(loan.error())) + ")"});
  const std::span<uint8_t> room(reinterpret_cast<uint8_t*>(loan->data()), size);
  if (auto filled = fill(room); !filled)
    return unexpected(Error<WireError>{WireError::TypeMismatch, topic() + ": " + filled.error()});
  size_t sent = 0;
  if (tcpros_->reader_count() > 0) {  // a copy of the loan's bytes, not a second serialization
    auto queued = tcpros_->write_serialized(room);
    if (!queued) return unexpected(queued.error());
    sent += *queued;
  }
  const uint32_t readers = shm_readers();
  if (auto published = shm_->publish(std::move(*loan), size); !published)
    return unexpected(
        Error<WireError>{WireError::Closed, topic() + ": shared-memory publish failed (" +
                                                std::string(to_string(published.error())) + ")"});
  ++shm_sent_;
  return sent + readers;
}

}  // namespace baton::ros1::detail
