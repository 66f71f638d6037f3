// Handing a chunk back to its publisher once its last reference is dropped. One producer per
// queue (the subscriber of that slot — its threads serialise their pushes, see
// subscriber_port.cpp — or the reclaimer after it died), one consumer (the publisher). Indices read
// from shared memory are never trusted: a queue claiming more entries than it can hold is treated
// as overflowed, and the publisher falls back to a sweep.
#pragma once

#include <cstdint>

#include "baton/memory/chunk_layout.hpp"
#include "baton/memory/chunk_refs.hpp"
#include "baton/shm/segment.hpp"
#include "baton/topic/topic_layout.hpp"

namespace baton::topic {

// Commits return queue k's pages in /dev/shm through `seg`, the caller's mapping of a publisher
// segment whose ring has `ring` rows, and maps them there. False if /dev/shm has no room for
// them (the error, not a SIGBUS on first touch).
inline bool commit_return_queue_pages(shm::Segment& seg, std::uint32_t ring,
                                      std::uint32_t k) noexcept {
  return k < MAX_SUBSCRIBERS &&
         seg.commit(PublisherSegmentLayout::queue_offset(ring, k), sizeof(ReturnQueue), true);
}

// commit_return_queue_pages, then sets the queue's committed_queues bit in the segment's header
// `h`: before anything is written there, by the publisher matching slot k at creation or by the
// subscriber in slot k when it attaches (version 10: the queues are a hole until then).
inline bool commit_return_queue(shm::Segment& seg, PublisherHeader* h, std::uint32_t ring,
                                std::uint32_t k) noexcept {
  if (!commit_return_queue_pages(seg, ring, k)) return false;
  std::atomic<std::uint64_t>& word = h->committed_queues[sub_mask_word(k)];
  // Look first: a queue committed before (a reconnect, the publisher's match) needs no RMW.
  if ((word.load(std::memory_order_acquire) & sub_mask_bit(k)) == 0) {
    word.fetch_or(sub_mask_bit(k), std::memory_order_release);
  }
  return true;
}

// Producer side. Never blocks: if the queue is full, the overflow flag makes the publisher sweep.
inline void push_return(PublisherHeader* pub, ReturnQueue* q, std::uint32_t slot,
                        memory::ChunkRef ref) noexcept {
  const std::uint32_t tail = q->tail.load(std::memory_order_relaxed);
  const std::uint32_t head = q->head.load(std::memory_order_acquire);
  if (tail - head >= RETURN_QUEUE_CAPACITY) {
    q->overflowed.store(1, std::memory_order_release);
  } else {
    q->entries[tail % RETURN_QUEUE_CAPACITY] = ref;
    q->tail.store(tail + 1, std::memory_order_release);  // sync point "return-push"
  }
  pub->returns_pending.fetch_or(returns_pending_bit(slot), std::memory_order_release);
}

// Drops subscriber slot `slot`'s reference on a chunk; true if it was the last reference, so
// the caller must hand the chunk back (push_return).
inline bool drop_subscriber_bit(memory::ChunkControl* ctl, std::uint32_t slot) noexcept {
  return memory::drop_ref(ctl, slot);
}

// drop_subscriber_bit + push_return, for a single producer of `q` (the reclaimer).
// Returns true if the chunk became free.
inline bool drop_subscriber_ref(memory::ChunkControl* ctl, PublisherHeader* pub, ReturnQueue* q,
                                std::uint32_t slot, memory::ChunkRef ref) noexcept {
  if (!drop_subscriber_bit(ctl, slot)) return false;
  push_return(pub, q, slot, ref);
  return true;
}

}  // namespace baton::topic
