// rmw_baton_cpp's wait set and guard conditions, called the way rcl calls them (rclpy never
// waits on a graph guard condition, so its graph test cannot show that one fires). The library
// is dlopen'ed and its functions looked up by name, as rmw_implementation does.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>

#include <chrono>
#include <future>
#include <thread>
#include <utility>

#include "rmw_dlopen.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

using test::Rmw;
using ContextWithNode = test::RmwContext;

// Waits on one guard condition as rcl does (the array holds the handle's `data`); true if it
// was ready.
bool wait_on(const Rmw& rmw, rmw_wait_set_t* ws, const rmw_guard_condition_t* gc,
             rmw_time_t timeout, rmw_ret_t* ret) {
  RMW_FN(rmw, rmw_wait);
  void* entries[1] = {gc->data};
  rmw_guard_conditions_t gcs{1, entries};
  *ret = rmw_wait(nullptr, &gcs, nullptr, nullptr, nullptr, ws, &timeout);
  return entries[0] != nullptr;
}

class RmwBatonWait : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();  // the library's own dependencies live there
    if (std::string_view(BATON_RMW_LIB).empty()) GTEST_SKIP() << "rmw_baton_cpp was not built";
    ASSERT_TRUE(rmw_.loaded()) << ::dlerror();
  }
  Rmw rmw_;
};

TEST_F(RmwBatonWait, wait_on_null_wait_set_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_wait);
  rmw_time_t zero{0, 0};
  EXPECT_EQ(rmw_wait(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &zero),
            RMW_RET_INVALID_ARGUMENT);
}

TEST_F(RmwBatonWait, guard_condition_triggered_from_another_thread_wakes_the_wait) {
  ContextWithNode a(rmw_, "waiter");
  RMW_FN(rmw_, rmw_create_guard_condition);
  RMW_FN(rmw_, rmw_trigger_guard_condition);
  RMW_FN(rmw_, rmw_destroy_guard_condition);
  RMW_FN(rmw_, rmw_create_wait_set);
  RMW_FN(rmw_, rmw_destroy_wait_set);
  rmw_guard_condition_t* gc = rmw_create_guard_condition(&a.context);
  ASSERT_NE(gc, nullptr);
  rmw_wait_set_t* ws = rmw_create_wait_set(&a.context, 1);
  ASSERT_NE(ws, nullptr);
  rmw_ret_t ret = RMW_RET_ERROR;
  // Not triggered: a zero timeout reports TIMEOUT and nulls the entry.
  EXPECT_FALSE(wait_on(rmw_, ws, gc, {0, 0}, &ret));
  EXPECT_EQ(ret, RMW_RET_TIMEOUT);
  std::thread trigger([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(rmw_trigger_guard_condition(gc), RMW_RET_OK);
  });
  EXPECT_TRUE(wait_on(rmw_, ws, gc, {30, 0}, &ret));
  EXPECT_EQ(ret, RMW_RET_OK);
  trigger.join();
  // The trigger was consumed by the wait that reported it.
  EXPECT_FALSE(wait_on(rmw_, ws, gc, {0, 0}, &ret));
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_guard_condition(gc), RMW_RET_OK);
}

// What rclpy's signal thread does on SIGTERM (issue 22 item 4): trigger the executor's guard
// condition, then rcl_shutdown. The executor took the trigger and waits again, with no timeout;
// the shutdown alone must end that wait (nothing ready: TIMEOUT), and no later wait may block.
TEST_F(RmwBatonWait, shutdown_ends_a_wait_without_timeout_and_later_waits_do_not_block) {
  ContextWithNode a(rmw_, "stopping");
  RMW_FN(rmw_, rmw_create_guard_condition);
  RMW_FN(rmw_, rmw_trigger_guard_condition);
  RMW_FN(rmw_, rmw_destroy_guard_condition);
  RMW_FN(rmw_, rmw_create_wait_set);
  RMW_FN(rmw_, rmw_destroy_wait_set);
  RMW_FN(rmw_, rmw_wait);
  RMW_FN(rmw_, rmw_shutdown);
  rmw_guard_condition_t* gc = rmw_create_guard_condition(&a.context);
  ASSERT_NE(gc, nullptr);
  rmw_wait_set_t* ws = rmw_create_wait_set(&a.context, 1);
  ASSERT_NE(ws, nullptr);
  rmw_ret_t ret = RMW_RET_ERROR;
  EXPECT_EQ(rmw_trigger_guard_condition(gc), RMW_RET_OK);
  EXPECT_TRUE(wait_on(rmw_, ws, gc, {0, 0}, &ret));  // the executor takes the trigger
  auto wait_forever = [&] {
    void* entries[1] = {gc->data};
    rmw_guard_conditions_t gcs{1, entries};
    const rmw_ret_t r = rmw_wait(nullptr, &gcs, nullptr, nullptr, nullptr, ws, nullptr);
    return std::make_pair(r, entries[0]);
  };
  auto waiting = std::async(std::launch::async, wait_forever);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // most likely asleep by now
  EXPECT_EQ(rmw_shutdown(&a.context), RMW_RET_OK);
  if (waiting.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
    ADD_FAILURE() << "rmw_shutdown did not end the wait";
    EXPECT_EQ(rmw_trigger_guard_condition(gc), RMW_RET_OK);  // end it, to finish the test
  }
  auto [r, entry] = waiting.get();
  EXPECT_EQ(r, RMW_RET_TIMEOUT);  // the shutdown is no rcl entity: nothing is reported ready
  EXPECT_EQ(entry, nullptr);
  // After the shutdown a wait only looks: it returns at once, still reporting a trigger.
  auto after = std::async(std::launch::async, wait_forever);
  if (after.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
    ADD_FAILURE() << "a wait after rmw_shutdown blocked";
    EXPECT_EQ(rmw_trigger_guard_condition(gc), RMW_RET_OK);
  }
  EXPECT_EQ(after.get().first, RMW_RET_TIMEOUT);
  EXPECT_EQ(rmw_trigger_guard_condition(gc), RMW_RET_OK);
  EXPECT_TRUE(wait_on(rmw_, ws, gc, {30, 0}, &ret));
  EXPECT_EQ(ret, RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_guard_condition(gc), RMW_RET_OK);
}  // ~ContextWithNode shuts down again: a no-op

TEST_F(RmwBatonWait, graph_guard_condition_fires_when_another_context_adds_a_node) {
  ContextWithNode a(rmw_, "observer");
  RMW_FN(rmw_, rmw_node_get_graph_guard_condition);
  RMW_FN(rmw_, rmw_create_wait_set);
  RMW_FN(rmw_, rmw_destroy_wait_set);
  const rmw_guard_condition_t* graph = rmw_node_get_graph_guard_condition(a.node);
  ASSERT_NE(graph, nullptr);
  rmw_wait_set_t* ws = rmw_create_wait_set(&a.context, 1);
  ASSERT_NE(ws, nullptr);
  rmw_ret_t ret = RMW_RET_ERROR;
  // Drain what our own node's creation raised (the watcher polls every 100 ms: allow a few).
  for (int quiet = 0; quiet < 5;)
    quiet = wait_on(rmw_, ws, graph, {0, 300'000'000}, &ret) ? 0 : quiet + 1;
  {
    // Another context (its own baton::Context, as another process would have) adds a node.
    ContextWithNode b(rmw_, "newcomer");
    EXPECT_TRUE(wait_on(rmw_, ws, graph, {30, 0}, &ret)) << "graph change not reported";
    EXPECT_EQ(ret, RMW_RET_OK);
  }
  EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
