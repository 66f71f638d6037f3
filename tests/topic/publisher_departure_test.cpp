// A publisher that leaves cleanly (its port destroyed, its process exiting normally) does not take
// the messages it published with it: a subscriber attached to it drains the rows it had not taken
// yet before it lets the publisher go, and a reliable publisher waits (bounded by its
// reliable_timeout) on its way out until every attached reliable subscriber in another process
// has mapped what it needs to (publisher_port.hpp, docs/design/core.md "Departure").
// Crashed publishers are tests/stress/crash_loop_test.cpp's business.
#include <fstream>
#include <string>
#include <vector>

#include "baton/memory/pool_view.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "child_process.hpp"
#include "stress/stress_payload.hpp"
#include "stress/stress_util.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

// The helper's payloads carry this type (tests/helpers/baton_stress_child.cpp).
const TypeInfo STRESS = TypeInfo::from_name(stress::STRESS_TYPE);

std::shared_ptr<Topic> open_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, STRESS);
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return t ? *t : nullptr;
}

std::unique_ptr<SubscriberPort> subscriber(const std::shared_ptr<Topic>& topic, std::uint32_t depth,
                                           Reliability reliability = Reliability::Reliable) {
  SubscriberOptions o;
  o.depth = depth;
  o.reliability = reliability;
  auto s = SubscriberPort::create(topic, o);
  EXPECT_TRUE(s);
  return s ? std::move(*s) : nullptr;
}

std::unique_ptr<PublisherPort> publisher(const std::shared_ptr<Topic>& topic, std::uint32_t depth,
                                         Reliability reliability = Reliability::Reliable) {
  PublisherOptions o;
  o.depth = depth;
  o.reliability = reliability;
  auto p = PublisherPort::create(topic, o);
  EXPECT_TRUE(p);
  return p ? std::move(*p) : nullptr;
}

// A topic with a subscriber, then a publisher that matched it (depth 8 each).
struct Attached {
  std::shared_ptr<Topic> topic;
  std::unique_ptr<SubscriberPort> sub;
  std::unique_ptr<PublisherPort> pub;
  explicit Attached(const std::string& stem, Reliability reliability = Reliability::Reliable)
      : topic(open_topic(testing::unique_name(stem))),
        sub(topic ? subscriber(topic, 8, reliability) : nullptr),
        pub(topic ? publisher(topic, 8, reliability) : nullptr) {}
  bool ok() const { return sub && pub; }
};

constexpr std::uint32_t WRITER = 7;  // the writer id of this process's payloads

void publish_numbered(PublisherPort& pub, std::uint64_t from, std::uint64_t to) {
  for (std::uint64_t n = from; n < to; ++n) {
    auto loan = pub.loan(64);
    ASSERT_TRUE(loan);
    stress::fill_payload(loan->data, 64, n, WRITER);
    ASSERT_TRUE(pub.publish(*loan, 64));
  }
}

// Takes until NoData; returns each message's own number (-1 for a payload that fails its check).
std::vector<std::int64_t> take_all(SubscriberPort& sub, std::uint32_t writer) {
  std::vector<std::int64_t> got;
  while (auto s = sub.take()) {
    std::uint64_t seq = 0;
    std::uint32_t w = 0;
    const bool ok = stress::check_payload(s->data(), s->size(), 1, &seq, &w) && w == writer;
    got.push_back(ok ? static_cast<std::int64_t>(seq) : -1);
  }
  return got;
}

std::vector<std::int64_t> numbers(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> v;
  for (std::int64_t n = from; n < to; ++n) v.push_back(n);
  return v;
}

// The names of one publisher's publisher segment and first data segment.
struct PublisherNames {
  std::string segment, data;
};
PublisherNames names_of(const Topic& topic, std::uint32_t slot, std::uint32_t generation) {
  return {topic.publisher_segment_name(slot, generation),
          memory::data_segment_name(topic.pool_name(slot, generation), 0)};
}

bool segment_exists(const std::string& name, shm::SegmentKind kind) {
  auto s = shm::Segment::open(name, kind, 0);
  return s || s.error().code != shm::SegmentOpenError::DoesNotExist;
}

// True if this process still maps a segment named `name` (/proc/self/maps lists an unlinked
// one as "/dev/shm/<name> (deleted)").
bool mapped_here(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const std::string file = "/dev/shm" + name;
  while (std::getline(maps, line)) {
    const auto at = line.find(file);
    if (at != std::string::npos) {
      const auto end = at + file.size();
      if (end == line.size() || line[end] == ' ') return true;
    }
  }
  return false;
}

TEST(PublisherDepartureTest, subscriber_takes_in_order_every_message_a_destroyed_publisher_left) {
  Attached t("left");
  ASSERT_TRUE(t.ok());
  auto& sub = t.sub;
  auto& pub = t.pub;
  publish_numbered(*pub, 0, 3);
  pub.reset();
  EXPECT_EQ(take_all(*sub, WRITER), numbers(0, 3));
  EXPECT_EQ(sub->publisher_count(), 0u);
  EXPECT_EQ(sub->lost(), 0u);
}

TEST(PublisherDepartureTest, subscriber_that_had_read_before_takes_the_rest_after_the_destroy) {
  Attached t("rest");
  ASSERT_TRUE(t.ok());
  auto& sub = t.sub;
  auto& pub = t.pub;
  publish_numbered(*pub, 0, 2);
  EXPECT_EQ(take_all(*sub, WRITER), numbers(0, 2));
  publish_numbered(*pub, 2, 6);
  pub.reset();
  EXPECT_EQ(take_all(*sub, WRITER), numbers(2, 6));
}

TEST(PublisherDepartureTest, best_effort_publisher_leaves_its_messages_to_a_subscriber_in_process) {
  Attached t("be", Reliability::BestEffort);
  ASSERT_TRUE(t.ok());
  auto& sub = t.sub;
  auto& pub = t.pub;
  publish_numbered(*pub, 0, 3);
  pub.reset();
  EXPECT_EQ(take_all(*sub, WRITER), numbers(0, 3));
}

TEST(PublisherDepartureTest, drained_publisher_is_gone_and_leaves_no_segment_nor_mapping) {
  Attached t("gone");
  ASSERT_TRUE(t.ok());
  auto& topic = t.topic;
  auto& sub = t.sub;
  auto& pub = t.pub;
  const PublisherNames names = names_of(*topic, pub->slot(), pub->generation());
  publish_numbered(*pub, 0, 3);
  pub.reset();
  EXPECT_FALSE(segment_exists(names.segment, shm::SegmentKind::Publisher));
  EXPECT_FALSE(segment_exists(names.data, shm::SegmentKind::Data));
  auto held = sub->take();  // a sample held across the end of the drain keeps its chunk readable
  ASSERT_TRUE(held);
  EXPECT_EQ(take_all(*sub, WRITER), numbers(1, 3));
  EXPECT_TRUE(mapped_here(names.data));
  std::uint64_t seq = 0;
  EXPECT_TRUE(stress::check_payload(held->data(), held->size(), 1, &seq));
  EXPECT_EQ(seq, 0u);
  held->release();
  EXPECT_FALSE(sub->take());
  EXPECT_FALSE(sub->has_data());
  EXPECT_EQ(sub->publisher_count(), 0u);
  EXPECT_FALSE(mapped_here(names.segment));
  EXPECT_FALSE(mapped_here(names.data));
}

TEST(PublisherDepartureTest, subscriber_destroyed_before_draining_releases_the_departed_pool) {
  Attached t("undrained");
  ASSERT_TRUE(t.ok());
  auto& topic = t.topic;
  auto& sub = t.sub;
  auto& pub = t.pub;
  const PublisherNames names = names_of(*topic, pub->slot(), pub->generation());
  publish_numbered(*pub, 0, 3);
  pub.reset();
  sub.reset();  // without having looked at the topic since
  EXPECT_FALSE(mapped_here(names.segment));
  EXPECT_FALSE(mapped_here(names.data));
}

TEST(PublisherDepartureTest, next_publisher_in_the_departed_ones_slot_is_read_after_the_drain) {
  Attached t("next");
  ASSERT_TRUE(t.ok());
  auto& topic = t.topic;
  auto& sub = t.sub;
  auto& first = t.pub;
  const std::uint32_t slot = first->slot();
  publish_numbered(*first, 0, 3);
  first.reset();
  auto second = publisher(topic, 8);  // the lowest free slot: the one just left
  ASSERT_TRUE(second);
  EXPECT_EQ(second->slot(), slot);
  publish_numbered(*second, 10, 12);
  EXPECT_EQ(take_all(*sub, WRITER), (std::vector<std::int64_t>{0, 1, 2, 10, 11}));
}

TEST(PublisherDepartureTest, wait_after_the_last_departed_message_sees_the_next_publisher) {
  Attached t("wait-next");
  ASSERT_TRUE(t.ok());
  auto& topic = t.topic;
  auto& sub = t.sub;
  auto& first = t.pub;
  publish_numbered(*first, 0, 2);
  first.reset();
  auto second = publisher(topic, 8);  // in the slot the first one left
  ASSERT_TRUE(second);
  publish_numbered(*second, 10, 11);
  for (std::uint64_t n = 0; n < 2; ++n) {  // exactly the departed publisher's messages
    auto s = sub->take();
    ASSERT_TRUE(s);
    std::uint64_t seq = 99;
    EXPECT_TRUE(stress::check_payload(s->data(), s->size(), 1, &seq));
    EXPECT_EQ(seq, n);
  }
  ASSERT_TRUE(sub->wait(30s));
  EXPECT_EQ(take_all(*sub, WRITER), numbers(10, 11));
}

// ---- across processes: tests/helpers/baton_stress_child "pubexit" publishes and exits ----

struct ExitingPublisher {
  test::ChildProcess child;
  ExitingPublisher(const std::string& topic, const char* reliability, int first, int count)
      : child({stress::helper_path("baton_stress_child"), "pubexit", topic, reliability,
               std::to_string(first), std::to_string(count), "30000"},
              {}) {}
  std::uint32_t writer() const { return static_cast<std::uint32_t>(child.pid()); }
};

TEST(PublisherDepartureTest,
     subscriber_receives_every_message_of_a_process_that_published_and_exited) {
  const auto name = testing::unique_name("exit");
  auto topic = open_topic(name);
  auto sub = subscriber(topic, 16);
  ASSERT_TRUE(sub);
  ExitingPublisher pub(name, "rel", 12, 0);
  const std::uint32_t writer = pub.writer();
  ASSERT_TRUE(pub.child.wait_for_output("A", 30s)) << pub.child.output();
  ASSERT_TRUE(pub.child.send_line("go"));
  // The subscriber watches (has_data, as a wait set does) but takes only once the child is gone.
  int code = -1;
  while (!pub.child.wait_exit(1ms, &code)) (void)sub->has_data();
  EXPECT_EQ(code, 0) << pub.child.output();
  EXPECT_EQ(take_all(*sub, writer), numbers(0, 12));
  EXPECT_EQ(sub->publisher_count(), 0u);
  EXPECT_FALSE(sub->has_data());
}

TEST(PublisherDepartureTest,
     reliable_publisher_exits_only_once_a_subscriber_that_had_not_mapped_it_did) {
  const auto name = testing::unique_name("linger");
  auto topic = open_topic(name);
  auto sub = subscriber(topic, 16);
  ASSERT_TRUE(sub);
  ExitingPublisher pub(name, "rel", 5, 0);
  ASSERT_TRUE(pub.child.wait_for_output("A", 30s)) << pub.child.output();
  ASSERT_TRUE(pub.child.send_line("go"));
  // The subscriber has not looked at the topic since the child's publisher appeared: it has
  // neither its segment nor its pool mapped when the child starts to leave.
  ASSERT_TRUE(pub.child.wait_for_output("P", 30s)) << pub.child.output();
  std::vector<std::int64_t> got;
  while (got.size() < 5 && sub->wait(30s)) {
    const auto more = take_all(*sub, pub.writer());
    got.insert(got.end(), more.begin(), more.end());
  }
  EXPECT_EQ(got, numbers(0, 5));
  int code = -1;
  ASSERT_TRUE(pub.child.wait_exit(30s, &code));
  EXPECT_EQ(code, 0) << pub.child.output();
}

TEST(PublisherDepartureTest,
     best_effort_process_leaves_its_messages_to_a_subscriber_that_mapped_it) {
  const auto name = testing::unique_name("be-exit");
  auto topic = open_topic(name);
  auto sub = subscriber(topic, 16, Reliability::BestEffort);
  ASSERT_TRUE(sub);
  ExitingPublisher pub(name, "be", 1, 6);
  const std::uint32_t writer = pub.writer();
  ASSERT_TRUE(pub.child.wait_for_output("A", 30s)) << pub.child.output();
  ASSERT_TRUE(pub.child.send_line("go"));
  ASSERT_TRUE(pub.child.wait_for_output("F", 30s)) << pub.child.output();
  // A best-effort publisher waits for nobody on its way out: what a subscriber can drain is what
  // it has mapped. Taking the first message maps the publisher and its pool.
  ASSERT_TRUE(sub->wait(30s));
  EXPECT_EQ(take_all(*sub, writer), numbers(0, 1));
  ASSERT_TRUE(pub.child.send_line("go"));
  int code = -1;
  ASSERT_TRUE(pub.child.wait_exit(30s, &code));
  EXPECT_EQ(code, 0) << pub.child.output();
  EXPECT_EQ(take_all(*sub, writer), numbers(1, 7));
}

}  // namespace
}  // namespace baton::topic
