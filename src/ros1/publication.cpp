// A published ROS 1 topic: BATONSHM and TCPROS through the bridged-endpoint core (publication.hpp).
#include "publication.hpp"

#include <cstring>

#include "baton/ros1/serialization.hpp"
#include "foreign_tcpros_wire.hpp"

namespace baton::ros1::detail {

namespace {

Error<WireError> closed(std::string detail) {
  return Error<WireError>{WireError::Closed, std::move(detail)};
}
Error<WireError> mismatch(std::string detail) {
  return Error<WireError>{WireError::TypeMismatch, std::move(detail)};
}

}  // namespace

Publication::Publication(std::shared_ptr<TcprosPublication> tcpros, std::optional<RawPublisher> shm)
    : tcpros_(tcpros),
      core_(tcpros_foreign_writer(tcpros), tcpros->latched()),
      shm_(std::move(shm)) {}

std::optional<ShmGrant> Publication::grant() const {
  if (!shm_) return std::nullopt;
  const auto& port = shm_->port();
  return ShmGrant{port.topic().name(), type().name,       type().md5sum,
                  port.slot(),         port.generation(), tcpros_->caller_id()};
}

size_t Publication::reader_count() const { return core_.wire().readers() + shm_readers(); }

WireStats Publication::shm_stats() const {
  return WireStats{.serialized = shm_serialized_, .sent = shm_sent_};
}

Result<size_t, Error<WireError>> Publication::write(const ros2::Value& message) {
  const auto& d = *type().description;
  auto size = serialized_size(d, message);
  if (!size)
    return unexpected(mismatch(topic() + " (" + type().name + "): " + size.error().detail));
  return write_filled(*size, [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
    auto written = serialize_into(d, message, room);
    if (!written) return unexpected(written.error().detail);
    return Ok{};
  });
}

Result<size_t, Error<WireError>> Publication::write_serialized(std::span<const uint8_t> bytes) {
  if (shm_readers() == 0) return result(core_.publish_wire(bytes), 0, std::nullopt);
  return write_shm(
      bytes.size(),
      [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
        if (!bytes.empty()) std::memcpy(room.data(), bytes.data(), bytes.size());
        return Ok{};
      },
      /*serializes=*/false);
}

Result<size_t, Error<WireError>> Publication::write_filled(uint64_t size, const FillBytes& fill) {
  if (size > UINT32_MAX)  // a TCPROS frame's length is 32 bits
    return unexpected(mismatch(topic() + " (" + type().name + "): larger than 4 GiB"));
  if (shm_readers() != 0) return write_shm(size, fill, /*serializes=*/true);
  std::optional<std::string> fill_error;
  const auto done = core_.publish_wire(size, [&](std::span<uint8_t> room) {
    auto filled = fill(room);
    if (!filled) fill_error = filled.error();
    return filled;
  });
  return result(done, 0, fill_error);
}

Result<size_t, Error<WireError>> Publication::write_shm(uint64_t size, const FillBytes& fill,
                                                        bool serializes) {
  auto loan = shm_->loan(size);
  if (!loan)
    return unexpected(closed(topic() + ": no shared-memory loan of " + std::to_string(size) +
                             " bytes (" + std::string(to_string(loan.error())) + ")"));
  const std::span<uint8_t> room(reinterpret_cast<uint8_t*>(loan->data()), size);
  if (auto filled = fill(room); !filled)
    return unexpected(mismatch(topic() + ": " + filled.error()));
  if (serializes) ++shm_serialized_;
  const uint32_t readers = shm_readers();
  // TCPROS's copy is of the loan's bytes (not a second serialization), taken before the publish.
  const auto done = core_.publish([&] { return std::optional<std::span<const uint8_t>>(room); },
                                  [&]() -> std::string {
                                    auto published = shm_->publish(std::move(*loan), size);
                                    if (!published)
                                      return std::string(to_string(published.error()));
                                    ++shm_sent_;
                                    return {};
                                  });
  return result(done, readers, std::nullopt);
}

Result<size_t, Error<WireError>> Publication::result(
    const wire::BridgedPublish& done, uint32_t shm_readers,
    const std::optional<std::string>& fill_error) const {
  if (fill_error) return unexpected(mismatch(topic() + ": " + *fill_error));
  if (!done.wire_error.empty()) return unexpected(closed(topic() + ": " + done.wire_error));
  if (!done.shm_error.empty())
    return unexpected(closed(topic() + ": shared-memory publish failed (" + done.shm_error + ")"));
  return size_t{done.wire_readers} + shm_readers;
}

}  // namespace baton::ros1::detail
