// The subscribing end of a topic: reads every publisher's ring in place (zero-copy) and holds
// loans on chunks while the user reads them.
//
// A take pins the chunk by setting this subscriber's bit in its reference words
// (memory/chunk_refs.hpp), after recording the loan in its slot's held[] table, so a reclaimer can
// always find and drop the loans of a subscriber that died. Messages from one publisher arrive in
// publish order; messages of different publishers interleave round-robin.
//
// Not thread-safe: one thread at a time per port. Samples may be released from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "baton/common/result.hpp"
#include "baton/memory/pool_view.hpp"
#include "baton/topic/arrival_predictor.hpp"
#include "baton/topic/topic.hpp"

namespace baton::topic {

enum class WaitMode : std::uint8_t {
  Blocking,  // futex sleep; the publisher wakes us only when we sleep
  BusyPoll,  // spin on the ring; lowest latency, burns a core
  Adaptive,  // sleep through a periodic stream's predicted gap, spin around the expected
             // arrival (at most spin_time), then sleep; spins spin_time when there is no estimate
};

struct SubscriberOptions {
  std::uint32_t depth = 10;  // keep-last: at most this many unread messages per publisher
  Reliability reliability = Reliability::Reliable;
  Durability durability = Durability::Volatile;
  WaitMode wait_mode = WaitMode::Blocking;
  std::chrono::nanoseconds spin_time = std::chrono::microseconds(50);
  // Ask the topic's publishers to stamp their messages (TakenSample::source_timestamp_ns; 0
  // otherwise): they read the system clock per publish only while a subscriber asks, ~20 ns of
  // a ~115 ns publish-and-take here (issue 20). rmw_baton_cpp, the Python API and `baton bag
  // record` ask; a native subscription asks if it reads the stamps. A subscriber that starts
  // asking gets stamps from the publishes after its attach was seen: history published before
  // then carries 0.
  bool source_timestamps = false;
};

enum class SubscriberCreateError : std::uint8_t {
  InvalidQos,      // depth must be 1..65536.
  NoFreeSlot,      // MAX_SUBSCRIBERS subscribers are attached to this topic already.
  SegmentFailure,  // /dev/shm had no room for our slot's page, or the topic's directory was
                   // removed as we attached and reopening it failed; see the detail.
};

enum class TakeError : std::uint8_t {
  NoData,        // Nothing new: wait() or try later.
  TooManyLoans,  // MAX_LOANS_PER_SUBSCRIBER samples are held: release one first.
};

constexpr std::string_view to_string(SubscriberCreateError e) noexcept {
  switch (e) {
    case SubscriberCreateError::InvalidQos:
      return "invalid QoS";
    case SubscriberCreateError::NoFreeSlot:
      return "too many subscribers on topic";
    case SubscriberCreateError::SegmentFailure:
      return "topic directory could not be reopened";
  }
  return "unknown";
}
constexpr std::string_view to_string(TakeError e) noexcept {
  switch (e) {
    case TakeError::NoData:
      return "no data";
    case TakeError::TooManyLoans:
      return "too many samples held";
  }
  return "unknown";
}

namespace detail {
struct Connection;
struct SubscriberState;
}  // namespace detail

// A read-only loan of one message. Move-only; the destructor returns the loan. Valid until
// released, even if the publisher exits meanwhile.
class TakenSample {
 public:
  TakenSample() = default;
  ~TakenSample() { release(); }
  // Inline, and release() checks inline (issue 20, busy-poll).
  TakenSample(TakenSample&& o) noexcept { steal(o); }
  TakenSample& operator=(TakenSample&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  TakenSample(const TakenSample&) = delete;

  const std::byte* data() const noexcept { return data_; }
  std::uint64_t size() const noexcept { return size_; }
  // Bytes readable from data() to the end of the chunk (>= size()): a reader that views the
  // message as a fixed-size struct may need its tail padding, which lies past size().
  std::uint64_t capacity() const noexcept { return capacity_; }
  std::uint64_t sequence() const noexcept { return seq_; }
  // Where data() lies in its chunk (ChunkControl::payload_offset, checked against the chunk):
  // data() - payload_offset() is the chunk's start, as the publisher loaned it.
  std::uint64_t payload_offset() const noexcept { return offset_; }
  std::uint32_t publisher_slot() const noexcept { return pub_slot_; }
  // Generation of the publisher slot's claim: (slot, generation) names one publisher for good.
  std::uint32_t publisher_generation() const noexcept { return pub_gen_; }
  // System-clock time of the publish in ns since the epoch, if the publisher stamps
  // (PublisherOptions::source_timestamps), else 0. Read from the chunk, which cannot be reused
  // while this sample holds it.
  std::int64_t source_timestamp_ns() const noexcept {
    return control_ != nullptr
               ? static_cast<std::int64_t>(control_->timestamp_ns.load(std::memory_order_relaxed))
               : 0;
  }
  bool valid() const noexcept { return data_ != nullptr; }
  void release() noexcept {
    if (control_ != nullptr) release_held();
  }

 private:
  friend class SubscriberPort;
  void release_held() noexcept;  // release() of a sample that holds a chunk
  // Takes over o's loan; o is left empty. The one list of members a move copies.
  void steal(TakenSample& o) noexcept {
    state_ = std::move(o.state_);
    conn_ = o.conn_;
    control_ = o.control_;
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    offset_ = o.offset_;
    seq_ = o.seq_;
    ref_ = o.ref_;
    held_index_ = o.held_index_;
    pub_slot_ = o.pub_slot_;
    pub_gen_ = o.pub_gen_;
    o.conn_ = nullptr;
    o.control_ = nullptr;
    o.data_ = nullptr;
  }
  // The state keeps the slot claimed and owns the connection (its mappings) until this sample
  // is released: see SubscriberState::retired.
  std::shared_ptr<detail::SubscriberState> state_;
  detail::Connection* conn_ = nullptr;
  memory::ChunkControl* control_ = nullptr;
  const std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t capacity_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t seq_ = 0;
  memory::ChunkRef ref_ = memory::INVALID_CHUNK;
  std::uint32_t held_index_ = 0;
  std::uint32_t pub_slot_ = 0;
  std::uint32_t pub_gen_ = 0;
};

class SubscriberPort {
 public:
  static Result<std::unique_ptr<SubscriberPort>, Error<SubscriberCreateError>> create(
      std::shared_ptr<Topic> topic, const SubscriberOptions& options);
  ~SubscriberPort();

  [[nodiscard]] Result<TakenSample, TakeError> take() noexcept;
  bool has_data() noexcept;
  // Waits until has_data() or the timeout (< 0: forever) passes, in the port's wait mode.
  bool wait(std::chrono::nanoseconds timeout) noexcept;
  // Idle-time work, done at the start of every wait (blocking, busy-poll or adaptive; WaitSet
  // calls it for its subscriptions): pre-maps what the publishers committed since the last call,
  // so the take that follows takes no page fault. Cheap when nothing is new.
  void premap_connections() noexcept;

  // Another source of messages that wakes this port's futex word (the API's intra-process
  // queue): wait() also returns when it reports ready. Set once, before waiting.
  void set_also_ready(std::function<bool()> also_ready) { also_ready_ = std::move(also_ready); }

  // Messages skipped because the publisher overwrote them first (keep-last / best-effort).
  std::uint64_t lost() const noexcept;
  std::uint32_t slot() const noexcept;
  std::uint32_t publisher_count() const { return topic_->publisher_count(); }
  const Topic& topic() const noexcept { return *topic_; }
  // The handle this port is attached through (create() may have reopened the one it was given).
  const std::shared_ptr<Topic>& shared_topic() const noexcept { return topic_; }
  const SubscriberOptions& options() const noexcept { return options_; }
  // The futex word publishers bump to wake this subscriber: its topic's, shared by every
  // subscriber of the topic (TopicHeader::wake_seq; for WaitSet's multi-wait).
  std::atomic<std::uint32_t>* wake_word() const noexcept;
  std::atomic<std::uint32_t>* waiters_word() const noexcept;

 private:
  SubscriberPort() = default;
  void refresh(bool initial) noexcept;
  // One round over the connections; sets *drained if it let a drained departed publisher go.
  Result<TakenSample, TakeError> take_pass(bool* drained) noexcept;
  // Connections to publishers that left cleanly with mappings parked for us (this process).
  void pick_up_departed() noexcept;
  // Publisher slot p no longer holds our connection's publisher: keep it to drain (it left
  // cleanly with rows we have not taken) or drop it.
  void let_go(std::uint32_t p) noexcept;
  bool ready() noexcept;  // has_data() or also_ready_
  bool wait_blocking(std::int64_t deadline_ns) noexcept;
  bool spin_until(std::int64_t until_ns, std::int64_t deadline_ns) noexcept;

  std::shared_ptr<Topic> topic_;
  SubscriberOptions options_;
  std::shared_ptr<detail::SubscriberState> state_;
  std::uint64_t epoch_ = ~0ull;
  std::uint32_t round_robin_ = 0;
  ArrivalPredictor predictor_;  // adaptive mode only
  std::function<bool()> also_ready_;
};

}  // namespace baton::topic
