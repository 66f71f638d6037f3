// The topic directory's lifetime (topic.hpp, protocol in topic_layout.hpp): removed when its last
// endpoint goes, kept while any live endpoint holds a slot, and an endpoint attaching to a
// directory that was closed under it reopens the topic by name instead of staying in the removed
// one. The multi-process race is tests/stress/topic_close_race_test.cpp.
#include <sys/wait.h>
#include <unistd.h>

#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

const TypeInfo BYTES = TypeInfo::from_name("test/msg/Bytes");

std::shared_ptr<Topic> open_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, BYTES);
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return t ? *t : nullptr;
}

bool directory_exists(const std::string& name) {
  return shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 0).has_value();
}

// A pid that is certainly not alive: a child that has exited and been reaped.
std::uint32_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<std::uint32_t>(child);
}

TEST(TopicLifecycle, close_of_directory_with_live_claim_keeps_it_open) {
  const auto name = testing::unique_name("keep");
  auto sut = open_topic(name);
  auto other = open_topic(name);  // a second handle: as another process would map it
  auto slot = sut->claim_publisher_slot();
  ASSERT_TRUE(slot);
  EXPECT_EQ(other->close_if_unused(), CloseVerdict::InUse);
  EXPECT_TRUE(sut->is_open());
  EXPECT_TRUE(directory_exists(name));
  sut->release_publisher(*slot);
}

TEST(TopicLifecycle, last_endpoint_gone_removes_the_directory) {
  const auto name = testing::unique_name("last");
  {
    auto topic = open_topic(name);
    auto pub = PublisherPort::create(topic, {});
    ASSERT_TRUE(pub) << pub.error().detail;
    auto sub = SubscriberPort::create(topic, {});
    ASSERT_TRUE(sub);
    topic.reset();
    EXPECT_TRUE(directory_exists(name));  // the ports hold it
    pub->reset();
    EXPECT_TRUE(directory_exists(name));  // the subscriber still does
  }
  EXPECT_FALSE(directory_exists(name));
}

TEST(TopicLifecycle, directory_stays_while_another_process_has_an_endpoint) {
  const auto name = testing::unique_name("other");
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  if (child == 0) {
    std::unique_ptr<SubscriberPort> sub;
    if (auto t = Topic::open_or_create(name, BYTES)) {
      if (auto s = SubscriberPort::create(*t, {})) sub = std::move(*s);
    }
    char c = sub ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);  // hold the subscriber until the parent has checked
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  open_topic(name).reset();  // our only handle, no endpoint: we must not remove theirs
  EXPECT_TRUE(directory_exists(name));
  (void)!::write(done[1], "x", 1);
  ::waitpid(child, nullptr, 0);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
  // The child exited without a word: its slot is a dead claim, which does not keep the directory.
  EXPECT_TRUE(remove_topic_if_unused(name));
  EXPECT_FALSE(directory_exists(name));
}

TEST(TopicLifecycle, claim_on_a_closed_directory_reopens_the_topic_by_name) {
  const auto name = testing::unique_name("reopen");
  auto stale = open_topic(name);
  auto closer = open_topic(name);
  ASSERT_EQ(closer->close_if_unused(), CloseVerdict::Removed);
  EXPECT_FALSE(stale->is_open());
  EXPECT_FALSE(directory_exists(name));
  // The bare claim reports it and leaves nothing claimed behind ...
  auto bare = stale->claim_publisher_slot();
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error(), TopicError::Closed);
  EXPECT_EQ(stale->header()->active_pubs[0].load(), 0u);
  EXPECT_EQ(slot_state(stale->publisher_slot(0)->state.load()), SlotState::Free);
  // ... and a port made from the stale handle attaches to a new directory under the name, where
  // a subscriber opened afresh meets it.
  auto pub = PublisherPort::create(stale, {});
  ASSERT_TRUE(pub) << pub.error().detail;
  EXPECT_NE(&(*pub)->topic(), stale.get());
  EXPECT_TRUE((*pub)->topic().is_open());
  auto sub = SubscriberPort::create(open_topic(name), {});
  ASSERT_TRUE(sub);
  EXPECT_EQ((*sub)->topic().publisher_count(), 1u);
  EXPECT_EQ((*pub)->subscriber_count(), 1u);
}

TEST(TopicLifecycle, directory_left_closed_by_a_dead_process_is_removed_by_the_next_opener) {
  const auto name = testing::unique_name("dead_closer");
  auto topic = open_topic(name);
  topic->header()->lifecycle.store(lifecycle_word(TopicLifecycle::Closed, dead_pid()));
  auto fresh = Topic::open_or_create(name, BYTES);
  ASSERT_TRUE(fresh) << fresh.error().detail;
  EXPECT_TRUE((*fresh)->is_open());
  // The opener took the dead closer's job over (Closed under its own pid) and unlinked it.
  const std::uint64_t w = topic->header()->lifecycle.load();
  EXPECT_EQ(lifecycle_state(w), TopicLifecycle::Closed);
  EXPECT_EQ(slot_pid(w), shm::self().pid);
  EXPECT_TRUE(directory_exists(name));
}

TEST(TopicLifecycle, directory_left_closing_by_a_dead_process_can_be_attached_again) {
  const auto name = testing::unique_name("dead_closing");
  auto topic = open_topic(name);
  auto keep = topic->claim_subscriber_slot();  // a live claim: the dead closer must not win
  ASSERT_TRUE(keep);
  topic->header()->lifecycle.store(lifecycle_word(TopicLifecycle::Closing, dead_pid()));
  auto pub = PublisherPort::create(open_topic(name), {});
  ASSERT_TRUE(pub) << pub.error().detail;
  // Same directory (our claim is there), given back to Open by the opener that took over.
  EXPECT_EQ(slot_state((*pub)->topic().subscriber_slot(*keep)->state.load()), SlotState::Claimed);
  EXPECT_TRUE(topic->is_open());
  topic->release_subscriber(*keep);
}

TEST(TopicLifecycle, directory_being_closed_by_a_live_process_is_left_to_it) {
  const auto name = testing::unique_name("busy");
  auto topic = open_topic(name);
  topic->header()->lifecycle.store(lifecycle_word(TopicLifecycle::Closing, shm::self().pid));
  // open_or_create waits for the closer, then gives up naming it (the closer is this very test).
  auto other = Topic::open_or_create(name, BYTES);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, TopicError::SegmentFailure);
  EXPECT_NE(other.error().detail.find("being removed by process " + std::to_string(::getpid())),
            std::string::npos)
      << other.error().detail;
  topic->header()->lifecycle.store(lifecycle_word(TopicLifecycle::Open, 0));
}

}  // namespace
}  // namespace baton::topic
