// The rmw contract of QoS compatibility between a publisher and a subscription, as
// rmw/qos_profiles.h ("request vs offered") and rmw/event.h document it: a pair whose offered
// QoS falls short of the requested one (best effort offered to a reliable request, volatile to
// transient local) is not matched — the matched counts and events leave it out and no message
// passes — and each side's incompatible-QoS event reports it with the policy. Events that cannot
// happen under an endpoint's QoS (deadline missed with no deadline, liveliness lost under
// automatic liveliness) are supported and never fire; liveliness changed counts the alive (i.e.
// matched) publishers. Called through dlopen, as rcl calls them; shared memory only.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>
#include <rmw/qos_profiles.h>
#include <rmw/rmw.h>

#include <memory>
#include <string>
#include <thread>

#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;

class RmwBatonContractQos : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ctx_ = std::make_unique<RmwContext>(rmw_, "qos_node");
  }
  void TearDown() override {
    ctx_.reset();
    RmwLocalTest::TearDown();
  }

  size_t subscriptions_of(const rmw_publisher_t* pub) {
    RMW_FN(rmw_, rmw_publisher_count_matched_subscriptions);
    size_t n = 99;
    EXPECT_EQ(rmw_publisher_count_matched_subscriptions(pub, &n), RMW_RET_OK);
    return n;
  }
  size_t publishers_of(const rmw_subscription_t* sub) {
    RMW_FN(rmw_, rmw_subscription_count_matched_publishers);
    size_t n = 99;
    EXPECT_EQ(rmw_subscription_count_matched_publishers(sub, &n), RMW_RET_OK);
    return n;
  }
  // Publishes one Point with x = `x`.
  void publish(const rmw_publisher_t* pub, double x) {
    RMW_FN(rmw_, rmw_publish);
    void* msg = point_.create();
    *static_cast<double*>(msg) = x;  // geometry_msgs/Point: x is the first member
    EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK);
    point_.destroy(msg);
  }
  // Takes one Point: its x, or -1 when nothing was taken.
  double take(const rmw_subscription_t* sub) {
    RMW_FN(rmw_, rmw_take);
    void* msg = point_.create();
    bool taken = false;
    EXPECT_EQ(rmw_take(sub, msg, &taken, nullptr), RMW_RET_OK);
    const double x = taken ? *static_cast<double*>(msg) : -1;
    point_.destroy(msg);
    return x;
  }
  rmw_event_t event_of(const rmw_publisher_t* pub, rmw_event_type_t type) {
    RMW_FN(rmw_, rmw_publisher_event_init);
    RMW_FN(rmw_, rmw_get_zero_initialized_event);
    rmw_event_t e = rmw_get_zero_initialized_event();
    EXPECT_EQ(rmw_publisher_event_init(&e, pub, type), RMW_RET_OK) << test::take_error(rmw_);
    return e;
  }
  rmw_event_t event_of(const rmw_subscription_t* sub, rmw_event_type_t type) {
    RMW_FN(rmw_, rmw_subscription_event_init);
    RMW_FN(rmw_, rmw_get_zero_initialized_event);
    rmw_event_t e = rmw_get_zero_initialized_event();
    EXPECT_EQ(rmw_subscription_event_init(&e, sub, type), RMW_RET_OK) << test::take_error(rmw_);
    return e;
  }

  std::unique_ptr<RmwContext> ctx_;
};

TEST_F(RmwBatonContractQos, best_effort_publisher_and_reliable_subscription_do_not_match) {
  RmwContext other(rmw_, "qos_other");  // another context: the peer is found in the graph
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     test::test_qos(false, 10));
  auto* reliable = test::create_subscription(rmw_, other, point_.type_support(), topic_.c_str(),
                                             test::test_qos(true, 10));
  auto* best_effort = test::create_subscription(rmw_, other, point_.type_support(), topic_.c_str(),
                                                test::test_qos(false, 10));
  ASSERT_TRUE(pub && reliable && best_effort) << test::take_error(rmw_);
  EXPECT_EQ(subscriptions_of(pub), 1u);  // the best-effort one only
  EXPECT_EQ(publishers_of(reliable), 0u);
  EXPECT_EQ(publishers_of(best_effort), 1u);
  publish(pub, 7);
  ASSERT_TRUE(test::wait_for_subscription(rmw_, other, best_effort, 30));
  EXPECT_EQ(take(best_effort), 7);
  EXPECT_EQ(take(reliable), -1);  // the message was published; the incompatible pair got none

  // A compatible publisher on the same topic reaches the reliable subscription.
  auto* reliable_pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                              test::test_qos(true, 10));
  ASSERT_NE(reliable_pub, nullptr);
  EXPECT_EQ(publishers_of(reliable), 1u);
  publish(reliable_pub, 8);
  ASSERT_TRUE(test::wait_for_subscription(rmw_, other, reliable, 30));
  EXPECT_EQ(take(reliable), 8);
  test::destroy(rmw_, *ctx_, reliable_pub);
  test::destroy(rmw_, other, best_effort);
  test::destroy(rmw_, other, reliable);
  test::destroy(rmw_, *ctx_, pub);
}

TEST_F(RmwBatonContractQos, volatile_publisher_and_transient_local_subscription_do_not_match) {
  rmw_qos_profile_t latched = test::test_qos(true, 10);
  latched.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* sub =
      test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(), latched);
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  EXPECT_EQ(subscriptions_of(pub), 0u);
  EXPECT_EQ(publishers_of(sub), 0u);
  // The other way round is compatible: more offered than requested.
  auto* latched_pub =
      test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(), latched);
  auto* volatile_sub = test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                                 test::test_qos(true, 10));
  ASSERT_TRUE(latched_pub && volatile_sub);
  EXPECT_EQ(subscriptions_of(latched_pub), 2u);
  EXPECT_EQ(publishers_of(volatile_sub), 2u);
  EXPECT_EQ(publishers_of(sub), 1u);
  test::destroy(rmw_, *ctx_, volatile_sub);
  test::destroy(rmw_, *ctx_, latched_pub);
  test::destroy(rmw_, *ctx_, sub);
  test::destroy(rmw_, *ctx_, pub);
}

TEST_F(RmwBatonContractQos, deadline_and_liveliness_never_make_a_shared_memory_pair_incompatible) {
  // Not known of the peers (baton's graph lists reliability and durability only): an endpoint
  // that asks for a deadline or manual liveliness still matches, rather than matching nobody.
  rmw_qos_profile_t strict = test::test_qos(true, 10);
  strict.deadline = {1, 0};
  strict.liveliness = RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
  strict.liveliness_lease_duration = {1, 0};
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(), strict);
  auto* sub = test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(), strict);
  auto* plain_pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                           test::test_qos(true, 10));
  ASSERT_TRUE(pub && sub && plain_pub) << test::take_error(rmw_);
  EXPECT_EQ(publishers_of(sub), 2u);
  EXPECT_EQ(subscriptions_of(pub), 1u);
  EXPECT_EQ(subscriptions_of(plain_pub), 1u);
  test::destroy(rmw_, *ctx_, plain_pub);
  test::destroy(rmw_, *ctx_, sub);
  test::destroy(rmw_, *ctx_, pub);
}

TEST_F(RmwBatonContractQos, incompatible_qos_events_report_the_peer_and_the_policy_on_both_sides) {
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     test::test_qos(false, 10));
  ASSERT_NE(pub, nullptr);
  rmw_event_t offered = event_of(pub, RMW_EVENT_OFFERED_QOS_INCOMPATIBLE);
  rmw_event_t matched = event_of(pub, RMW_EVENT_PUBLICATION_MATCHED);
  EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, &offered, 0));  // no peer yet
  auto* sub = test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_NE(sub, nullptr);
  rmw_event_t requested = event_of(sub, RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE);

  ASSERT_TRUE(test::wait_for_event(rmw_, *ctx_, &offered, 30));
  auto o = test::take_event<rmw_offered_qos_incompatible_event_status_t>(rmw_, &offered);
  EXPECT_EQ(o.total_count, 1);
  EXPECT_EQ(o.total_count_change, 1);
  EXPECT_EQ(o.last_policy_kind, RMW_QOS_POLICY_RELIABILITY);
  EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, &offered, 0));  // reported: no change since
  ASSERT_TRUE(test::wait_for_event(rmw_, *ctx_, &requested, 30));
  auto r = test::take_event<rmw_requested_qos_incompatible_event_status_t>(rmw_, &requested);
  EXPECT_EQ(r.total_count, 1);
  EXPECT_EQ(r.total_count_change, 1);
  EXPECT_EQ(r.last_policy_kind, RMW_QOS_POLICY_RELIABILITY);
  // Not a match: the matched event has nothing to report.
  EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, &matched, 0));

  // A second incompatible subscription, on durability this time.
  rmw_qos_profile_t latched = test::test_qos(false, 10);
  latched.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  auto* latched_sub =
      test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(), latched);
  ASSERT_NE(latched_sub, nullptr);
  ASSERT_TRUE(test::wait_for_event(rmw_, *ctx_, &offered, 30));
  o = test::take_event<rmw_offered_qos_incompatible_event_status_t>(rmw_, &offered);
  EXPECT_EQ(o.total_count, 2);
  EXPECT_EQ(o.total_count_change, 1);
  EXPECT_EQ(o.last_policy_kind, RMW_QOS_POLICY_DURABILITY);
  EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, &matched, 0));
  test::destroy(rmw_, *ctx_, latched_sub);
  test::destroy(rmw_, *ctx_, sub);
  test::destroy(rmw_, *ctx_, pub);
}

TEST_F(RmwBatonContractQos, a_wait_on_an_incompatible_qos_event_wakes_for_a_peer_made_meanwhile) {
  // The event has no wake-up word of its own and is not polled: a graph change wakes the wait.
  RmwContext other(rmw_, "qos_late");
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     test::test_qos(false, 10));
  ASSERT_NE(pub, nullptr);
  rmw_event_t offered = event_of(pub, RMW_EVENT_OFFERED_QOS_INCOMPATIBLE);
  rmw_subscription_t* sub = nullptr;
  std::thread late([&] {
    sub = test::create_subscription(rmw_, other, point_.type_support(), topic_.c_str(),
                                    test::test_qos(true, 10));
  });
  const bool woke = test::wait_for_event(rmw_, *ctx_, &offered, 30);
  late.join();
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(woke);
  test::destroy(rmw_, other, sub);
  test::destroy(rmw_, *ctx_, pub);
}

TEST_F(RmwBatonContractQos, liveliness_changed_counts_the_alive_publishers) {
  auto* sub = test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_NE(sub, nullptr);
  rmw_event_t liveliness = event_of(sub, RMW_EVENT_LIVELINESS_CHANGED);
  EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, &liveliness, 0));
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  ASSERT_NE(pub, nullptr);
  ASSERT_TRUE(test::wait_for_event(rmw_, *ctx_, &liveliness, 30));
  auto s = test::take_event<rmw_liveliness_changed_status_t>(rmw_, &liveliness);
  EXPECT_EQ(s.alive_count, 1);
  EXPECT_EQ(s.alive_count_change, 1);
  EXPECT_EQ(s.not_alive_count, 0);
  test::destroy(rmw_, *ctx_, pub);
  ASSERT_TRUE(test::wait_for_event(rmw_, *ctx_, &liveliness, 30));
  s = test::take_event<rmw_liveliness_changed_status_t>(rmw_, &liveliness);
  EXPECT_EQ(s.alive_count, 0);
  EXPECT_EQ(s.alive_count_change, -1);
  test::destroy(rmw_, *ctx_, sub);
}

TEST_F(RmwBatonContractQos,
       deadline_and_liveliness_lost_events_never_fire_when_they_cannot_happen) {
  // Default profile: no deadline, automatic liveliness.
  auto* pub = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                     rmw_qos_profile_default);
  auto* sub = test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(),
                                        rmw_qos_profile_default);
  ASSERT_TRUE(pub && sub);
  rmw_event_t offered = event_of(pub, RMW_EVENT_OFFERED_DEADLINE_MISSED);
  rmw_event_t requested = event_of(sub, RMW_EVENT_REQUESTED_DEADLINE_MISSED);
  rmw_event_t lost = event_of(pub, RMW_EVENT_LIVELINESS_LOST);
  publish(pub, 1);
  for (rmw_event_t* e : {&offered, &requested, &lost})
    EXPECT_FALSE(test::wait_for_event(rmw_, *ctx_, e, 0));
  auto o = test::take_event<rmw_offered_deadline_missed_status_t>(rmw_, &offered);
  EXPECT_EQ(o.total_count, 0);
  auto r = test::take_event<rmw_requested_deadline_missed_status_t>(rmw_, &requested);
  EXPECT_EQ(r.total_count, 0);
  auto l = test::take_event<rmw_liveliness_lost_status_t>(rmw_, &lost);
  EXPECT_EQ(l.total_count, 0);
  test::destroy(rmw_, *ctx_, sub);
  test::destroy(rmw_, *ctx_, pub);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
