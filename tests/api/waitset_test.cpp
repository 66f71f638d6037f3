#include <atomic>
#include <thread>

#include "api/api_test_types.hpp"
#include "baton/shm/sleeper_word.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;

// "Must not hang" guard for waits that should succeed; never a timing assertion.
constexpr auto GUARD = 10s;

class WaitSetTest : public ::testing::Test {
 protected:
  // No janitor thread: tests here fork (run_in_child), which needs a single-threaded parent.
  std::shared_ptr<Context> ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});
  Node node{ctx, "waitset_test"};
  std::string topic = testing::unique_name("waitset");
};

TEST_F(WaitSetTest, add_null_entity_returns_null_entity) {
  WaitSet sut;
  auto r = sut.add_subscription(nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), WaitSetError::NullEntity);
  EXPECT_FALSE(sut.add_guard_condition(nullptr));
  EXPECT_EQ(sut.size(), 0u);
}

TEST_F(WaitSetTest, add_same_subscription_twice_returns_already_added) {
  auto sub = node.subscription<Tick>(topic).create();
  ASSERT_TRUE(sub);
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*sub));
  auto r = sut.add_subscription(*sub);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), WaitSetError::AlreadyAdded);
  EXPECT_EQ(sut.size(), 1u);
}

TEST_F(WaitSetTest, wait_on_empty_set_returns_empty) {
  WaitSet sut;
  EXPECT_EQ(sut.wait(GUARD).kind, WaitResultKind::Empty);
}

TEST_F(WaitSetTest, wait_with_nothing_ready_returns_timeout) {
  auto sub = node.subscription<Tick>(topic).create();
  auto guard = std::make_shared<GuardCondition>();
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*sub));
  ASSERT_TRUE(sut.add_guard_condition(guard));
  auto r = sut.wait(20ms);
  EXPECT_EQ(r.kind, WaitResultKind::Timeout);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(sut.wait(0ns).kind, WaitResultKind::Timeout);
}

TEST_F(WaitSetTest, wait_wakes_on_publish_from_another_thread) {
  auto pub = node.publisher<Tick>(topic).create();
  auto sub = node.subscription<Tick>(topic).create();
  auto other = node.subscription<Tick>(testing::unique_name("other")).create();
  ASSERT_TRUE(pub && sub && other);
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*sub));
  ASSERT_TRUE(sut.add_subscription(*other));
  std::thread publisher([&] {
    std::this_thread::sleep_for(20ms);  // let the wait go to sleep first (not required)
    ASSERT_TRUE(pub->publish(Tick{7}));
  });
  auto r = sut.wait(GUARD);
  publisher.join();
  ASSERT_EQ(r.kind, WaitResultKind::Ready);
  EXPECT_TRUE(r.is_ready(**sub));
  EXPECT_FALSE(r.is_ready(**other));
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->value, 7u);
}

// Subscriptions of one topic share its wake word (TopicHeader::wake_seq), so such a set hands
// futex_waitv the same word twice and counts itself twice in the topic's waiters word.
TEST_F(WaitSetTest, two_subscriptions_of_one_topic_in_one_set_both_wake_on_one_publish) {
  auto pub = node.publisher<Tick>(topic).create();
  auto first = node.subscription<Tick>(topic).create();
  auto second = node.subscription<Tick>(topic).create();
  ASSERT_TRUE(pub && first && second);
  ASSERT_EQ((*first)->wake_word(), (*second)->wake_word());
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*first));
  ASSERT_TRUE(sut.add_subscription(*second));
  std::thread publisher([&] {
    // Publish once the set has announced itself for both entries (it is asleep or about to be).
    while (shm::sleeper_count((*first)->waiters_word()->load()) < 2) std::this_thread::yield();
    ASSERT_TRUE(pub->publish(Tick{9}));
  });
  auto r = sut.wait(GUARD);
  publisher.join();
  ASSERT_EQ(r.kind, WaitResultKind::Ready);
  EXPECT_TRUE(r.is_ready(**first));
  EXPECT_TRUE(r.is_ready(**second));
  for (auto* s : {&*first, &*second}) {
    auto m = (*s)->take();
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)->value, 9u);
  }
  EXPECT_EQ(shm::sleeper_count((*first)->waiters_word()->load()), 0u);
}

TEST_F(WaitSetTest, wait_wakes_on_publish_from_another_process) {
  auto sub = node.subscription<Tick>(topic).create();
  ASSERT_TRUE(sub);
  int done[2];
  ASSERT_EQ(::pipe(done), 0);
  const std::string name = topic;
  const pid_t child = testing::run_in_child([&] {
    // No janitor thread: a forked child of a threaded parent should stay single-threaded.
    auto c = Context::create(ContextOptions{std::chrono::milliseconds(0)});
    Node n(c, "child");
    auto pub = n.publisher<Tick>(name).create();
    if (!pub) return 1;
    std::this_thread::sleep_for(20ms);
    if (!pub->publish(Tick{42})) return 2;
    char b;
    (void)::read(done[0], &b, 1);  // keep the publisher (and its ring) alive until read
    return 0;
  });
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*sub));
  auto r = sut.wait(GUARD);
  EXPECT_EQ(r.kind, WaitResultKind::Ready);
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->value, 42u);
  ASSERT_EQ(::write(done[1], "x", 1), 1);
  EXPECT_EQ(testing::wait_child(child), 0);
  ::close(done[0]);
  ::close(done[1]);
}

TEST_F(WaitSetTest, guard_condition_trigger_from_another_thread_wakes_wait) {
  auto sub = node.subscription<Tick>(topic).create();
  auto guard = std::make_shared<GuardCondition>();
  WaitSet sut;
  ASSERT_TRUE(sut.add_subscription(*sub));
  ASSERT_TRUE(sut.add_guard_condition(guard));
  std::thread trigger([&] {
    std::this_thread::sleep_for(20ms);
    guard->trigger();
  });
  auto r = sut.wait(GUARD);
  trigger.join();
  ASSERT_EQ(r.kind, WaitResultKind::Ready);
  EXPECT_TRUE(r.is_ready(*guard));
  EXPECT_FALSE(r.is_ready(**sub));
}

TEST_F(WaitSetTest, guard_condition_trigger_is_consumed_by_the_wait_that_reports_it) {
  auto guard = std::make_shared<GuardCondition>();
  WaitSet sut;
  ASSERT_TRUE(sut.add_guard_condition(guard));
  guard->trigger();  // before the wait: sticky
  EXPECT_EQ(sut.wait(GUARD).kind, WaitResultKind::Ready);
  EXPECT_FALSE(guard->is_triggered());
  EXPECT_EQ(sut.wait(0ns).kind, WaitResultKind::Timeout);
}

TEST_F(WaitSetTest, removed_entity_is_no_longer_reported) {
  auto guard = std::make_shared<GuardCondition>();
  auto sub = node.subscription<Tick>(topic).create();
  WaitSet sut;
  ASSERT_TRUE(sut.add_guard_condition(guard));
  ASSERT_TRUE(sut.add_subscription(*sub));
  EXPECT_TRUE(sut.remove_guard_condition(*guard));
  EXPECT_FALSE(sut.remove_guard_condition(*guard));
  guard->trigger();
  EXPECT_EQ(sut.wait(0ns).kind, WaitResultKind::Timeout);
}

class WaitSetModeTest : public WaitSetTest, public ::testing::WithParamInterface<WaitMode> {};

TEST_P(WaitSetModeTest, wait_in_mode_wakes_on_publish_from_another_thread) {
  auto pub = node.publisher<Tick>(topic).create();
  auto sub = node.subscription<Tick>(topic).create();
  ASSERT_TRUE(pub && sub);
  WaitSet sut(WaitSetOptions{GetParam(), 100us});
  ASSERT_TRUE(sut.add_subscription(*sub));
  std::thread publisher([&] {
    std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(pub->publish(Tick{1}));
  });
  auto r = sut.wait(GUARD);
  publisher.join();
  EXPECT_EQ(r.kind, WaitResultKind::Ready);
  EXPECT_TRUE(r.is_ready(**sub));
}

TEST_P(WaitSetModeTest, wait_in_mode_with_nothing_ready_returns_timeout) {
  auto sub = node.subscription<Tick>(topic).create();
  WaitSet sut(WaitSetOptions{GetParam(), 100us});
  ASSERT_TRUE(sut.add_subscription(*sub));
  EXPECT_EQ(sut.wait(5ms).kind, WaitResultKind::Timeout);
}

INSTANTIATE_TEST_SUITE_P(Modes, WaitSetModeTest,
                         ::testing::Values(WaitMode::Blocking, WaitMode::BusyPoll,
                                           WaitMode::Adaptive),
                         [](const ::testing::TestParamInfo<WaitMode>& info) -> std::string {
                           switch (info.param) {
                             case WaitMode::Blocking:
                               return "Blocking";
                             case WaitMode::BusyPoll:
                               return "BusyPoll";
                             case WaitMode::Adaptive:
                               return "Adaptive";
                           }
                           return "Unknown";
                         });

}  // namespace
}  // namespace baton
