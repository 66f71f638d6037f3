// Private to baton_ros1: one published ROS 1 topic, a bridged endpoint of the core every topic
// endpoint composes (src/wire/bridged_topic.hpp, docs/design/wire.md):
//
//   baton subscribers granted BATONSHM  <- the baton port (shared memory, read in place)
//   everyone else (rospy, roscpp, tools) <- TCPROS (TcprosPublication behind a ForeignWriter,
//                                           foreign_tcpros_wire.hpp)
//
// Which subscriber reads which way is decided per connection in requestTopic (grant()): a
// subscriber granted BATONSHM opens no TCPROS connection, so the core's foreign-reader count is
// the TCPROS connections and each subscriber gets every message once. A message is serialized at
// most once: into a shared-memory loan while a baton subscriber is attached (the core then hands
// TCPROS a copy of those bytes, only while it has connections), else straight into TCPROS's frame
// while it has readers (the core's publish_wire), else not at all. A latched publication has no
// shm side (a late subscriber must get the last message only, which TCPROS does) and is the
// core's `always` (TCPROS keeps the last message for late joiners).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "../wire/bridged_topic.hpp"
#include "baton/api/publisher.hpp"
#include "baton/ros1/wire_endpoint.hpp"
#include "batonshm.hpp"
#include "tcpros_publication.hpp"

namespace baton::ros1::detail {

class Publication {
 public:
  // `shm`: the publisher on the topic's baton topic, or nullopt (shared memory off).
  Publication(std::shared_ptr<TcprosPublication> tcpros, std::optional<RawPublisher> shm);

  TcprosPublication& tcpros() noexcept { return *tcpros_; }
  const std::string& topic() const noexcept { return tcpros_->topic(); }
  const MessageType& type() const noexcept { return tcpros_->type(); }
  // What a baton subscriber in this shared-memory domain needs to read this publication in
  // place, or nullopt when it has no shm side.
  std::optional<ShmGrant> grant() const;

  // Called by one thread at a time. Returns the TCPROS connections plus the baton subscribers
  // attached to the baton topic it went to (those on other ROS graphs included).
  Result<size_t, Error<WireError>> write(const ros2::Value& message);
  Result<size_t, Error<WireError>> write_serialized(std::span<const uint8_t> bytes);
  // `size` bytes written by `fill` straight into the loan (BATONSHM readers) or the TCPROS frame.
  Result<size_t, Error<WireError>> write_filled(uint64_t size, const FillBytes& fill);
  // TCPROS connections plus baton subscribers attached to the baton topic.
  size_t reader_count() const;
  // The shared-memory side: `serialized` messages serialized into loans, `sent` published.
  WireStats shm_stats() const;
  void shutdown() { tcpros_->shutdown(); }

 private:
  uint32_t shm_readers() const { return shm_ ? shm_->port().subscriber_count() : 0; }
  // Publishes `size` bytes that `fill` writes into a loan, through the core (TCPROS gets a copy
  // of the loan's bytes when it has readers); `serializes`: `fill` serializes (counted).
  Result<size_t, Error<WireError>> write_shm(uint64_t size, const FillBytes& fill, bool serializes);
  // What the core did, as write's result: `fill_error` set when the fill failed (TypeMismatch).
  Result<size_t, Error<WireError>> result(const wire::BridgedPublish& done, uint32_t shm_readers,
                                          const std::optional<std::string>& fill_error) const;

  const std::shared_ptr<TcprosPublication> tcpros_;
  wire::BridgedWriter core_;  // TCPROS + the exactly-once decision; the port is shm_
  mutable std::optional<RawPublisher> shm_;
  std::atomic<uint64_t> shm_serialized_{0}, shm_sent_{0};
};

}  // namespace baton::ros1::detail
