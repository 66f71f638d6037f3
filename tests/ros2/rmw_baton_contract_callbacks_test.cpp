// The rmw contract of listener callbacks, as rmw/rmw.h (rmw_subscription_set_on_new_message_
// callback, rmw_service_set_on_new_request_callback, rmw_client_set_on_new_response_callback) and
// rmw/event.h (rmw_event_set_callback) document it, which rclcpp's events executor relies on: a
// callback is called, from a thread of the implementation, when new data or a new event is
// there, including what came before it was set; a null callback clears it. Called through
// dlopen, as rcl calls them; shared memory only. Every wait below is on a callback's count.
#include <gtest/gtest.h>
#include <rmw/event.h>
#include <rmw/events_statuses/events_statuses.h>
#include <rmw/rmw.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;

// What a callback was told: how many calls, and the events they counted.
struct Told {
  std::mutex mutex;
  std::condition_variable cv;
  size_t calls = 0;
  size_t events = 0;

  static void callback(const void* user_data, size_t number_of_events) {
    auto* t = static_cast<Told*>(const_cast<void*>(user_data));
    std::lock_guard<std::mutex> lock(t->mutex);
    ++t->calls;
    t->events += number_of_events;
    t->cv.notify_all();
  }
  // True once at least `n` calls were made (30 s: a hang, not a timing bound).
  bool wait_calls(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return calls >= n; });
  }
  size_t calls_now() {
    std::lock_guard<std::mutex> lock(mutex);
    return calls;
  }
};

class RmwBatonContractCallbacks : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    a_ = std::make_unique<RmwContext>(rmw_, "callbacks_a");
    b_ = std::make_unique<RmwContext>(rmw_, "callbacks_b");
  }
  void TearDown() override {
    b_.reset();
    a_.reset();
    RmwLocalTest::TearDown();
  }
  rmw_subscription_t* subscription(RmwContext& c) {
    return test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  }
  rmw_publisher_t* publisher(RmwContext& c) {
    return test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                  test::test_qos(true, 10));
  }
  bool take_one(const rmw_subscription_t* sub) {
    RMW_FN(rmw_, rmw_take);
    void* msg = point_.create();
    bool taken = false;
    EXPECT_EQ(rmw_take(sub, msg, &taken, nullptr), RMW_RET_OK);
    point_.destroy(msg);
    return taken;
  }

  std::unique_ptr<RmwContext> a_, b_;
};

TEST_F(RmwBatonContractCallbacks, event_callback_is_called_for_each_match_change) {
  RMW_FN(rmw_, rmw_publisher_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_event_set_callback);
  auto* pub = publisher(*a_);
  ASSERT_NE(pub, nullptr);
  rmw_event_t matched = rmw_get_zero_initialized_event();
  ASSERT_EQ(rmw_publisher_event_init(&matched, pub, RMW_EVENT_PUBLICATION_MATCHED), RMW_RET_OK);
  Told told;
  ASSERT_EQ(rmw_event_set_callback(&matched, &Told::callback, &told), RMW_RET_OK);
  EXPECT_EQ(told.calls_now(), 0u);  // nothing happened yet
  auto* first = subscription(*b_);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(told.wait_calls(1));
  auto* second = subscription(*b_);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(told.wait_calls(2));  // told again, though the first change was not taken
  test::destroy(rmw_, *b_, first);
  ASSERT_TRUE(told.wait_calls(3));
  test::destroy(rmw_, *b_, second);
  ASSERT_TRUE(told.wait_calls(4));
  auto s = test::take_event<rmw_matched_status_t>(rmw_, &matched);
  EXPECT_EQ(s.total_count, 2u);
  EXPECT_EQ(s.current_count, 0u);
  test::destroy(rmw_, *a_, pub);  // with its callback set: dropped with it
}

TEST_F(RmwBatonContractCallbacks, event_callback_set_after_an_untaken_change_is_called_at_once) {
  RMW_FN(rmw_, rmw_subscription_event_init);
  RMW_FN(rmw_, rmw_get_zero_initialized_event);
  RMW_FN(rmw_, rmw_event_set_callback);
  auto* pub = publisher(*a_);
  auto* sub = subscription(*b_);
  ASSERT_TRUE(pub && sub);
  rmw_event_t matched = rmw_get_zero_initialized_event();
  ASSERT_EQ(rmw_subscription_event_init(&matched, sub, RMW_EVENT_SUBSCRIPTION_MATCHED), RMW_RET_OK);
  Told told;
  ASSERT_EQ(rmw_event_set_callback(&matched, &Told::callback, &told), RMW_RET_OK);
  EXPECT_EQ(told.calls_now(), 1u);  // the match before the callback existed
  ASSERT_EQ(rmw_event_set_callback(&matched, nullptr, nullptr), RMW_RET_OK);  // cleared
  test::destroy(rmw_, *b_, sub);
  test::destroy(rmw_, *a_, pub);
}

TEST_F(RmwBatonContractCallbacks,
       message_callback_is_called_again_after_each_take_while_data_remains) {
  RMW_FN(rmw_, rmw_subscription_set_on_new_message_callback);
  RMW_FN(rmw_, rmw_publish);
  auto* sub = subscription(*a_);
  auto* pub = publisher(*b_);
  ASSERT_TRUE(sub && pub);
  void* msg = point_.create();
  EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK);  // before the callback is set
  Told told;
  ASSERT_EQ(rmw_subscription_set_on_new_message_callback(sub, &Told::callback, &told), RMW_RET_OK);
  EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK);
  EXPECT_EQ(rmw_publish(pub, msg, nullptr), RMW_RET_OK);
  point_.destroy(msg);
  // An executor that takes one message per call: each take while data remains brings a call.
  for (size_t taken = 0; taken < 3; ++taken) {
    ASSERT_TRUE(told.wait_calls(taken + 1)) << "after " << taken << " takes";
    EXPECT_TRUE(take_one(sub));
  }
  EXPECT_FALSE(take_one(sub));  // three messages, three calls
  ASSERT_EQ(rmw_subscription_set_on_new_message_callback(sub, nullptr, nullptr), RMW_RET_OK);
  test::destroy(rmw_, *b_, pub);
  test::destroy(rmw_, *a_, sub);
}

TEST_F(RmwBatonContractCallbacks, request_and_response_callbacks_are_called) {
  RMW_FN(rmw_, rmw_create_service);
  RMW_FN(rmw_, rmw_create_client);
  RMW_FN(rmw_, rmw_destroy_service);
  RMW_FN(rmw_, rmw_destroy_client);
  RMW_FN(rmw_, rmw_service_set_on_new_request_callback);
  RMW_FN(rmw_, rmw_client_set_on_new_response_callback);
  RMW_FN(rmw_, rmw_send_request);
  RMW_FN(rmw_, rmw_take_request);
  RMW_FN(rmw_, rmw_send_response);
  RMW_FN(rmw_, rmw_take_response);
  const rosidl_service_type_support_t* ts = test::get_parameters_type_support();
  ASSERT_NE(ts, nullptr);
  const std::string name = topic_ + "_service";
  rmw_service_t* srv =
      rmw_create_service(a_->node, ts, name.c_str(), &rmw_qos_profile_services_default);
  rmw_client_t* cli =
      rmw_create_client(b_->node, ts, name.c_str(), &rmw_qos_profile_services_default);
  ASSERT_TRUE(srv && cli) << test::take_error(rmw_);
  Told requests, responses;
  ASSERT_EQ(rmw_service_set_on_new_request_callback(srv, &Told::callback, &requests), RMW_RET_OK);
  ASSERT_EQ(rmw_client_set_on_new_response_callback(cli, &Told::callback, &responses), RMW_RET_OK);
  // GetParameters' request and response are one sequence each: zero bytes are empty ones.
  alignas(16) unsigned char request[64] = {}, response[64] = {};
  int64_t sequence = 0;
  ASSERT_EQ(rmw_send_request(cli, request, &sequence), RMW_RET_OK);
  ASSERT_TRUE(requests.wait_calls(1));
  rmw_service_info_t info{};
  bool taken = false;
  ASSERT_EQ(rmw_take_request(srv, &info, request, &taken), RMW_RET_OK);
  ASSERT_TRUE(taken);
  ASSERT_EQ(rmw_send_response(srv, &info.request_id, response), RMW_RET_OK);
  ASSERT_TRUE(responses.wait_calls(1));
  ASSERT_EQ(rmw_take_response(cli, &info, response, &taken), RMW_RET_OK);
  EXPECT_TRUE(taken);
  EXPECT_EQ(info.request_id.sequence_number, sequence);
  EXPECT_EQ(requests.calls_now(), 1u);  // one request, taken: not told again
  EXPECT_EQ(rmw_destroy_client(b_->node, cli), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_service(a_->node, srv), RMW_RET_OK);
}

}  // namespace
}  // namespace baton::ros2
