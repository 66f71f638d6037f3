#include <cstring>
#include <optional>
#include <thread>

#include "baton/baton.hpp"
#include "test_util.hpp"

struct Pose {
  double x, y, theta;
  std::uint64_t stamp;
};
BATON_MESSAGE(Pose, "test/msg/Pose");

struct OtherPose {
  float x, y;
};
BATON_MESSAGE(OtherPose, "test/msg/Pose");  // same name, different layout

namespace baton {
namespace {

using namespace std::chrono_literals;

class ApiTest : public ::testing::Test {
 protected:
  std::shared_ptr<Context> ctx = Context::create();
  Node node{ctx, "api_test"};
  std::string topic = testing::unique_name("api");
};

TEST_F(ApiTest, invalid_topic_name_is_refused) {
  auto sut = node.publisher<Pose>("bad name!").create();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, EndpointCreateError::InvalidName);
}

TEST_F(ApiTest, loan_publish_take_round_trip) {
  auto pub = node.publisher<Pose>(topic).create();
  auto sub = node.subscription<Pose>(topic).create();
  ASSERT_TRUE(pub && sub);
  auto loan = pub->loan();
  ASSERT_TRUE(loan);
  (*loan)->x = 1.5;
  (*loan)->stamp = 42;
  ASSERT_TRUE(pub->publish(std::move(*loan)));
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->x, 1.5);
  EXPECT_EQ((*m)->stamp, 42u);
  EXPECT_FALSE(m->is_intra_process());
}

TEST_F(ApiTest, layout_mismatch_under_same_name_is_refused) {
  auto pub = node.publisher<Pose>(topic).create();
  ASSERT_TRUE(pub);
  auto other_ctx = Context::create();
  Node other(other_ctx, "other");
  auto sut = other.subscription<OtherPose>(topic).create();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, EndpointCreateError::TypeMismatch);
}

TEST_F(ApiTest, unique_ptr_publish_moves_to_single_local_subscription) {
  auto pub = node.publisher<Pose>(topic).create();
  auto sub = node.subscription<Pose>(topic).create();
  auto msg = std::make_unique<Pose>(Pose{1, 2, 3, 7});
  const Pose* address = msg.get();
  ASSERT_TRUE(pub->publish(std::move(msg)));
  auto got = (*sub)->take_unique();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->get(), address);  // the very object: ownership moved, nothing copied
  EXPECT_EQ((*got)->stamp, 7u);
}

TEST_F(ApiTest, unique_ptr_publish_with_two_local_subscriptions_delivers_once_each) {
  auto pub = node.publisher<Pose>(topic).create();
  auto a = node.subscription<Pose>(topic).create();
  auto b = node.subscription<Pose>(topic).create();
  ASSERT_TRUE(pub->publish(std::make_unique<Pose>(Pose{0, 0, 0, 9})));
  for (auto* s : {&*a, &*b}) {
    auto m = (*s)->take();
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)->stamp, 9u);
    EXPECT_FALSE((*s)->take());  // exactly once
  }
}

TEST_F(ApiTest, callback_subscription_executes_on_execute_one) {
  std::uint64_t seen = 0;
  auto pub = node.publisher<Pose>(topic).create();
  auto sub = node.subscription<Pose>(topic)
                 .callback([&](const Sample<Pose>& m) { seen = m->stamp; })
                 .create();
  ASSERT_TRUE(pub->publish(Pose{0, 0, 0, 5}));
  EXPECT_TRUE((*sub)->execute_one());
  EXPECT_EQ(seen, 5u);
  EXPECT_FALSE((*sub)->execute_one());
}

TEST_F(ApiTest, raw_publisher_sends_sized_frames) {
  auto type = topic::TypeInfo::from_name("sensor_msgs/msg/Image");
  auto pub = node.raw_publisher(topic, type).create();
  auto sub = node.raw_subscription(topic, type).create();
  ASSERT_TRUE(pub && sub);
  for (std::uint64_t size : {64ull, 65536ull, 4ull << 20}) {
    auto loan = pub->loan(size);
    ASSERT_TRUE(loan);
    std::memset(loan->data(), static_cast<int>(size & 0xFF) + 1, size);
    ASSERT_TRUE(pub->publish(std::move(*loan), size));
    auto m = (*sub)->take();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->size(), size);
    EXPECT_EQ(m->data()[size - 1], std::byte((size & 0xFF) + 1));
  }
}

TEST_F(ApiTest, a_loan_keeps_its_publisher_until_it_is_dropped) {
  auto type = topic::TypeInfo::from_name("sensor_msgs/msg/Image");
  auto sub = node.raw_subscription(topic, type).create();
  auto pub = node.raw_publisher(topic, type).create();
  ASSERT_TRUE(pub && sub);
  auto first = pub->loan(64);
  auto second = pub->loan(64);
  ASSERT_TRUE(first && second);
  RawLoan moved = std::move(*first);                    // the moved-from loan holds nothing
  std::optional<RawPublisher> handle(std::move(*pub));  // `pub` holds no handle any more
  ASSERT_EQ((*sub)->publisher_count(), 1u);
  {
    // A loan of another publisher (or a moved-from one) is refused, not published.
    auto stranger = node.raw_publisher(topic, type).create();
    ASSERT_TRUE(stranger);
    ASSERT_EQ((*sub)->publisher_count(), 2u);
    EXPECT_EQ(stranger->publish(std::move(*first), 64).error(), PublishError::InvalidLoan);
    EXPECT_EQ(stranger->publish(std::move(moved), 64).error(), PublishError::InvalidLoan);
  }
  ASSERT_EQ((*sub)->publisher_count(), 1u);
  handle.reset();  // the last handle: the loans out keep the publisher
  EXPECT_EQ((*sub)->publisher_count(), 1u);
  { RawLoan dropped = std::move(*second); }
  EXPECT_EQ((*sub)->publisher_count(), 1u);  // `moved` is still out
  moved = RawLoan();
  EXPECT_EQ((*sub)->publisher_count(), 0u);
}

TEST_F(ApiTest, blocking_wait_wakes_on_publish_from_another_thread) {
  auto pub = node.publisher<Pose>(topic).create();
  auto sub = node.subscription<Pose>(topic).create();
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    (void)pub->publish(Pose{0, 0, 0, 1});
  });
  EXPECT_TRUE((*sub)->wait(10s));
  t.join();
  EXPECT_TRUE((*sub)->take());
}

TEST_F(ApiTest, blocking_wait_wakes_on_unique_ptr_publish_from_another_thread) {
  auto pub = node.publisher<Pose>(topic).create();
  auto sub = node.subscription<Pose>(topic).create();
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    (void)pub->publish(std::make_unique<Pose>(Pose{0, 0, 0, 3}));
  });
  // Must wake on the intra-process hand-over itself (before the fix it slept to the timeout
  // and reported nothing ready).
  EXPECT_TRUE((*sub)->wait(30s));
  t.join();
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->is_intra_process());
}

// The hand-over queues belong to a Context's topic handle (as rclcpp's intra-process manager
// belongs to its context): a subscription of another Context in this process gets the message
// exactly once, through shared memory, and a second subscription of the publisher's own Context
// makes the publisher copy for one and move to the other.
TEST_F(ApiTest, unique_ptr_publish_hands_over_only_within_its_own_context) {
  auto other_ctx = Context::create();
  Node other{other_ctx, "api_test_other"};
  auto pub = node.publisher<Pose>(topic).create();
  auto theirs = other.subscription<Pose>(topic).create();
  ASSERT_TRUE(pub && theirs);
  ASSERT_TRUE(pub->publish(std::make_unique<Pose>(Pose{0, 0, 0, 5})));
  auto m = (*theirs)->take();
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->is_intra_process());
  EXPECT_EQ((*m)->stamp, 5u);
  EXPECT_FALSE((*theirs)->take());  // exactly once

  auto ours = node.subscription<Pose>(topic).create();
  ASSERT_TRUE(ours);
  ASSERT_TRUE(pub->publish(std::make_unique<Pose>(Pose{0, 0, 0, 6})));
  auto a = (*ours)->take();
  auto b = (*theirs)->take();
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a)->stamp, 6u);
  EXPECT_EQ((*b)->stamp, 6u);
  EXPECT_FALSE(a->is_intra_process());  // one subscriber is outside this context's handle
  EXPECT_FALSE((*ours)->take());
  EXPECT_FALSE((*theirs)->take());
}

TEST_F(ApiTest, builder_reserve_pays_for_the_ring_at_create) {
  const auto type = topic::TypeInfo::from_name("sensor_msgs/msg/Image");
  auto pub = node.raw_publisher(topic, type).qos(QoS(4)).reserve(3u << 20, 6).create();
  ASSERT_TRUE(pub) << pub.error().detail;
  const auto& pool = pub->port().pool();
  EXPECT_EQ(pool.segment_count(), 1u);  // room for all six now...
  EXPECT_EQ(pool.chunk_count(), 1u);    // ...committed as loans need them
  for (int i = 0; i < 6; ++i) {         // the ring (4), a loan and one more, none of them grows
    auto loan = pub->loan(3u << 20);
    ASSERT_TRUE(loan);
    ASSERT_TRUE(pub->publish(std::move(*loan), 3u << 20));
  }
  EXPECT_EQ(pool.segment_count(), 1u);
  EXPECT_LE(pool.chunk_count(), 6u);
}

TEST_F(ApiTest, builder_commit_reservation_commits_the_ring_at_create) {
  const auto type = topic::TypeInfo::from_name("sensor_msgs/msg/Image");
  auto pub = node.raw_publisher(topic, type)
                 .qos(QoS(4))
                 .reserve(3u << 20, 6)
                 .commit_reservation()
                 .create();
  ASSERT_TRUE(pub) << pub.error().detail;
  const auto& pool = pub->port().pool();
  EXPECT_EQ(pool.chunk_count(), 6u);
  const std::uint64_t committed = pool.committed_bytes();
  for (int i = 0; i < 6; ++i) {
    auto loan = pub->loan(3u << 20);
    ASSERT_TRUE(loan);
    ASSERT_TRUE(pub->publish(std::move(*loan), 3u << 20));
  }
  EXPECT_EQ(pool.committed_bytes(), committed);
}

TEST_F(ApiTest, builder_reserve_beyond_max_pool_bytes_fails_create_and_frees_the_slot) {
  const auto type = topic::TypeInfo::from_name("sensor_msgs/msg/Image");
  auto sut = node.raw_publisher(topic, type).max_pool_bytes(8u << 20).reserve(4u << 20, 4).create();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, EndpointCreateError::ReservationFailed);
  EXPECT_NE(sut.error().detail.find("max_pool_bytes"), std::string::npos) << sut.error().detail;
  auto t = ctx->topic(node.resolve(topic), type);
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)->publisher_count(), 0u);  // the half-made publisher is gone
}

TEST_F(ApiTest, typed_publisher_reserve_counts_messages_of_its_type) {
  auto pub = node.publisher<Pose>(topic).create();
  ASSERT_TRUE(pub);
  auto r = pub->reserve(20);
  ASSERT_TRUE(r) << r.error().detail;
  EXPECT_GE(pub->port().pool().free_count(), 20u);
  auto too_large = pub->reserve(1ull << 40, 1);  // the RawPublisher overload is still there
  ASSERT_FALSE(too_large);
  EXPECT_EQ(too_large.error().code, ReserveError::TooLarge);
}

TEST(TopicNameTest, resolves_like_ros) {
  EXPECT_EQ(resolve_topic_name("chatter", "/", "n"), "/chatter");
  EXPECT_EQ(resolve_topic_name("chatter", "/robot", "n"), "/robot/chatter");
  EXPECT_EQ(resolve_topic_name("/abs", "/robot", "n"), "/abs");
  EXPECT_EQ(resolve_topic_name("~/priv", "/robot", "n"), "/robot/n/priv");
  EXPECT_EQ(resolve_topic_name("a//b", "/", "n"), "");
  EXPECT_EQ(resolve_topic_name("", "/", "n"), "");
}

}  // namespace
}  // namespace baton
