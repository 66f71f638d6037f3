// Private to baton_ros1: one published ROS 1 topic and its two ways out, the "baton topic +
// foreign wire" part of a bridged endpoint (issue 18):
//
//   baton subscribers granted BATONSHM  <- the baton topic (shared memory, read in place)
//   everyone else (rospy, roscpp, tools) <- TCPROS (TcprosPublication, a WireWriter)
//
// A message is serialized at most once: into a shared-memory loan while a baton subscriber is
// attached (TCPROS then queues a copy of those bytes, not a second serialization), else by TCPROS
// alone while it has readers, else not at all. Which subscriber reads which way is decided in
// requestTopic (grant()), so each gets every message once. A latched publication has no shm side
// (a late subscriber must get the last message only, which TCPROS does).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

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
  // Publishes `size` bytes that `fill` writes into a loan, after TCPROS queued a copy.
  Result<size_t, Error<WireError>> write_shm(uint64_t size, const FillBytes& fill);

  const std::shared_ptr<TcprosPublication> tcpros_;
  mutable std::optional<RawPublisher> shm_;
  std::atomic<uint64_t> shm_serialized_{0}, shm_sent_{0};
};

}  // namespace baton::ros1::detail
