// The deadline and liveliness clocks of rmw_baton_cpp's endpoints: see event_state.hpp and
// period_tracker.hpp. Endpoints without a finite deadline or lease never take the mutex here.
#include <rmw/qos_profiles.h>

#include "baton/shm/clock.hpp"
#include "event_state.hpp"

namespace baton::ros2::rmw {

namespace {

// The assertion, for subscriptions in other processes too (their LIVELINESS_CHANGED).
void share_assertion(const EndpointEvents& e, int64_t now) {
  if (e.shared_lease != nullptr)
    e.shared_lease->asserted_ns.store(static_cast<uint64_t>(now), std::memory_order_relaxed);
}

}  // namespace

void start_qos_clocks(EndpointEvents& e, const rmw_qos_profile_t& qos,
                      baton::topic::PublisherSlot* slot) {
  const int64_t now = baton::shm::monotonic_ns();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.deadline = DeadlineTracker{};
  e.deadline.period_ns = finite_period_ns(qos.deadline);
  e.deadline.last_ns = now;
  e.lease = LeaseTracker{};
  if (slot != nullptr && qos.liveliness == RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC)
    e.lease.lease_ns = finite_period_ns(qos.liveliness_lease_duration);
  e.lease.last_ns = now;
  if (e.lease.lease_ns > 0) {
    // The lease and the first assertion, then the tag that makes them count (release: a reader
    // that sees the tag sees both).
    slot->lease_ns.store(static_cast<uint64_t>(e.lease.lease_ns), std::memory_order_relaxed);
    slot->asserted_ns.store(static_cast<uint64_t>(now), std::memory_order_relaxed);
    slot->liveliness_generation.store(slot->generation.load(std::memory_order_acquire),
                                      std::memory_order_release);
    e.shared_lease = slot;
  }
}

void published(EndpointEvents& e) {
  if (e.deadline.period_ns == 0 && e.lease.lease_ns == 0) return;
  const int64_t now = baton::shm::monotonic_ns();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.deadline.renew(now, now);
  e.lease.assert_at(now);
  share_assertion(e, now);
}

void liveliness_asserted(EndpointEvents& e) {
  if (e.lease.lease_ns == 0) return;
  const int64_t now = baton::shm::monotonic_ns();
  std::lock_guard<std::mutex> lock(e.mutex);
  e.lease.assert_at(now);
  share_assertion(e, now);
}

void sample_arrived(EndpointEvents& e, int64_t source_realtime_ns) {
  if (e.deadline.period_ns == 0) return;
  const int64_t now = baton::shm::monotonic_ns();
  // The publish time on the monotonic clock: how long ago it was by the system clock. The stamp
  // comes from another process's shared memory: renew() clamps it to [last renewal, now].
  const int64_t age = source_realtime_ns > 0 ? baton::shm::realtime_ns() - source_realtime_ns : 0;
  std::lock_guard<std::mutex> lock(e.mutex);
  e.deadline.renew(age > 0 ? now - age : now, now);
}

void advance_qos_clocks(EndpointEvents& e, bool samples_waiting) {
  const int64_t now = baton::shm::monotonic_ns();
  if (!samples_waiting) e.deadline.advance(now);
  e.lease.advance(now);
}

}  // namespace baton::ros2::rmw
