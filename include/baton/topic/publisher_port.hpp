// The publishing end of a topic: owns a chunk pool and a ring of the last `depth` messages.
//
// Hot path (loan, publish, discard): noexcept, no allocation, no logging, bare error enums.
// Not thread-safe: one thread at a time per port (the API layer serialises where needed).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/memory/chunk_pool.hpp"
#include "baton/shm/adaptive_spin.hpp"
#include "baton/topic/topic.hpp"

namespace baton::topic {

struct PublisherOptions {
  std::uint32_t depth = 10;  // keep-last history (ring capacity)
  Reliability reliability = Reliability::Reliable;
  Durability durability = Durability::Volatile;
  // How long a reliable publish waits for room, and how long a reliable publisher's destructor
  // waits for its attached subscribers in other processes to map what they still have to read.
  std::chrono::nanoseconds reliable_timeout = std::chrono::seconds(1);
  memory::PoolConfig pool;
  // Stamp messages with the system clock at publish (ChunkControl::timestamp_ns; read as
  // TakenSample::source_timestamp_ns) while a subscriber of the topic asks for it
  // (SubscriberOptions::source_timestamps): ROS's source timestamp, and the time `baton bag
  // record` logs the message at (a recorder that takes a fast stream in batches would otherwise
  // log the take time, bunched). A clock read per publish (~20 ns here), paid only while asked.
  // Off: the messages carry 0 whoever asks.
  bool source_timestamps = true;
};

enum class PublisherCreateError : std::uint8_t {
  InvalidQos,      // depth must be 1..65536.
  NoFreeSlot,      // MAX_PUBLISHERS publishers are attached to this topic already.
  SegmentFailure,  // The publisher segment or its slot in the directory could not be created
                   // (a full /dev/shm, say); see the detail.
};

enum class LoanError : std::uint8_t {
  TooLarge,     // Larger than the pool's maximum chunk size.
  OutOfMemory,  // The pool cannot grow (limit or /dev/shm full): release samples, raise limits.
};

enum class PublishError : std::uint8_t {
  InvalidLoan,      // The loan does not belong to this publisher or was already published.
  SizeTooLarge,     // The payload size (plus its offset) exceeds the loaned chunk.
  ReliableTimeout,  // A reliable subscriber's queue stayed full for reliable_timeout; dropped.
};

constexpr std::string_view to_string(PublisherCreateError e) noexcept {
  switch (e) {
    case PublisherCreateError::InvalidQos:
      return "invalid QoS";
    case PublisherCreateError::NoFreeSlot:
      return "too many publishers on topic";
    case PublisherCreateError::SegmentFailure:
      return "publisher segment failure";
  }
  return "unknown";
}
constexpr std::string_view to_string(LoanError e) noexcept {
  switch (e) {
    case LoanError::TooLarge:
      return "loan larger than the pool's maximum chunk size";
    case LoanError::OutOfMemory:
      return "chunk pool exhausted";
  }
  return "unknown";
}
constexpr std::string_view to_string(PublishError e) noexcept {
  switch (e) {
    case PublishError::InvalidLoan:
      return "invalid loan";
    case PublishError::SizeTooLarge:
      return "payload (plus its offset) larger than the loan";
    case PublishError::ReliableTimeout:
      return "reliable subscriber queue full (timed out)";
  }
  return "unknown";
}

// A chunk on loan to the publisher: write `size` bytes at `data`, then publish or discard it.
struct ChunkLoan {
  memory::ChunkRef ref = memory::INVALID_CHUNK;
  std::byte* data = nullptr;
  std::uint64_t capacity = 0;
};

class PublisherPort {
 public:
  static Result<std::unique_ptr<PublisherPort>, Error<PublisherCreateError>> create(
      std::shared_ptr<Topic> topic, const PublisherOptions& options);
  // Leaves cleanly: the messages published so far stay readable for the subscribers attached
  // to this publisher. It announces the close (PublisherHeader::leaving); subscribers in this
  // process get its mappings (they may run on this very thread, so nobody waits for them); a
  // reliable publisher then waits, at most reliable_timeout, until each live reliable subscriber
  // in another process that has unread rows has mapped the publisher and its pool (woken by
  // their takes and acknowledgements). Then it frees the slot and unlinks its segments; each
  // subscriber drains the rows it had not taken before it lets the publisher go.
  ~PublisherPort();
  PublisherPort(const PublisherPort&) = delete;

  [[nodiscard]] Result<ChunkLoan, LoanError> loan(std::uint64_t size) noexcept {
    ChunkLoan c;
    LoanError e{};
    if (!try_loan(size, &c, &e)) return unexpected(e);
    return c;
  }
  // loan() for the hot path: fills *out (true) or *error (false), no Result copied out through
  // the stack (memory::ChunkPool::try_allocate says why).
  [[nodiscard]] bool try_loan(std::uint64_t size, ChunkLoan* out, LoanError* error) noexcept;
  // Publishes the `size` bytes that start `offset` bytes into the loan (ChunkControl::
  // payload_offset; 0 for almost everyone: rmw_baton_cpp puts fixed-size ROS types at 4 so their
  // C struct lands 8-aligned, see chunk_layout.hpp). offset + size must fit the loan.
  [[nodiscard]] Status<PublishError> publish(const ChunkLoan& loan, std::uint64_t size,
                                             std::uint64_t offset = 0) noexcept;
  // Returns an unpublished loan to the pool; a loan already published or discarded is ignored.
  void discard(const ChunkLoan& loan) noexcept;

  // Makes room for `count` messages of up to `size` bytes now (ChunkPool::reserve): the next
  // `count` loans of any size <= `size` never grow the pool; large chunks are committed as they
  // are first needed. Cold path. Wakes the subscribers, so sleeping ones pre-map the committed
  // chunks while idle (PoolView::map_ahead).
  Result<std::uint32_t, Error<memory::ReserveError>> reserve(std::uint64_t size,
                                                             std::uint32_t count) {
    auto r = pool_->reserve(size, count);
    notify_subscribers();
    return r;
  }

  // Collects chunks handed back by subscribers and reclaims dead subscribers' loans.
  void collect_returns() noexcept;
  void reclaim() {
    topic_->reclaim_dead();
    collect_returns();
  }

  std::uint64_t sequence() const noexcept { return tail_; }  // messages published so far
  std::uint32_t slot() const noexcept { return slot_; }
  // Generation of the slot's claim: (slot, generation) names this publisher for good, as
  // TakenSample::publisher_slot() / publisher_generation() do on the subscriber side.
  std::uint32_t generation() const noexcept { return generation_; }
  const Topic& topic() const noexcept { return *topic_; }
  const memory::ChunkPool& pool() const noexcept { return *pool_; }
  std::uint32_t subscriber_count() const { return topic_->subscriber_count(); }
  // Chunks held by the ring (the last `depth` messages, less those a volatile publisher of large
  // messages let go once every subscriber had taken them; see release_taken): not free, not
  // leaked.
  std::uint32_t ring_occupancy() const noexcept;

 private:
  PublisherPort() = default;
  bool wait_for_space(std::uint64_t seq) noexcept;
  void notify_subscribers() noexcept;
  // Whether this publish stamps its message: options_.source_timestamps and an active subscriber
  // asks (SubscriberSlot::wants_timestamps). Rescans the subscriber slots only when the topic's
  // epoch moved (a slot was activated or released): one load per publish otherwise.
  bool stamping() noexcept;
  // The clean close's steps (see ~PublisherPort).
  void leave() noexcept;
  void park_for_local_subscribers() noexcept;
  bool remote_subscriber_unmapped() const noexcept;
  void wait_for_remote_subscribers() noexcept;
  // Before a loan of `size` would take a chunk this process has not written yet, or grow the
  // pool: lets go of the ring's chunks every subscriber has taken (release_taken) and collects
  // what subscribers handed back, so a stream keeps writing the same few chunks (issue 20).
  void reuse_taken() noexcept;
  // A volatile publisher drops the ring's reference on every message each attached subscriber
  // has taken (its cursor is past it), as an eviction would later: no one can read it any more
  // (a subscriber attaching from now on starts at the tail). Not while any active subscriber
  // is unattached (it may read from our first message), nor for transient-local history.
  void release_taken() noexcept;
  // Return queue k, or nullptr while its pages are not committed (PublisherHeader::
  // committed_queues): no subscriber in slot k has attached to us then, so it holds no cursor
  // and no returns. Nothing reads a queue but through this (a hole read allocates a page).
  ReturnQueue* queue(std::uint32_t k) const noexcept {
    if (known_queues_[sub_mask_word(k)] & sub_mask_bit(k)) return queues_ + k;
    return queue_cold(k);
  }
  ReturnQueue* queue_cold(std::uint32_t k) const noexcept;

  std::shared_ptr<Topic> topic_;
  PublisherOptions options_;
  std::uint32_t slot_ = 0;
  std::uint32_t generation_ = 0;
  std::shared_ptr<shm::Segment> segment_;  // shared with this process's subscribers
  PublisherHeader* header_ = nullptr;
  Row* rows_ = nullptr;
  ReturnQueue* queues_ = nullptr;
  // Queues this publisher has seen committed (queue()); a committed queue stays committed.
  mutable std::array<std::uint64_t, SUB_MASK_WORDS> known_queues_{};
  std::unique_ptr<memory::ChunkPool> pool_;
  std::vector<memory::ChunkRef> ring_;  // private copy of rows_[i].chunk
  std::uint64_t tail_ = 0;
  std::uint64_t space_limit_ = 0;  // publishing below this needs no reliable-space scan
  // How long wait_for_space looks again before it sleeps: doubled (up to 100 us) when looking
  // found room, halved (down to 0.5 us) when it had to sleep anyway (a subscriber that is not
  // running, e.g. one of 256 on two cores, frees nothing while we spin). The ceiling covers a
  // subscriber's futex wake-up on a loaded VM (30-100 us): a publisher that filled the queue
  // of a subscriber just being woken finds room without sleeping itself, where with 10 us it
  // slept and the subscriber, having drained the queue meanwhile, slept too and the next
  // publish paid a second wake-up (issue 20, scenario A's p99).
  shm::AdaptiveSpin space_spin_{100'000};
  std::uint64_t unreleased_from_ = 0;  // ring entries below this seq were let go already
  std::uint64_t stamp_epoch_ = ~0ull;  // the topic epoch stamping_ was computed at
  bool stamping_ = false;
};

}  // namespace baton::topic
