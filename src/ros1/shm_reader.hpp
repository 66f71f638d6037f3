// Private to baton_ros1: the BATONSHM side of one ROS 1 subscription, the shared-memory port of its
// reader core (src/wire/pushed_reader.hpp). On the first grant it attaches a baton subscription to
// the topic's baton topic and starts one reader thread, which waits on the subscription and a wake
// guard (no polling) and pushes each sample into the core, in place: the bytes point into the
// publisher's shared memory and are valid during the sink call only. The core delivers only the
// samples of publishers admitted on shared memory (TcprosSubscription admits a grant's port
// writer), so a publisher reached over TCPROS, revoked after publisherUpdate removed it (once
// what it had queued is delivered: retire()), or on another ROS graph is never also read from
// shared memory: no message is delivered twice. A sample larger than max_message_bytes or than
// its chunk is refused and logged.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../wire/pushed_reader.hpp"
#include "baton/api/guard_condition.hpp"
#include "baton/api/subscription.hpp"
#include "baton/common/result.hpp"
#include "baton/ros1/log.hpp"
#include "baton/ros1/message_type.hpp"
#include "batonshm.hpp"
#include "shm_node.hpp"

namespace baton::ros1::detail {

class ShmReader {
 public:
  // `core` outlives the reader (its thread pushes into it until shutdown()).
  ShmReader(std::string ros_topic, const MessageType& type, std::shared_ptr<ShmNode> node,
            uint32_t depth, uint32_t max_message_bytes, wire::PushedReader& core, LogHandler log);
  ~ShmReader();  // shutdown()

  // Reads `grant`'s baton topic from now on; returns the granting publisher's port writer, for
  // the core's admission. Fails (the caller falls back to TCPROS) when the grant is not for this
  // topic and type or the baton topic cannot be attached; the error says why.
  Result<wire::PortWriter, std::string> attach(const ShmGrant& grant);
  // Revokes `connection` (the admission of a publisher the master removed) once what it had
  // queued is delivered: at the reader's next empty take, or after `grace` if other publishers
  // keep the queue from emptying. `ended` runs then, on the reader thread, with no lock held.
  // After shutdown() it does neither.
  void retire(uint64_t connection, std::chrono::milliseconds grace, std::function<void()> ended);
  // Stops and joins the reader thread; nothing is pushed after it returns.
  void shutdown();

  uint64_t refused() const noexcept { return refused_; }
  uint64_t lost() const;  // overwritten before they were read (the queue was full)

 private:
  struct Retiring {
    uint64_t connection;
    uint64_t ticket;  // 1, 2, ... in the order retire() registered them
    std::chrono::steady_clock::time_point deadline;
    std::function<void()> ended;
  };
  void run();
  void push(const RawSample& sample);
  // Revokes the retiring admissions whose queued samples are delivered (ticket <=
  // `drained_up_to`: registered before a take that found the queue empty) or whose grace is
  // over; runs their `ended`.
  void end_retirements(uint64_t drained_up_to);

  const std::string ros_topic_;
  const MessageType& type_;
  const std::shared_ptr<ShmNode> node_;
  const uint32_t depth_;
  const uint32_t max_message_bytes_;
  wire::PushedReader& core_;
  const LogHandler log_;

  mutable std::mutex mutex_;  // guards subscription_, thread_, stopped_, retiring_
  std::shared_ptr<RawSubscription> subscription_;
  std::thread thread_;
  bool stopped_ = false;
  std::vector<Retiring> retiring_;
  std::atomic<bool> any_retiring_{false};  // !retiring_.empty(), read without the lock per take
  std::atomic<uint64_t> retirements_registered_{0};  // the last ticket given
  // Wakes the reader: to stop, or to look at a new retirement.
  const std::shared_ptr<GuardCondition> wake_ = std::make_shared<GuardCondition>();
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> refused_{0};
};

}  // namespace baton::ros1::detail
