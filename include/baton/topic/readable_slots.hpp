// How far a scan of a topic directory's slots may read. The limits in TopicHeader
// (pub_slot_limit / sub_slot_limit) say which slots may have been claimed, and claimers commit a
// slot's pages before they raise them; but the limits live in shared memory, and a peer that
// corrupts one upward would send every scanner (claimers, reclaimers, closers, ROS graph events)
// into holes of the directory file, and a read of a hole on a full /dev/shm raises SIGBUS. So a
// scan stops before the first slot whose pages cannot be mapped (shm::Segment::readable), and a
// process remembers how far it has checked so that a limit it has seen costs nothing again.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "baton/shm/segment.hpp"
#include "baton/topic/topic_layout.hpp"

namespace baton::topic {

// Slots of kind SlotT in the directory's header page: committed with it, always readable.
template <typename SlotT>
constexpr std::uint32_t head_slots() {
  if constexpr (std::is_same_v<SlotT, PublisherSlot>) {
    return TopicSegmentLayout::head_publisher_slots;
  } else {
    return TopicSegmentLayout::head_subscriber_slots;
  }
}

// How many of the first `limit` slots of kind SlotT can be read, knowing the first `from` can:
// `limit` when every page up to it is mapped (one madvise for the whole range), otherwise the
// slots before the first page that is not (a hole where /dev/shm is full).
template <typename SlotT>
std::uint32_t readable_slots(const shm::Segment& seg, std::uint32_t from, std::uint32_t limit) {
  from = std::max(from, head_slots<SlotT>());
  if (limit <= from) return limit;
  const auto at = [](std::uint32_t i) { return TopicSegmentLayout::slot_offset<SlotT>(i); };
  if (seg.readable(at(from), at(limit - 1) + sizeof(SlotT) - at(from))) return limit;
  std::uint32_t n = from;
  while (n < limit && seg.readable(at(n), sizeof(SlotT))) ++n;
  return n;
}

// `limit` (a slot limit read from the header, clamped) cut to what this process can read;
// `known` is how far it has checked already (raised here, never lowered: committed pages stay).
template <typename SlotT>
std::uint32_t readable_limit(const shm::Segment& seg, std::uint32_t limit,
                             std::atomic<std::uint32_t>& known) {
  std::uint32_t checked = known.load(std::memory_order_relaxed);
  if (limit <= checked) return limit;
  const std::uint32_t n = readable_slots<SlotT>(seg, checked, limit);
  while (checked < n && !known.compare_exchange_weak(checked, n, std::memory_order_relaxed)) {
  }
  return n;
}

}  // namespace baton::topic
