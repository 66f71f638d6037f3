#include "baton/shm/segment_lifecycle.hpp"

#include <chrono>
#include <thread>

#include "baton/shm/participant.hpp"

namespace baton::shm {

bool SegmentLifecycle::is_open() const noexcept {
  return lifecycle_state(word_->load(std::memory_order_acquire)) == LifecycleState::Open;
}

bool SegmentLifecycle::admits_claim() const noexcept {
  // Sync point "segment-close", the claimer's half: its claim CAS was seq_cst too.
  return lifecycle_state(word_->load(std::memory_order_seq_cst)) == LifecycleState::Open;
}

std::uint32_t SegmentLifecycle::closer_pid() const noexcept {
  return lifecycle_pid(word_->load(std::memory_order_acquire));
}

bool SegmentLifecycle::closer_alive(std::uint64_t word) const noexcept {
  return is_alive({lifecycle_pid(word), closer_start_time_->load(std::memory_order_relaxed)});
}

void SegmentLifecycle::reopen(std::uint64_t closing) noexcept {
  closer_start_time_->store(0, std::memory_order_relaxed);
  std::uint64_t expected = closing;
  word_->compare_exchange_strong(expected, lifecycle_word(LifecycleState::Open, 0),
                                 std::memory_order_seq_cst);
}

CloseVerdict SegmentLifecycle::close_if_unused(Segment& seg, const LiveClaimScan& any_live_claim) {
  const ParticipantId me = self();
  const std::uint64_t closing = lifecycle_word(LifecycleState::Closing, me.pid);
  const std::uint64_t closed = lifecycle_word(LifecycleState::Closed, me.pid);
  std::uint64_t w = word_->load(std::memory_order_seq_cst);
  switch (lifecycle_state(w)) {
    case LifecycleState::Open:
      break;
    case LifecycleState::Closing:  // a dead closer never reached Closed: start over from it
      if (closer_alive(w)) return CloseVerdict::Busy;
      break;
    case LifecycleState::Closed:  // a dead closer may not have unlinked: finish its job
      if (closer_alive(w)) return CloseVerdict::Busy;
      if (!word_->compare_exchange_strong(w, closed, std::memory_order_seq_cst))
        return CloseVerdict::Busy;
      closer_start_time_->store(me.start_time, std::memory_order_relaxed);
      seg.unlink_if_same();  // it did unlink if a successor (or nothing) has the name now
      return CloseVerdict::Removed;
    default:  // not a state this build writes: leave it to `baton clean`
      return CloseVerdict::InUse;
  }
  // Sync point "segment-close", the closer's half: announce, then look at every claim.
  if (!word_->compare_exchange_strong(w, closing, std::memory_order_seq_cst))
    return CloseVerdict::Busy;
  closer_start_time_->store(me.start_time, std::memory_order_relaxed);
  if (any_live_claim()) {
    reopen(closing);
    return CloseVerdict::InUse;
  }
  word_->store(closed, std::memory_order_seq_cst);
  seg.unlink_if_same();  // only the holder of Closed unlinks: the name is still this segment's
  return CloseVerdict::Removed;
}

bool ClosingWait::settle(Segment& seg, SegmentLifecycle lifecycle,
                         const LiveClaimScan& any_live_claim) {
  if (lifecycle.close_if_unused(seg, any_live_claim) != CloseVerdict::Busy) return false;
  busy_closer_ = lifecycle.closer_pid();
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  return ++waits_ < MAX_WAITS;
}

}  // namespace baton::shm
