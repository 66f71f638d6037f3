// Removing a shared segment when its last user leaves, without ever splitting its users between
// two segments of one name. Used by topic directories (topic_layout.hpp) and the graph registry
// (registry_layout.hpp); each keeps the two words below in its own header.
//
//   lifecycle          LifecycleState in bits 0..7, the closer's pid in bits 32..63; 0 = Open
//   closer_start_time  the closer's start time (pid reuse guard); 0 = "not recorded, the pid
//                      alone decides" (written after its CAS, zeroed before it reopens)
//
// Users hold "claims" in the segment (topic slots, registry participant entries), each a state
// word they CAS from Free with their pid in it.
//   closer:  CAS Open -> Closing(pid); scan every claim; any live claim -> back to Open;
//            otherwise Closed(pid), then unlink.
//   claimer: CAS its entry Free -> claimed; admits_claim(); false -> free the entry again and
//            reopen the segment by name (the closer removes this one).
// Both sides are seq_cst (sync point "segment-close"), so of "claim; read lifecycle" and "write
// lifecycle; read claims" at least one sees the other: a claim never survives in a removed
// segment, and two processes never use two segments of one name.
// Only the holder of Closed unlinks, and only while the name still names this very file
// (Segment::unlink_if_same): it never removes a successor created under the same name. A closer
// that died is taken over: from Closing the next closer starts over, from Closed it finishes the
// unlink (a no-op when the dead closer had already unlinked).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "baton/shm/segment.hpp"
#include "baton/shm/segment_lifecycle_layout.hpp"

namespace baton::shm {

// What closing a segment did.
enum class CloseVerdict : std::uint8_t {
  Removed,  // The segment was closed and unlinked.
  InUse,    // A live process holds (or is claiming) an entry: kept.
  Busy,     // Another live process is closing it right now: left to that one.
};

// True if a live process holds a claim in the segment. Called by the closer after its CAS to
// Closing; must read every claim word with seq_cst loads (sync point "segment-close").
using LiveClaimScan = std::function<bool()>;

// A view of one segment's two lifecycle words (borrowed: valid while the mapping is).
class SegmentLifecycle {
 public:
  SegmentLifecycle(std::atomic<std::uint64_t>& word,
                   std::atomic<std::uint64_t>& closer_start_time) noexcept
      : word_(&word), closer_start_time_(&closer_start_time) {}

  // False once the segment is being removed or gone (acquire; a hint for caches of handles).
  bool is_open() const noexcept;
  // The claimer's half of "segment-close", right after its seq_cst claim: false means the
  // segment is closing or closed and the claim must be undone (the caller then reopens).
  bool admits_claim() const noexcept;
  // The pid in the word (the closer's while Closing / Closed; 0 while Open).
  std::uint32_t closer_pid() const noexcept;

  // The closer's half: removes the segment if `any_live_claim` finds nobody, takes over from a
  // dead closer, leaves a live closer alone. `seg` is the mapping these words live in.
  CloseVerdict close_if_unused(Segment& seg, const LiveClaimScan& any_live_claim);

 private:
  bool closer_alive(std::uint64_t word) const noexcept;
  void reopen(std::uint64_t closing) noexcept;

  std::atomic<std::uint64_t>* word_;
  std::atomic<std::uint64_t>* closer_start_time_;
};

// What open_or_create does with a segment it found not Open: finish a dead closer's job, or
// wait a little for a live one, then open again by name. One object per open_or_create call.
class ClosingWait {
 public:
  // A closer finishes in microseconds; waiting on one does not count as a contention attempt,
  // up to MAX_WAITS x 200 us (a closer descheduled meanwhile).
  static constexpr int MAX_WAITS = 10000;

  // Runs the closer's half on `seg`; when a live closer is busy with it, sleeps 200 us. Returns
  // true when the caller should not count this round as an attempt.
  bool settle(Segment& seg, SegmentLifecycle lifecycle, const LiveClaimScan& any_live_claim);
  // The live closer last waited for (0: none), for the caller's error text.
  std::uint32_t busy_closer() const noexcept { return busy_closer_; }

 private:
  int waits_ = 0;
  std::uint32_t busy_closer_ = 0;
};

}  // namespace baton::shm
