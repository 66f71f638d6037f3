// Reference words of a chunk (ChunkControl::refs, refs_ext): who may pin, drop and free it.
//
// A reference is a bit, never a count: dropping one is idempotent (fetch_and), so a reclaimer
// that finds a dead subscriber's loan record can drop its bit whether or not the subscriber got
// to it before dying — a count could not tell, and would free a chunk another reader holds.
// 64 bits do not reach 256 subscribers, so slots 63.. hold a bit in refs_ext (a second cache
// line). The words are not updated together; what keeps a chunk from being freed while pinned is
// a Dekker pair on seq_cst operations (sync point "chunk-pin"):
//   pinning subscriber: set its bit, then read PUBLISHER_REF;
//   publisher dropping its reference: clear PUBLISHER_REF, then read every other word.
// One of them sees the other: either the subscriber sees the publisher gone (and lets go again)
// or the publisher sees the pin (and leaves freeing to the last releaser). A releaser clears its
// bit, then reads the other words; of two releasers in different words at least one sees both
// cleared. Two may both believe they were last: the publisher lists a chunk only if every word
// is 0 and it is not listed already, so a duplicate hand-back is harmless. On x86 seq_cst RMWs
// and loads are the same instructions as acq_rel / acquire: slot 0's path costs what it did.
#pragma once

#include <atomic>
#include <cstdint>

#include "baton/memory/chunk_layout.hpp"

namespace baton::memory {

// The word that holds subscriber slot `slot`'s reference, and its bit there.
inline std::atomic<std::uint64_t>& ref_word(ChunkControl* ctl, std::uint32_t slot) noexcept {
  return slot < WORD0_SUBSCRIBER_BITS ? ctl->refs
                                      : ctl->refs_ext[(slot - WORD0_SUBSCRIBER_BITS) / 64];
}
constexpr std::uint64_t ref_bit(std::uint32_t slot) noexcept {
  return 1ull << (slot < WORD0_SUBSCRIBER_BITS ? slot : (slot - WORD0_SUBSCRIBER_BITS) % 64);
}

// Whether every extension word is 0 (the second control line; shared, not written, when no
// subscriber beyond slot 62 exists).
inline bool ext_refs_clear(const ChunkControl* ctl) noexcept {
  for (const auto& w : ctl->refs_ext) {
    if (w.load(std::memory_order_seq_cst) != 0) return false;
  }
  return true;
}

// No reference at all: the chunk may be listed as free (by its owner only).
inline bool refs_clear(const ChunkControl* ctl) noexcept {
  return ctl->refs.load(std::memory_order_seq_cst) == 0 && ext_refs_clear(ctl);
}

// Whether subscriber slot `slot` holds a reference (tests, diagnostics).
inline bool holds_ref(ChunkControl* ctl, std::uint32_t slot) noexcept {
  return (ref_word(ctl, slot).load(std::memory_order_acquire) & ref_bit(slot)) != 0;
}

struct PinResult {
  bool pinned;        // the publisher still held the chunk when our bit was set
  bool ours_already;  // our bit was set before (only through a corrupt row): do not drop it
};

// Sets subscriber slot `slot`'s bit (one RMW; for slots 0..62 the same RMW reads the publisher's
// bit). Not pinned and not ours_already: the caller must drop the stray bit again.
inline PinResult pin_ref(ChunkControl* ctl, std::uint32_t slot) noexcept {
  const std::uint64_t bit = ref_bit(slot);
  const std::uint64_t before = ref_word(ctl, slot).fetch_or(bit, std::memory_order_seq_cst);
  if ((before & bit) != 0) return {false, true};
  const std::uint64_t word0 =
      slot < WORD0_SUBSCRIBER_BITS ? before : ctl->refs.load(std::memory_order_seq_cst);
  return {(word0 & PUBLISHER_REF) != 0, false};
}

// Drops subscriber slot `slot`'s bit; true if no reference is left, so the caller must hand the
// chunk back. seq_cst (at least acq_rel): our reads of the payload happen-before the publisher
// reuses it (sync point "chunk-free").
inline bool drop_ref(ChunkControl* ctl, std::uint32_t slot) noexcept {
  const std::uint64_t bit = ref_bit(slot);
  const std::uint64_t left = ref_word(ctl, slot).fetch_and(~bit, std::memory_order_seq_cst) & ~bit;
  if (left != 0) return false;  // the usual case: the publisher's bit is still set
  return refs_clear(ctl);
}

// Drops the publisher's bit; true if no reference is left (the owner lists the chunk).
inline bool drop_publisher_ref(ChunkControl* ctl) noexcept {
  const std::uint64_t old = ctl->refs.fetch_and(~PUBLISHER_REF, std::memory_order_seq_cst);
  return old == PUBLISHER_REF && ext_refs_clear(ctl);
}

}  // namespace baton::memory
