// Private to baton_ros1: the BATONSHM side of one ROS 1 subscription. On the first grant it
// attaches a baton subscription to the topic's baton topic and starts one reader thread, which
// waits on the subscription and a stop guard (no polling) and hands each sample of a granted
// publisher to `deliver`, in place: WireSample::bytes points into the publisher's shared memory
// and is valid during the call only. Samples of publishers not granted (reached over TCPROS, or
// revoked by publisherUpdate, or on another ROS graph) are taken and dropped, so no message is
// delivered twice. A sample larger than max_message_bytes or than its chunk is refused and logged.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "baton/api/guard_condition.hpp"
#include "baton/api/subscription.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/wire_endpoint.hpp"
#include "batonshm.hpp"
#include "shm_node.hpp"

namespace baton::ros1::detail {

class ShmReader {
 public:
  using Deliver = std::function<void(const WireSample&)>;
  ShmReader(std::string ros_topic, const MessageType& type, std::shared_ptr<ShmNode> node,
            uint32_t depth, uint32_t max_message_bytes, Deliver deliver, LogHandler log);
  ~ShmReader();  // shutdown()

  // Reads `grant`'s publisher from now on, as connection `connection_id`. Fails (the caller
  // falls back to TCPROS) when the grant is not for this topic and type or the baton topic
  // cannot be attached; the error says why.
  Result<Ok, std::string> admit(uint64_t connection_id, const ShmGrant& grant);
  // Stops delivering connection `connection_id`'s samples (a sample being delivered finishes).
  void revoke(uint64_t connection_id);
  // Stops and joins the reader thread; deliver is not called after it returns.
  void shutdown();

  uint64_t received() const noexcept { return received_; }
  uint64_t refused() const noexcept { return refused_; }
  uint64_t ignored() const noexcept { return ignored_; }  // from publishers not granted
  uint64_t lost() const;  // overwritten before they were read (the queue was full)

 private:
  struct Granted {
    uint64_t connection_id = 0;
    std::string caller_id;
    uint64_t sequence = 0;
  };
  void run();
  void deliver_one(const RawSample& sample);

  const std::string ros_topic_;
  const MessageType& type_;
  const std::shared_ptr<ShmNode> node_;
  const uint32_t depth_;
  const uint32_t max_message_bytes_;
  const Deliver deliver_;
  const LogHandler log_;

  mutable std::mutex mutex_;  // guards granted_, subscription_, thread_, stopped_
  std::map<std::pair<uint32_t, uint32_t>, Granted> granted_;  // by (slot, generation)
  std::shared_ptr<RawSubscription> subscription_;
  std::thread thread_;
  bool stopped_ = false;
  const std::shared_ptr<GuardCondition> stop_ = std::make_shared<GuardCondition>();
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> received_{0}, refused_{0}, ignored_{0};
};

}  // namespace baton::ros1::detail
