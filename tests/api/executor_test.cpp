#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/api_test_types.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;

constexpr auto GUARD = 10s;  // "must not hang" guard; never a timing assertion

// Waits (bounded by GUARD) until pred() holds; returns pred().
template <typename Pred>
bool eventually(Pred pred) {
  return baton::testing::eventually(pred, GUARD);
}

class ExecutorTest : public ::testing::Test {
 protected:
  std::shared_ptr<Context> ctx = Context::create();
  Node node{ctx, "executor_test"};
  std::string topic = testing::unique_name("executor");
};

TEST_F(ExecutorTest, add_null_entity_returns_null_entity) {
  SingleThreadedExecutor sut(ctx);
  auto r = sut.add_subscription(nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ExecutorError::NullEntity);
  EXPECT_FALSE(sut.add_service(nullptr));
  EXPECT_FALSE(sut.add_client(nullptr));
}

TEST_F(ExecutorTest, add_node_to_second_executor_returns_node_in_another_executor) {
  SingleThreadedExecutor first(ctx);
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(first.add_node(node));
  EXPECT_EQ(first.add_node(node).error(), ExecutorError::AlreadyAdded);
  auto r = sut.add_node(node);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ExecutorError::NodeInAnotherExecutor);
  EXPECT_TRUE(first.remove_node(node));
  EXPECT_TRUE(sut.add_node(node));
}

TEST_F(ExecutorTest, spin_once_with_nothing_ready_returns_false) {
  auto sub = node.subscription<Tick>(topic).callback([](const Sample<Tick>&) {}).create();
  ASSERT_TRUE(sub);
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(sut.add_node(node));
  EXPECT_FALSE(sut.spin_once(10ms));
  EXPECT_FALSE(sut.spin_once(0ns));
}

TEST_F(ExecutorTest, spin_some_runs_every_ready_callback) {
  auto pub_a = node.publisher<Tick>(topic + "/a").create();
  auto pub_b = node.publisher<Tick>(topic + "/b").create();
  int a = 0, b = 0;
  auto sub_a =
      node.subscription<Tick>(topic + "/a").callback([&](const Sample<Tick>&) { ++a; }).create();
  auto sub_b =
      node.subscription<Tick>(topic + "/b").callback([&](const Sample<Tick>&) { ++b; }).create();
  ASSERT_TRUE(pub_a && pub_b && sub_a && sub_b);
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(sut.add_node(node));
  ASSERT_TRUE(pub_a->publish(Tick{1}));
  ASSERT_TRUE(pub_b->publish(Tick{2}));
  sut.spin_some();
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
  sut.spin_some();  // nothing left: returns without waiting
  EXPECT_EQ(a + b, 2);
}

TEST_F(ExecutorTest, subscription_without_callback_is_left_for_take) {
  auto pub = node.publisher<Tick>(topic).create();
  auto sub = node.subscription<Tick>(topic).create();
  ASSERT_TRUE(pub && sub);
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(sut.add_node(node));
  ASSERT_TRUE(pub->publish(Tick{3}));
  sut.spin_some();
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->value, 3u);
}

TEST_F(ExecutorTest, single_threaded_spin_runs_callbacks_published_from_another_thread) {
  auto pub = node.publisher<Tick>(topic).qos(QoS(100)).create();
  SingleThreadedExecutor sut(ctx);
  std::atomic<std::uint64_t> sum{0};
  std::atomic<int> count{0};
  auto sub = node.subscription<Tick>(topic)
                 .qos(QoS(100))
                 .callback([&](const Sample<Tick>& m) {
                   sum += m->value;
                   if (++count == 50) sut.cancel();
                 })
                 .create();
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE(sut.add_subscription(*sub));
  std::thread publisher([&] {
    for (std::uint64_t i = 1; i <= 50; ++i) {
      EXPECT_TRUE(pub->publish(Tick{i}));
      if (i % 10 == 0) std::this_thread::sleep_for(1ms);
    }
  });
  std::thread watchdog([&] {
    if (!eventually([&] { return count.load() >= 50; })) sut.cancel();
  });
  sut.spin();
  publisher.join();
  watchdog.join();
  EXPECT_EQ(count.load(), 50);
  EXPECT_EQ(sum.load(), 50u * 51u / 2u);
}

TEST_F(ExecutorTest, entity_created_while_spinning_is_served) {
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(sut.add_node(node));
  std::thread spinner([&] { sut.spin(); });
  std::atomic<int> got{0};
  auto sub = node.subscription<Tick>(topic).callback([&](const Sample<Tick>&) { ++got; }).create();
  auto pub = node.publisher<Tick>(topic).create();
  ASSERT_TRUE(sub && pub);
  ASSERT_TRUE(pub->publish(Tick{1}));
  EXPECT_TRUE(eventually([&] { return got.load() == 1; }));
  sut.cancel();
  spinner.join();
}

TEST_F(ExecutorTest, spin_returns_on_context_shutdown) {
  auto own = Context::create();
  Node n(own, "shutdown_test");
  auto sub = n.subscription<Tick>(topic).callback([](const Sample<Tick>&) {}).create();
  ASSERT_TRUE(sub);
  SingleThreadedExecutor sut(own);
  ASSERT_TRUE(sut.add_node(n));
  std::atomic<bool> returned{false};
  std::thread spinner([&] {
    sut.spin();
    returned = true;
  });
  EXPECT_TRUE(eventually([&] { return sut.is_spinning(); }));
  own->shutdown();
  EXPECT_TRUE(eventually([&] { return returned.load(); }));
  if (!returned) sut.cancel();  // do not hang the suite if the wake failed
  spinner.join();
  EXPECT_FALSE(sut.spin_once(0ns));  // a shut-down context runs nothing
}

TEST_F(ExecutorTest, multi_threaded_spin_returns_on_context_shutdown) {
  auto own = Context::create();
  Node n(own, "shutdown_test");
  auto sub = n.subscription<Tick>(topic).callback([](const Sample<Tick>&) {}).create();
  MultiThreadedExecutor sut(own, 3);
  ASSERT_TRUE(sut.add_node(n));
  std::atomic<bool> returned{false};
  std::thread spinner([&] {
    sut.spin();
    returned = true;
  });
  EXPECT_TRUE(eventually([&] { return sut.is_spinning(); }));
  own->shutdown();
  EXPECT_TRUE(eventually([&] { return returned.load(); }));
  if (!returned) sut.cancel();
  spinner.join();
}

TEST_F(ExecutorTest, multi_threaded_runs_different_subscriptions_in_parallel) {
  // Each callback waits until the other one has started: only parallel execution finishes
  // (a serial executor would hit the guard and fail).
  auto pub_a = node.publisher<Tick>(topic + "/a").create();
  auto pub_b = node.publisher<Tick>(topic + "/b").create();
  std::mutex m;
  std::condition_variable cv;
  int started = 0;
  bool both = true;
  auto body = [&](const Sample<Tick>&) {
    std::unique_lock<std::mutex> lock(m);
    ++started;
    cv.notify_all();
    both = cv.wait_for(lock, GUARD, [&] { return started >= 2; }) && both;
  };
  auto a = node.subscription<Tick>(topic + "/a").callback(body).create();
  auto b = node.subscription<Tick>(topic + "/b").callback(body).create();
  ASSERT_TRUE(pub_a && pub_b && a && b);
  MultiThreadedExecutor sut(ctx, 2);
  ASSERT_TRUE(sut.add_node(node));
  std::thread spinner([&] { sut.spin(); });
  ASSERT_TRUE(pub_a->publish(Tick{1}));
  ASSERT_TRUE(pub_b->publish(Tick{2}));
  EXPECT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(m);
    return started == 2;
  }));
  sut.cancel();
  spinner.join();
  EXPECT_TRUE(both);
}

TEST_F(ExecutorTest, multi_threaded_runs_one_callback_of_a_subscription_at_a_time) {
  auto pub = node.publisher<Tick>(topic).qos(QoS(200)).create();
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  std::atomic<int> count{0};
  auto sub = node.subscription<Tick>(topic)
                 .qos(QoS(200))
                 .callback([&](const Sample<Tick>&) {
                   const int now = ++inside;
                   int seen = max_inside.load();
                   while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
                   }
                   std::this_thread::yield();
                   --inside;
                   ++count;
                 })
                 .create();
  ASSERT_TRUE(pub && sub);
  MultiThreadedExecutor sut(ctx, 4);
  ASSERT_TRUE(sut.add_node(node));
  std::thread spinner([&] { sut.spin(); });
  for (std::uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(pub->publish(Tick{i}));
  EXPECT_TRUE(eventually([&] { return count.load() == 100; }));
  sut.cancel();
  spinner.join();
  EXPECT_EQ(max_inside.load(), 1);
}

TEST_F(ExecutorTest, busy_poll_executor_runs_callbacks) {
  auto pub = node.publisher<Tick>(topic).create();
  std::atomic<int> got{0};
  auto sub = node.subscription<Tick>(topic).callback([&](const Sample<Tick>&) { ++got; }).create();
  ASSERT_TRUE(pub && sub);
  SingleThreadedExecutor sut(ctx, ExecutorOptions{WaitMode::BusyPoll});
  ASSERT_TRUE(sut.add_node(node));
  std::thread publisher([&] {
    std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(pub->publish(Tick{1}));
  });
  EXPECT_TRUE(sut.spin_once(GUARD));
  publisher.join();
  EXPECT_EQ(got.load(), 1);
}

TEST_F(ExecutorTest, spin_until_future_complete_completes_with_service_response) {
  auto srv = node.service<AddTwoInts>(topic + "/add")
                 .callback([](const AddTwoInts::Request& req, AddTwoInts::Response& res) {
                   res.sum = req.a + req.b;
                 })
                 .create();
  auto cli = node.client<AddTwoInts>(topic + "/add").create();
  ASSERT_TRUE(srv && cli);
  ASSERT_TRUE((*cli)->wait_for_service(GUARD));
  SingleThreadedExecutor sut(ctx);
  ASSERT_TRUE(sut.add_node(node));
  auto future = (*cli)->async_send_request({2, 3});
  ASSERT_TRUE(future);
  ASSERT_EQ(sut.spin_until_future_complete(*future, GUARD), FutureReturnCode::Success);
  EXPECT_EQ(future->get().sum, 5);
}

TEST_F(ExecutorTest, spin_until_future_complete_without_answer_returns_timeout) {
  std::promise<int> never;
  auto future = never.get_future().share();
  SingleThreadedExecutor sut(ctx);
  EXPECT_EQ(sut.spin_until_future_complete(future, 10ms), FutureReturnCode::Timeout);
}

TEST_F(ExecutorTest, multi_threaded_serves_service_and_client_together) {
  auto srv = node.service<AddTwoInts>(topic + "/add")
                 .callback([](const AddTwoInts::Request& req, AddTwoInts::Response& res) {
                   res.sum = req.a * 10 + req.b;
                 })
                 .create();
  auto cli = node.client<AddTwoInts>(topic + "/add").create();
  ASSERT_TRUE(srv && cli);
  ASSERT_TRUE((*cli)->wait_for_service(GUARD));
  MultiThreadedExecutor sut(ctx, 2);
  ASSERT_TRUE(sut.add_node(node));
  std::thread spinner([&] { sut.spin(); });
  std::vector<Client<AddTwoInts>::SharedFuture> futures;
  for (std::int64_t i = 0; i < 20; ++i) {
    auto f = (*cli)->async_send_request({i, 1});
    ASSERT_TRUE(f);
    futures.push_back(*f);
  }
  for (std::int64_t i = 0; i < 20; ++i) {
    ASSERT_EQ(futures[i].wait_for(GUARD), std::future_status::ready);
    EXPECT_EQ(futures[i].get().sum, i * 10 + 1);
  }
  sut.cancel();
  spinner.join();
}

}  // namespace
}  // namespace baton
