#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "baton/shm/clock.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<Topic> make_topic(const std::string& type = "test/msg/Bytes") {
  auto t = Topic::open_or_create(testing::unique_name("topic"), TypeInfo::from_name(type));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

void publish_bytes(PublisherPort& pub, const std::string& text) {
  auto loan = pub.loan(text.size());
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, text.data(), text.size());
  ASSERT_TRUE(pub.publish(*loan, text.size()));
}

std::string as_string(const TakenSample& s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

TEST(PubSubTest, publisher_with_zero_depth_returns_invalid_qos) {
  PublisherOptions o;
  o.depth = 0;
  auto sut = PublisherPort::create(make_topic(), o);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, PublisherCreateError::InvalidQos);
}

TEST(PubSubTest, take_without_publisher_returns_no_data) {
  auto sub = SubscriberPort::create(make_topic(), {});
  ASSERT_TRUE(sub);
  auto sut = (*sub)->take();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error(), TakeError::NoData);
}

TEST(PubSubTest, subscriber_reads_publisher_bytes_in_place) {
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  auto sub = SubscriberPort::create(topic, {});
  ASSERT_TRUE(pub && sub);
  auto loan = (*pub)->loan(64);
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, "zero-copy", 9);
  ASSERT_TRUE((*pub)->publish(*loan, 9));
  auto sut = (*sub)->take();
  ASSERT_TRUE(sut);
  EXPECT_EQ(as_string(*sut), "zero-copy");
  EXPECT_EQ(sut->data(), loan->data);  // same process: the very same bytes, no copy
}

TEST(PubSubTest, two_subscribers_both_get_every_message_in_order) {
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  auto a = SubscriberPort::create(topic, {});
  auto b = SubscriberPort::create(topic, {});
  for (int i = 0; i < 5; ++i) publish_bytes(**pub, "m" + std::to_string(i));
  for (auto* s : {&*a, &*b}) {
    for (int i = 0; i < 5; ++i) {
      auto m = (*s)->take();
      ASSERT_TRUE(m);
      EXPECT_EQ(as_string(*m), "m" + std::to_string(i));
    }
    EXPECT_FALSE((*s)->take());
  }
}

TEST(PubSubTest, best_effort_slow_subscriber_loses_oldest) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 4;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 2;
  so.reliability = Reliability::BestEffort;
  auto sub = SubscriberPort::create(topic, so);
  for (int i = 0; i < 10; ++i) publish_bytes(**pub, std::to_string(i));
  auto m1 = (*sub)->take();
  auto m2 = (*sub)->take();
  ASSERT_TRUE(m1 && m2);
  EXPECT_EQ(as_string(*m1), "8");
  EXPECT_EQ(as_string(*m2), "9");
  EXPECT_EQ((*sub)->lost(), 8u);
}

TEST(PubSubTest, reliable_publisher_times_out_when_subscriber_queue_full) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 2;
  po.reliable_timeout = 20ms;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 2;
  auto sub = SubscriberPort::create(topic, so);
  publish_bytes(**pub, "a");
  publish_bytes(**pub, "b");
  auto loan = (*pub)->loan(1);
  ASSERT_TRUE(loan);
  auto sut = (*pub)->publish(*loan, 1);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error(), PublishError::ReliableTimeout);
  // After the subscriber drains one, the publisher may go on.
  ASSERT_TRUE((*sub)->take());
  publish_bytes(**pub, "c");
}

TEST(PubSubTest, reliable_publisher_waits_for_slow_subscriber_in_another_thread) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 1;
  po.reliable_timeout = 5s;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 1;
  auto sub = SubscriberPort::create(topic, so);
  std::vector<std::string> got;
  std::thread reader([&] {
    while (got.size() < 50) {
      (*sub)->wait(-1ns);
      while (auto m = (*sub)->take()) got.push_back(as_string(*m));
    }
  });
  for (int i = 0; i < 50; ++i) publish_bytes(**pub, std::to_string(i));
  reader.join();
  ASSERT_EQ(got.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(got[i], std::to_string(i));
}

TEST(PubSubTest, reliable_publisher_created_after_subscriber_holds_back_before_first_take) {
  auto topic = make_topic();
  SubscriberOptions so;
  so.depth = 4;
  auto sub = SubscriberPort::create(topic, so);
  PublisherOptions po;
  po.depth = 4;
  po.reliable_timeout = 20ms;
  auto pub = PublisherPort::create(topic, po);  // the subscriber has not taken anything yet
  for (int i = 0; i < 4; ++i) publish_bytes(**pub, std::to_string(i));
  auto loan = (*pub)->loan(1);
  ASSERT_TRUE(loan);
  auto fifth = (*pub)->publish(*loan, 1);
  ASSERT_FALSE(fifth);  // the subscriber's queue is full: nothing may be overwritten
  EXPECT_EQ(fifth.error(), PublishError::ReliableTimeout);
  for (int i = 0; i < 4; ++i) {
    auto m = (*sub)->take();
    ASSERT_TRUE(m);
    EXPECT_EQ(as_string(*m), std::to_string(i));
  }
  EXPECT_EQ((*sub)->lost(), 0u);
}

TEST(PubSubTest, transient_local_late_joiner_gets_last_n) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 3;
  po.durability = Durability::TransientLocal;
  auto pub = PublisherPort::create(topic, po);
  for (int i = 0; i < 7; ++i) publish_bytes(**pub, std::to_string(i));
  SubscriberOptions so;
  so.durability = Durability::TransientLocal;
  auto late = SubscriberPort::create(topic, so);
  SubscriberOptions vo;
  auto volatile_sub = SubscriberPort::create(topic, vo);
  std::vector<std::string> got;
  while (auto m = (*late)->take()) got.push_back(as_string(*m));
  EXPECT_EQ(got, (std::vector<std::string>{"4", "5", "6"}));
  EXPECT_FALSE((*volatile_sub)->take());
}

TEST(PubSubTest, type_mismatch_is_refused_with_both_names) {
  const auto name = testing::unique_name("typed");
  auto first = Topic::open_or_create(name, TypeInfo::from_name("a/msg/A"));
  ASSERT_TRUE(first);
  auto pub = PublisherPort::create(*first, {});
  auto sut = Topic::open_or_create(name, TypeInfo::from_name("b/msg/B"));
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, TopicError::TypeMismatch);
  EXPECT_NE(sut.error().detail.find("a/msg/A"), std::string::npos);
  EXPECT_NE(sut.error().detail.find("b/msg/B"), std::string::npos);
}

TEST(PubSubTest, same_type_name_with_other_layout_hash_is_refused) {
  const auto name = testing::unique_name("hash");
  auto first = Topic::open_or_create(name, TypeInfo::from_name("a/msg/A", "size=8"));
  auto pub = PublisherPort::create(*first, {});
  auto sut = Topic::open_or_create(name, TypeInfo::from_name("a/msg/A", "size=16"));
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, TopicError::TypeMismatch);
}

TEST(PubSubTest, released_chunks_return_to_the_pool) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 1;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  auto sub = SubscriberPort::create(topic, {});
  for (int i = 0; i < 1000; ++i) {
    publish_bytes(**pub, "x");
    auto m = (*sub)->take();
    ASSERT_TRUE(m);
  }
  (*pub)->collect_returns();
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.segment_count(), 1u);  // never grew: every chunk came back
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

TEST(PubSubTest, held_sample_survives_ring_overwrite) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 1;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  auto sub = SubscriberPort::create(topic, {});
  publish_bytes(**pub, "first");
  auto held = (*sub)->take();
  ASSERT_TRUE(held);
  for (int i = 0; i < 200; ++i) publish_bytes(**pub, "later" + std::to_string(i));
  EXPECT_EQ(as_string(*held), "first");
}

TEST(PubSubTest, too_many_loans_is_reported) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 32;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 32;
  auto sub = SubscriberPort::create(topic, so);
  for (int i = 0; i < 20; ++i) publish_bytes(**pub, "m");
  std::vector<TakenSample> held;
  for (std::uint32_t i = 0; i < MAX_LOANS_PER_SUBSCRIBER; ++i) {
    auto m = (*sub)->take();
    ASSERT_TRUE(m);
    held.push_back(std::move(*m));
  }
  auto sut = (*sub)->take();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error(), TakeError::TooManyLoans);
  held.pop_back();
  EXPECT_TRUE((*sub)->take());
}

TEST(PubSubTest, large_message_of_64_mib_round_trips) {
  auto topic = make_topic();
  PublisherOptions po;
  po.depth = 1;
  auto pub = PublisherPort::create(topic, po);
  auto sub = SubscriberPort::create(topic, {});
  const std::uint64_t size = 64ull << 20;
  auto loan = (*pub)->loan(size);
  ASSERT_TRUE(loan);
  for (std::uint64_t i = 0; i < size; i += 4096) loan->data[i] = std::byte(i / 4096 % 251);
  ASSERT_TRUE((*pub)->publish(*loan, size));
  auto m = (*sub)->take();
  ASSERT_TRUE(m) << "take: " << to_string(m.error()) << ", lost " << (*sub)->lost()
                 << ", publishers " << (*sub)->publisher_count();
  ASSERT_EQ(m->size(), size);
  for (std::uint64_t i = 0; i < size; i += 4096) ASSERT_EQ(m->data()[i], std::byte(i / 4096 % 251));
}

TEST(PubSubTest, subscriber_in_another_process_reads_messages) {
  auto topic = make_topic();
  const std::string name = topic->name();
  auto pub = PublisherPort::create(topic, {});
  pid_t child = fork();
  if (child == 0) {
    auto t = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
    if (!t) _exit(2);
    auto s = SubscriberPort::create(*t, {});
    if (!s) _exit(3);
    int seen = 0;
    while (seen < 100) {
      if (!(*s)->wait(5s)) _exit(4);
      while (auto m = (*s)->take()) {
        if (std::string(reinterpret_cast<const char*>(m->data()), m->size()) !=
            "msg" + std::to_string(seen)) {
          _exit(5);
        }
        ++seen;
      }
    }
    _exit(0);
  }
  while ((*pub)->subscriber_count() == 0) std::this_thread::sleep_for(1ms);
  for (int i = 0; i < 100; ++i) publish_bytes(**pub, "msg" + std::to_string(i));
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(PubSubTest,
     source_timestamp_is_the_publish_time_when_a_subscriber_asks_and_0_when_turned_off) {
  auto topic = make_topic();
  PublisherOptions unstamped;
  unstamped.source_timestamps = false;
  auto plain = PublisherPort::create(topic, unstamped);
  auto stamping = PublisherPort::create(topic, {});
  SubscriberOptions asking;
  asking.source_timestamps = true;
  auto sub = SubscriberPort::create(topic, asking);
  ASSERT_TRUE(plain && stamping && sub);
  const std::int64_t before = shm::realtime_ns();
  publish_bytes(**stamping, "stamped");
  const std::int64_t after = shm::realtime_ns();
  publish_bytes(**plain, "plain");
  for (int i = 0; i < 2; ++i) {
    auto sample = (*sub)->take();
    ASSERT_TRUE(sample);
    if (as_string(*sample) == "stamped") {
      EXPECT_GE(sample->source_timestamp_ns(), before);
      EXPECT_LE(sample->source_timestamp_ns(), after);
    } else {
      EXPECT_EQ(sample->source_timestamp_ns(), 0);
    }
  }
}

// A publisher reads the clock only while a subscriber of the topic asks for stamps: it sees one
// that asks (or the last that asked leaving) through the topic's epoch, at its next publish.
TEST(PubSubTest, publisher_stamps_only_while_a_subscriber_of_the_topic_asks) {
  auto topic = make_topic();
  auto pub = PublisherPort::create(topic, {});
  auto quiet = SubscriberPort::create(topic, {});  // does not ask (the default)
  ASSERT_TRUE(pub && quiet);
  publish_bytes(**pub, "before");
  auto first = (*quiet)->take();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->source_timestamp_ns(), 0);
  SubscriberOptions asking;
  asking.source_timestamps = true;
  auto asker = SubscriberPort::create(topic, asking);
  ASSERT_TRUE(asker);
  const std::int64_t before = shm::realtime_ns();
  publish_bytes(**pub, "while asked");
  const std::int64_t after = shm::realtime_ns();
  for (auto* s : {quiet->get(), asker->get()}) {  // the stamp is the message's, for every reader
    auto sample = s->take();
    ASSERT_TRUE(sample);
    EXPECT_EQ(as_string(*sample), "while asked");
    EXPECT_GE(sample->source_timestamp_ns(), before);
    EXPECT_LE(sample->source_timestamp_ns(), after);
  }
  asker->reset();
  publish_bytes(**pub, "after");
  auto last = (*quiet)->take();
  ASSERT_TRUE(last);
  EXPECT_EQ(as_string(*last), "after");
  EXPECT_EQ(last->source_timestamp_ns(), 0);
}

}  // namespace
}  // namespace baton::topic
