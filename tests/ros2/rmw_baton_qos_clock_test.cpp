// rmw_baton_cpp's deadline and liveliness-lost events (src/ros2/rmw/qos_clocks.cpp,
// period_tracker.hpp), called through dlopen as rcl would, on shared memory: a finite deadline
// missed by a publisher that does not publish and by a subscription that receives nothing, rmw_wait
// woken by the deadline itself, and manual liveliness with a finite lease lost by a publisher that
// does not assert it. These tests let time pass (a deadline cannot be missed otherwise): they wait
// for the event and check its counts, never how long it took. The same events from real rclpy:
// rmw_baton_rclpy_qos_clock_test.cpp.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>

#include <cstring>
#include <limits>
#include <string>

#include "baton/topic/topic.hpp"
#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;

constexpr rmw_time_t SHORT{0, 50'000'000};  // 50 ms: missed while the test waits
constexpr rmw_time_t LONG{3600, 0};         // an hour: never missed while the test runs
constexpr uint64_t WAIT_S = 30;             // rmw_wait's timeout: the event ends it long before

class RmwBatonQosClock : public test::RmwLocalTest {
 protected:
  rmw_qos_profile_t with_deadline(rmw_time_t deadline) {
    rmw_qos_profile_t q = test::test_qos(true, 10);
    q.deadline = deadline;
    return q;
  }
  rmw_qos_profile_t manual_liveliness(rmw_time_t lease) {
    rmw_qos_profile_t q = test::test_qos(true, 10);
    q.liveliness = RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
    q.liveliness_lease_duration = lease;
    return q;
  }
  rmw_event_t publisher_event(rmw_publisher_t* pub, rmw_event_type_t type) {
    RMW_FN(rmw_, rmw_publisher_event_init);
    RMW_FN(rmw_, rmw_get_zero_initialized_event);
    rmw_event_t e = rmw_get_zero_initialized_event();
    EXPECT_EQ(rmw_publisher_event_init(&e, pub, type), RMW_RET_OK) << test::take_error(rmw_);
    return e;
  }
  rmw_event_t subscription_event(rmw_subscription_t* sub, rmw_event_type_t type) {
    RMW_FN(rmw_, rmw_subscription_event_init);
    RMW_FN(rmw_, rmw_get_zero_initialized_event);
    rmw_event_t e = rmw_get_zero_initialized_event();
    EXPECT_EQ(rmw_subscription_event_init(&e, sub, type), RMW_RET_OK) << test::take_error(rmw_);
    return e;
  }
  // rmw_take_event of a status with total_count / total_count_change (the deadline and
  // liveliness-lost statuses are alike).
  template <typename Status>
  Status take(rmw_event_t* e) {
    RMW_FN(rmw_, rmw_take_event);
    Status s{};
    bool taken = false;
    EXPECT_EQ(rmw_take_event(e, &s, &taken), RMW_RET_OK) << test::take_error(rmw_);
    EXPECT_TRUE(taken);
    return s;
  }
  // Waits (rmw_wait, as rcl does) until the event is ready, then takes it.
  template <typename Status>
  Status wait_and_take(RmwContext& c, rmw_event_t* e) {
    EXPECT_TRUE(test::wait_for_event(rmw_, c, e, WAIT_S));
    return take<Status>(e);
  }
  void publish_one(rmw_publisher_t* pub) {
    RMW_FN(rmw_, rmw_publish);
    void* msg = point_.create();
    EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK) << test::take_error(rmw_);
    point_.destroy(msg);
  }
};

TEST_F(RmwBatonQosClock, every_event_type_but_incompatible_type_is_supported) {
  RMW_FN(rmw_, rmw_event_type_is_supported);
  for (auto t : {RMW_EVENT_PUBLICATION_MATCHED, RMW_EVENT_SUBSCRIPTION_MATCHED,
                 RMW_EVENT_MESSAGE_LOST, RMW_EVENT_LIVELINESS_CHANGED, RMW_EVENT_LIVELINESS_LOST,
                 RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE, RMW_EVENT_OFFERED_QOS_INCOMPATIBLE,
                 RMW_EVENT_REQUESTED_DEADLINE_MISSED, RMW_EVENT_OFFERED_DEADLINE_MISSED})
    EXPECT_TRUE(rmw_event_type_is_supported(t)) << t;
  for (auto t : {RMW_EVENT_SUBSCRIPTION_INCOMPATIBLE_TYPE, RMW_EVENT_PUBLISHER_INCOMPATIBLE_TYPE})
    EXPECT_FALSE(rmw_event_type_is_supported(t)) << t;
}

TEST_F(RmwBatonQosClock, a_publisher_that_does_not_publish_misses_its_offered_deadline) {
  RmwContext c(rmw_, "clock_pub");
  auto* pub =
      test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(), with_deadline(SHORT));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  rmw_event_t missed = publisher_event(pub, RMW_EVENT_OFFERED_DEADLINE_MISSED);
  // rmw_wait ends when the deadline passes (it would otherwise sleep its whole timeout).
  auto first = wait_and_take<rmw_offered_deadline_missed_status_t>(c, &missed);
  EXPECT_GE(first.total_count, 1);
  EXPECT_EQ(first.total_count_change, first.total_count);
  // Publishing restarts the period; the next miss is counted on top of the first ones.
  publish_one(pub);
  auto second = wait_and_take<rmw_offered_deadline_missed_status_t>(c, &missed);
  EXPECT_GT(second.total_count, first.total_count);
  EXPECT_EQ(second.total_count_change, second.total_count - first.total_count);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonQosClock, a_publisher_within_its_deadline_reports_no_miss) {
  RmwContext c(rmw_, "clock_pub_ok");
  auto* pub =
      test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(), with_deadline(LONG));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  rmw_event_t missed = publisher_event(pub, RMW_EVENT_OFFERED_DEADLINE_MISSED);
  publish_one(pub);
  EXPECT_FALSE(test::wait_for_event(rmw_, c, &missed, 0));
  auto s = take<rmw_offered_deadline_missed_status_t>(&missed);
  EXPECT_EQ(s.total_count, 0);
  EXPECT_EQ(s.total_count_change, 0);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonQosClock, a_subscription_that_receives_nothing_misses_its_requested_deadline) {
  RmwContext c(rmw_, "clock_sub");
  RMW_FN(rmw_, rmw_take);
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        with_deadline(SHORT));
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  rmw_event_t missed = subscription_event(sub, RMW_EVENT_REQUESTED_DEADLINE_MISSED);
  auto first = wait_and_take<rmw_requested_deadline_missed_status_t>(c, &missed);
  EXPECT_GE(first.total_count, 1);
  EXPECT_EQ(first.total_count_change, first.total_count);
  // A sample taken restarts the period; the next miss adds to the count.
  publish_one(pub);
  void* msg = point_.create();
  bool taken = false;
  ASSERT_EQ(rmw_take(sub, msg, &taken, nullptr), RMW_RET_OK);
  EXPECT_TRUE(taken);
  point_.destroy(msg);
  auto second = wait_and_take<rmw_requested_deadline_missed_status_t>(c, &missed);
  EXPECT_GT(second.total_count, first.total_count);
  EXPECT_EQ(second.total_count_change, second.total_count - first.total_count);
  test::destroy(rmw_, c, sub);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonQosClock, a_subscription_receiving_within_its_deadline_reports_no_miss) {
  RmwContext c(rmw_, "clock_sub_ok");
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        with_deadline(LONG));
  ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
  rmw_event_t missed = subscription_event(sub, RMW_EVENT_REQUESTED_DEADLINE_MISSED);
  EXPECT_FALSE(test::wait_for_event(rmw_, c, &missed, 0));
  auto s = take<rmw_requested_deadline_missed_status_t>(&missed);
  EXPECT_EQ(s.total_count, 0);
  EXPECT_EQ(s.total_count_change, 0);
  test::destroy(rmw_, c, sub);
}

TEST_F(RmwBatonQosClock, a_publisher_that_does_not_assert_its_manual_liveliness_loses_it) {
  RmwContext c(rmw_, "clock_lease");
  RMW_FN(rmw_, rmw_publisher_assert_liveliness);
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                     manual_liveliness(SHORT));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  rmw_event_t lost = publisher_event(pub, RMW_EVENT_LIVELINESS_LOST);
  auto first = wait_and_take<rmw_liveliness_lost_status_t>(c, &lost);
  EXPECT_EQ(first.total_count, 1);  // lost once, however long it stays lost
  EXPECT_EQ(first.total_count_change, 1);
  // Asserted (by the call, then by a publish): alive again, and lost again when the lease ends.
  ASSERT_EQ(rmw_publisher_assert_liveliness(pub), RMW_RET_OK);
  auto second = wait_and_take<rmw_liveliness_lost_status_t>(c, &lost);
  EXPECT_EQ(second.total_count, 2);
  EXPECT_EQ(second.total_count_change, 1);
  publish_one(pub);
  auto third = wait_and_take<rmw_liveliness_lost_status_t>(c, &lost);
  EXPECT_EQ(third.total_count, 3);
  EXPECT_EQ(third.total_count_change, 1);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonQosClock, a_subscription_counts_a_publisher_whose_lease_ran_out_as_not_alive) {
  RmwContext a(rmw_, "clock_changed_sub");
  RmwContext b(rmw_, "clock_changed_pub");
  RMW_FN(rmw_, rmw_publisher_assert_liveliness);
  auto* sub = test::create_subscription(rmw_, a, point_.type_support(), topic_.c_str(),
                                        manual_liveliness(LONG));
  ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
  rmw_event_t changed = subscription_event(sub, RMW_EVENT_LIVELINESS_CHANGED);
  // Its lease (50 ms) runs out unless asserted: alive at first, then not alive.
  auto* pub = test::create_publisher(rmw_, b, point_.type_support(), topic_.c_str(),
                                     manual_liveliness(SHORT));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  rmw_liveliness_changed_status_t s{};
  while (s.not_alive_count == 0) {  // one or two looks, depending on when the first one came
    ASSERT_TRUE(test::wait_for_event(rmw_, a, &changed, WAIT_S));
    s = take<rmw_liveliness_changed_status_t>(&changed);
  }
  EXPECT_EQ(s.alive_count, 0);
  EXPECT_EQ(s.not_alive_count, 1);
  EXPECT_EQ(s.not_alive_count_change, 1);
  // Asserted: alive again (counted at the next look, before the lease runs out once more or
  // after: either way the publisher is counted exactly once).
  ASSERT_EQ(rmw_publisher_assert_liveliness(pub), RMW_RET_OK);
  ASSERT_TRUE(test::wait_for_event(rmw_, a, &changed, WAIT_S));
  s = take<rmw_liveliness_changed_status_t>(&changed);
  EXPECT_EQ(s.alive_count + s.not_alive_count, 1);
  // Gone: neither alive nor not alive.
  test::destroy(rmw_, b, pub);
  while (s.alive_count + s.not_alive_count != 0) {
    ASSERT_TRUE(test::wait_for_event(rmw_, a, &changed, WAIT_S));
    s = take<rmw_liveliness_changed_status_t>(&changed);
  }
  EXPECT_EQ(s.alive_count, 0);
  EXPECT_EQ(s.not_alive_count, 0);
  test::destroy(rmw_, a, sub);
}

// The lease and assertion time in a publisher's slot come from another process: whatever they
// hold, a subscription only counts the publisher alive or not alive (and rmw_wait computes its
// next expiry without overflow: UBSan in scripts/sanitize.sh).
TEST_F(RmwBatonQosClock, hostile_lease_values_in_a_publisher_slot_only_decide_alive_or_not) {
  RmwContext a(rmw_, "clock_hostile_sub");
  RmwContext b(rmw_, "clock_hostile_pub");
  auto* sub = test::create_subscription(rmw_, a, point_.type_support(), topic_.c_str(),
                                        manual_liveliness(LONG));
  auto* pub = test::create_publisher(rmw_, b, point_.type_support(), topic_.c_str(),
                                     manual_liveliness(LONG));
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  rmw_event_t changed = subscription_event(sub, RMW_EVENT_LIVELINESS_CHANGED);
  // The topic directory, as the rmw opened it (the ROS name, the type's name and RIHS01 hash).
  const rosidl_message_type_support_t* ts = point_.introspection();
  const rosidl_type_hash_t* hash = ts->get_type_hash_func(ts);
  topic::TypeInfo info;
  info.name = "geometry_msgs/msg/Point";
  std::memcpy(info.hash.data(), hash->value, info.hash.size());
  auto directory = topic::Topic::open_or_create(topic_, info);
  ASSERT_TRUE(directory) << directory.error().detail;
  topic::PublisherSlot* slot = nullptr;
  for (uint32_t i = 0; i < topic::MAX_PUBLISHERS && slot == nullptr; ++i) {
    topic::PublisherSlot* p = (*directory)->publisher_slot(i);
    if (topic::slot_state(p->state.load()) == topic::SlotState::Active) slot = p;
  }
  ASSERT_NE(slot, nullptr);
  ASSERT_EQ(slot->liveliness_generation.load(), slot->generation.load());  // it shares its lease
  constexpr uint64_t MAX = std::numeric_limits<uint64_t>::max();
  const struct {
    uint64_t lease, asserted;
    int alive, not_alive;
  } cases[] = {
      {MAX, 0, 1, 0},                  // a lease past INT64_MAX: alive
      {1, 0, 0, 1},                    // 1 ns, asserted at boot: not alive
      {uint64_t{INT64_MAX}, 0, 1, 0},  // the largest lease: alive, expiry saturates
      {5, MAX, 1, 0},                  // asserted in the future: alive
      {0, 0, 1, 0},                    // no lease: alive
      {uint64_t{INT64_MAX}, uint64_t{INT64_MAX}, 1, 0},
  };
  for (const auto& c : cases) {
    slot->lease_ns.store(c.lease);
    slot->asserted_ns.store(c.asserted);
    (void)test::wait_for_event(rmw_, a, &changed, 0);  // its next expiry, from these values
    auto s = take<rmw_liveliness_changed_status_t>(&changed);
    EXPECT_EQ(s.alive_count, c.alive) << c.lease << " " << c.asserted;
    EXPECT_EQ(s.not_alive_count, c.not_alive) << c.lease << " " << c.asserted;
  }
  // A tag that is not the slot's generation (a previous owner's): the values do not count.
  slot->lease_ns.store(1);
  slot->asserted_ns.store(0);
  slot->liveliness_generation.store(slot->generation.load() + 1);
  auto s = take<rmw_liveliness_changed_status_t>(&changed);
  EXPECT_EQ(s.alive_count, 1);
  EXPECT_EQ(s.not_alive_count, 0);
  test::destroy(rmw_, b, pub);
  test::destroy(rmw_, a, sub);
}

TEST_F(RmwBatonQosClock, automatic_liveliness_and_a_long_lease_are_not_lost) {
  RmwContext c(rmw_, "clock_alive");
  auto* automatic = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                           test::test_qos(true, 10));
  auto* manual = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                        manual_liveliness(LONG));
  ASSERT_TRUE(automatic && manual) << test::take_error(rmw_);
  for (auto* pub : {automatic, manual}) {
    rmw_event_t lost = publisher_event(pub, RMW_EVENT_LIVELINESS_LOST);
    EXPECT_FALSE(test::wait_for_event(rmw_, c, &lost, 0));
    auto s = take<rmw_liveliness_lost_status_t>(&lost);
    EXPECT_EQ(s.total_count, 0);
    EXPECT_EQ(s.total_count_change, 0);
  }
  test::destroy(rmw_, c, manual);
  test::destroy(rmw_, c, automatic);
}

}  // namespace
}  // namespace baton::ros2
#endif  // BATON_HAVE_RMW_HEADERS
