// rmw_baton_cpp's QoS events (src/ros2/rmw/rmw_event.cpp), called through dlopen as rcl would:
// which event types exist, matched counts as endpoints of another context come and go (rmw_wait
// wakes for them), and message-lost counts of a best-effort subscription lapped by its publisher.
// rclpy's event callbacks on rmw_baton_cpp: RmwBatonEventsRclpy in rmw_baton_rclpy_event_test.cpp.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "ros2_test_env.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using test::Rmw;
using test::RmwContext;

class RmwBatonEvent : public test::RmwLocalTest {
 protected:
  // rmw_wait on one event, as rcl does (the array holds the rmw_event_t*): true if ready.
  bool wait_event(RmwContext& c, rmw_event_t* event, uint64_t timeout_s) {
    return test::wait_for_event(rmw_, c, event, timeout_s);
  }
  rmw_matched_status_t take_matched(rmw_event_t* event) {
    RMW_FN(rmw_, rmw_take_event);
    rmw_matched_status_t s{};
    bool taken = false;
    EXPECT_EQ(rmw_take_event(event, &s, &taken), RMW_RET_OK) << test::take_error(rmw_);
    EXPECT_TRUE(taken);
    return s;
  }
};

TEST_F(RmwBatonEvent, incompatible_type_events_are_refused_with_the_reason) {
  RmwContext c(rmw_, "event_types");
  RMW_FN(rmw_, rmw_publisher_event_init);
  RMW_FN(rmw_, rmw_subscription_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  const rmw_qos_profile_t qos = test::test_qos(true, 10);
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(), qos);
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(), qos);
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  rmw_event_t e = rmw_get_zero_initialized_event();
  EXPECT_EQ(rmw_subscription_event_init(&e, sub, RMW_EVENT_SUBSCRIPTION_INCOMPATIBLE_TYPE),
            RMW_RET_UNSUPPORTED);
  EXPECT_NE(test::take_error(rmw_).find("a type mismatch is refused"), std::string::npos);
  EXPECT_EQ(e.implementation_identifier, nullptr);  // left zero-initialized
  EXPECT_EQ(rmw_publisher_event_init(&e, pub, RMW_EVENT_PUBLISHER_INCOMPATIBLE_TYPE),
            RMW_RET_UNSUPPORTED);
  test::take_error(rmw_);
  // A publisher event on a subscription (and the reverse) is a caller error.
  EXPECT_EQ(rmw_subscription_event_init(&e, sub, RMW_EVENT_PUBLICATION_MATCHED),
            RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_publisher_event_init(&e, pub, RMW_EVENT_MESSAGE_LOST), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  // Deadline and liveliness events, and which types are supported: RmwBatonQosClock.*.
  EXPECT_EQ(rmw_destroy_subscription(c.node, sub), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
}

TEST_F(RmwBatonEvent, publication_matched_counts_subscriptions_of_another_context) {
  RmwContext a(rmw_, "event_pub");
  RMW_FN(rmw_, rmw_publisher_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  auto* pub = test::create_publisher(rmw_, a, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  rmw_event_t matched = rmw_get_zero_initialized_event();
  ASSERT_EQ(rmw_publisher_event_init(&matched, pub, RMW_EVENT_PUBLICATION_MATCHED), RMW_RET_OK)
      << test::take_error(rmw_);
  EXPECT_FALSE(wait_event(a, &matched, 0));  // nobody yet
  {
    RmwContext b(rmw_, "event_sub");
    // Made while rmw_wait sleeps: the wait notices (it re-checks events every 100 ms).
    rmw_subscription_t* sub = nullptr;
    std::thread late([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      sub = test::create_subscription(rmw_, b, point_.type_support(), topic_.c_str(),
                                      test::test_qos(true, 10));
    });
    const bool woke = wait_event(a, &matched, 30);
    late.join();
    ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
    ASSERT_TRUE(woke);
    auto s = take_matched(&matched);
    EXPECT_EQ(s.total_count, 1u);
    EXPECT_EQ(s.total_count_change, 1u);
    EXPECT_EQ(s.current_count, 1u);
    EXPECT_EQ(s.current_count_change, 1);
    EXPECT_FALSE(wait_event(a, &matched, 0));  // reported: not ready again until a change
    EXPECT_EQ(rmw_destroy_subscription(b.node, sub), RMW_RET_OK);
    ASSERT_TRUE(wait_event(a, &matched, 30));
    s = take_matched(&matched);
    EXPECT_EQ(s.total_count, 1u);
    EXPECT_EQ(s.total_count_change, 0u);
    EXPECT_EQ(s.current_count, 0u);
    EXPECT_EQ(s.current_count_change, -1);
    // One that comes and goes between two looks is still counted as a match.
    auto* brief = test::create_subscription(rmw_, b, point_.type_support(), topic_.c_str(),
                                            test::test_qos(true, 10));
    ASSERT_NE(brief, nullptr);
    EXPECT_EQ(rmw_destroy_subscription(b.node, brief), RMW_RET_OK);
  }
  ASSERT_TRUE(wait_event(a, &matched, 30));
  auto s = take_matched(&matched);
  EXPECT_EQ(s.total_count, 2u);
  EXPECT_EQ(s.total_count_change, 1u);
  EXPECT_EQ(s.current_count, 0u);
  EXPECT_EQ(s.current_count_change, 0);
  EXPECT_EQ(rmw_destroy_publisher(a.node, pub), RMW_RET_OK);
}

TEST_F(RmwBatonEvent, subscription_matched_counts_publishers_already_there_and_new) {
  RmwContext a(rmw_, "event_sub2");
  RmwContext b(rmw_, "event_pub2");
  RMW_FN(rmw_, rmw_subscription_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  auto* first = test::create_publisher(rmw_, b, point_.type_support(), topic_.c_str(),
                                       test::test_qos(true, 10));
  auto* sub = test::create_subscription(rmw_, a, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_TRUE(first && sub) << test::take_error(rmw_);
  rmw_event_t matched = rmw_get_zero_initialized_event();
  ASSERT_EQ(rmw_subscription_event_init(&matched, sub, RMW_EVENT_SUBSCRIPTION_MATCHED), RMW_RET_OK);
  // Matched before the event existed: reported at once, as a DDS status counts from creation.
  ASSERT_TRUE(wait_event(a, &matched, 0));
  auto s = take_matched(&matched);
  EXPECT_EQ(s.total_count, 1u);
  EXPECT_EQ(s.current_count, 1u);
  EXPECT_EQ(s.current_count_change, 1);
  auto* second = test::create_publisher(rmw_, b, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 3));
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(wait_event(a, &matched, 30));
  s = take_matched(&matched);
  EXPECT_EQ(s.total_count, 2u);
  EXPECT_EQ(s.total_count_change, 1u);
  EXPECT_EQ(s.current_count, 2u);
  EXPECT_EQ(s.current_count_change, 1);
  EXPECT_EQ(rmw_destroy_publisher(b.node, second), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_publisher(b.node, first), RMW_RET_OK);
  ASSERT_TRUE(wait_event(a, &matched, 30));
  s = take_matched(&matched);
  EXPECT_EQ(s.total_count, 2u);
  EXPECT_EQ(s.current_count, 0u);
  EXPECT_EQ(s.current_count_change, -2);
  EXPECT_EQ(rmw_destroy_subscription(a.node, sub), RMW_RET_OK);
}

TEST_F(RmwBatonEvent, message_lost_counts_what_a_best_effort_subscription_was_lapped_on) {
  RmwContext c(rmw_, "event_lost");
  RMW_FN(rmw_, rmw_subscription_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_take_event);
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_take);
  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  constexpr size_t DEPTH = 5;
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                     test::test_qos(false, DEPTH));
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        test::test_qos(false, DEPTH));
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  rmw_event_t lost = rmw_get_zero_initialized_event();
  ASSERT_EQ(rmw_subscription_event_init(&lost, sub, RMW_EVENT_MESSAGE_LOST), RMW_RET_OK);
  EXPECT_FALSE(wait_event(c, &lost, 0));
  // 20 published before the subscription reads: it keeps the last DEPTH, the rest are lost.
  constexpr int N = 20;
  for (int i = 0; i < N; ++i) {
    const double p[3] = {double(i), 0, 0};
    ASSERT_EQ(rmw_publish(pub, p, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  }
  int received = 0;
  double last = -1;
  for (bool taken = true; taken;) {
    double p[3] = {};
    ASSERT_EQ(rmw_take(sub, p, &taken, nullptr), RMW_RET_OK);
    if (taken) {
      ++received;
      last = p[0];
    }
  }
  EXPECT_EQ(received, int(DEPTH));
  EXPECT_EQ(last, N - 1);
  ASSERT_TRUE(wait_event(c, &lost, 0));
  rmw_message_lost_status_t s{};
  bool taken = false;
  ASSERT_EQ(rmw_take_event(&lost, &s, &taken), RMW_RET_OK);
  ASSERT_TRUE(taken);
  EXPECT_EQ(s.total_count, size_t(N) - DEPTH);
  EXPECT_EQ(s.total_count_change, size_t(N) - DEPTH);
  EXPECT_EQ(size_t(received) + s.total_count, size_t(N));  // every message delivered or counted
  // Read as they come: nothing more is lost, and the event stays quiet.
  const double p[3] = {1, 2, 3};
  ASSERT_EQ(rmw_publish(pub, p, nullptr), RMW_RET_OK);
  double q[3] = {};
  ASSERT_EQ(rmw_take(sub, q, &taken, nullptr), RMW_RET_OK);
  EXPECT_TRUE(taken);
  EXPECT_FALSE(wait_event(c, &lost, 0));
  EXPECT_EQ(rmw_destroy_subscription(c.node, sub), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
