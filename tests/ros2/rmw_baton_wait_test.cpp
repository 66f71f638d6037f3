// rmw_baton_cpp's wait set and guard conditions, called the way rcl calls them (rclpy never
// waits on a graph guard condition, so its graph test cannot show that one fires). The library
// is dlopen'ed and its functions looked up by name, as rmw_implementation does.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <utility>

#include "rmw_dlopen.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"

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

// One guard condition and a wait set for it, in `context`; destroyed (and checked) on exit.
struct GuardWaitSet {
  const Rmw& rmw;
  rmw_guard_condition_t* gc = nullptr;
  rmw_wait_set_t* ws = nullptr;
  GuardWaitSet(const Rmw& r, rmw_context_t* context) : rmw(r) {
    RMW_FN(rmw, rmw_create_guard_condition);
    RMW_FN(rmw, rmw_create_wait_set);
    gc = rmw_create_guard_condition(context);
    ws = rmw_create_wait_set(context, 1);
  }
  ~GuardWaitSet() {
    RMW_FN(rmw, rmw_destroy_guard_condition);
    RMW_FN(rmw, rmw_destroy_wait_set);
    if (ws != nullptr) {
      EXPECT_EQ(rmw_destroy_wait_set(ws), RMW_RET_OK);
    }
    if (gc != nullptr) {
      EXPECT_EQ(rmw_destroy_guard_condition(gc), RMW_RET_OK);
    }
  }
  GuardWaitSet(const GuardWaitSet&) = delete;
  GuardWaitSet& operator=(const GuardWaitSet&) = delete;
};

// The scheduler state of thread `tid` of this process ('R' running, 'S' asleep, ...).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');  // the name (in parentheses) may hold spaces
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
}

// Starts `wait` on a thread of its own and returns once that thread sleeps inside it, so that
// what follows wakes a wait that is really blocked, not one that has yet to start.
template <typename F>
auto start_blocked(F wait) {
  std::atomic<pid_t> tid{0};
  auto result = std::async(std::launch::async, [&tid, wait] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    return wait();
  });
  EXPECT_TRUE(baton::testing::eventually(
      [&] { return tid.load() != 0 && thread_state(tid.load()) == 'S'; }, std::chrono::seconds(30)))
      << "the waiting thread never went to sleep";
  return result;
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
  RMW_FN(rmw_, rmw_trigger_guard_condition);
  GuardWaitSet g(rmw_, &a.context);
  ASSERT_NE(g.gc, nullptr);
  ASSERT_NE(g.ws, nullptr);
  rmw_ret_t ret = RMW_RET_ERROR;
  // Not triggered: a zero timeout reports TIMEOUT and nulls the entry.
  EXPECT_FALSE(wait_on(rmw_, g.ws, g.gc, {0, 0}, &ret));
  EXPECT_EQ(ret, RMW_RET_TIMEOUT);
  auto waiting = start_blocked([&] {
    rmw_ret_t r = RMW_RET_ERROR;
    const bool ready = wait_on(rmw_, g.ws, g.gc, {30, 0}, &r);
    return std::make_pair(ready, r);
  });
  EXPECT_EQ(rmw_trigger_guard_condition(g.gc), RMW_RET_OK);
  const auto [ready, r] = waiting.get();
  EXPECT_TRUE(ready);
  EXPECT_EQ(r, RMW_RET_OK);
  // The trigger was consumed by the wait that reported it.
  EXPECT_FALSE(wait_on(rmw_, g.ws, g.gc, {0, 0}, &ret));
}

// What rclpy's signal thread does on SIGTERM (issue 22 item 4): trigger the executor's guard
// condition, then rcl_shutdown. The executor took the trigger and waits again, with no timeout;
// the shutdown alone must end that wait (nothing ready: TIMEOUT), and no later wait may block.
TEST_F(RmwBatonWait, shutdown_ends_a_wait_without_timeout_and_later_waits_do_not_block) {
  ContextWithNode a(rmw_, "stopping");
  RMW_FN(rmw_, rmw_trigger_guard_condition);
  RMW_FN(rmw_, rmw_wait);
  RMW_FN(rmw_, rmw_shutdown);
  GuardWaitSet g(rmw_, &a.context);
  ASSERT_NE(g.gc, nullptr);
  ASSERT_NE(g.ws, nullptr);
  rmw_ret_t ret = RMW_RET_ERROR;
  EXPECT_EQ(rmw_trigger_guard_condition(g.gc), RMW_RET_OK);
  EXPECT_TRUE(wait_on(rmw_, g.ws, g.gc, {0, 0}, &ret));  // the executor takes the trigger
  auto wait_forever = [&] {
    void* entries[1] = {g.gc->data};
    rmw_guard_conditions_t gcs{1, entries};
    const rmw_ret_t r = rmw_wait(nullptr, &gcs, nullptr, nullptr, nullptr, g.ws, nullptr);
    return std::make_pair(r, entries[0]);
  };
  auto waiting = start_blocked(wait_forever);
  EXPECT_EQ(rmw_shutdown(&a.context), RMW_RET_OK);
  if (waiting.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
    ADD_FAILURE() << "rmw_shutdown did not end the wait";
    EXPECT_EQ(rmw_trigger_guard_condition(g.gc), RMW_RET_OK);  // end it, to finish the test
  }
  auto [r, entry] = waiting.get();
  EXPECT_EQ(r, RMW_RET_TIMEOUT);  // the shutdown is no rcl entity: nothing is reported ready
  EXPECT_EQ(entry, nullptr);
  // After the shutdown a wait only looks: it returns at once, still reporting a trigger.
  auto after = std::async(std::launch::async, wait_forever);
  if (after.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
    ADD_FAILURE() << "a wait after rmw_shutdown blocked";
    EXPECT_EQ(rmw_trigger_guard_condition(g.gc), RMW_RET_OK);
  }
  EXPECT_EQ(after.get().first, RMW_RET_TIMEOUT);
  EXPECT_EQ(rmw_trigger_guard_condition(g.gc), RMW_RET_OK);
  EXPECT_TRUE(wait_on(rmw_, g.ws, g.gc, {30, 0}, &ret));
  EXPECT_EQ(ret, RMW_RET_OK);
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
