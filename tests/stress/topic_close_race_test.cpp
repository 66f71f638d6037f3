// Attach / detach race on one topic directory (protocol in topic_layout.hpp): several processes
// each repeatedly open the topic, attach a publisher or a subscriber, and drop everything again,
// so the last one out removes the directory while others are attaching. Invariant checked on
// every attach: the directory under the topic's name is the one holding this process's claim —
// never a removed one, so two processes can never be in different directories of one topic.
// Afterwards no directory is left. Reopen counts go to stdout.
//
// BATON_STRESS_ROUNDS overrides the attaches per process (default 4000).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

using topic::PublisherPort;
using topic::SubscriberPort;
using topic::Topic;

constexpr int PROCESSES = 4;

// The slot word `slot` has in the directory currently linked under `name`, or 0 if none is.
template <typename SlotT>
std::uint64_t linked_slot_word(const std::string& name, std::uint32_t slot) {
  auto seg = shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 50);
  if (!seg) return 0;
  return seg->at<SlotT>(topic::TopicSegmentLayout::slot_offset<SlotT>(slot))
      ->state.load(std::memory_order_acquire);
}

// One child: `rounds` attaches. Exit code: 0, 1 = invariant broken, 2 = an attach failed.
int churn(const std::string& name, int rounds, int id) {
  const auto type = topic::TypeInfo::from_name("stress/msg/Churn");
  const std::uint64_t mine = topic::slot_word(topic::SlotState::Active, shm::self().pid);
  int reopened = 0;
  for (int i = 0; i < rounds; ++i) {
    auto t = Topic::open_or_create(name, type);
    if (!t) {
      std::fprintf(stderr, "open: %s\n", t.error().detail.c_str());
      return 2;
    }
    std::uint64_t word = 0;
    if ((i + id) % 2 == 0) {
      auto pub = PublisherPort::create(*t, {});
      if (!pub) {
        std::fprintf(stderr, "publisher: %s\n", pub.error().detail.c_str());
        return 2;
      }
      reopened += &(*pub)->topic() != t->get();
      word = linked_slot_word<topic::PublisherSlot>(name, (*pub)->slot());
    } else {
      auto sub = SubscriberPort::create(*t, {});
      if (!sub) {
        std::fprintf(stderr, "subscriber: %s\n", sub.error().detail.c_str());
        return 2;
      }
      reopened += &(*sub)->topic() != t->get();
      word = linked_slot_word<topic::SubscriberSlot>(name, (*sub)->slot());
    }
    if (word != mine) {
      std::fprintf(stderr, "round %d: our endpoint is not in the linked directory\n", i);
      return 1;
    }
  }
  std::printf("process %d: %d attaches, %d reopened a directory closed under them\n", id, rounds,
              reopened);
  std::fflush(stdout);
  return 0;
}

TEST(TopicCloseRace, attaching_while_the_last_endpoint_leaves_never_splits_the_topic) {
  ScopedNamespace ns("close-race");
  const char* env = std::getenv("BATON_STRESS_ROUNDS");
  const int rounds = env != nullptr ? std::atoi(env) : 4000;
  const std::string name = "/churn";
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  pid_t children[PROCESSES];
  for (int c = 0; c < PROCESSES; ++c) {
    children[c] = ::fork();
    if (children[c] == 0) {
      ::close(start[1]);
      char go = 0;
      (void)!::read(start[0], &go, 1);  // all start together, so their attaches overlap
      std::_Exit(churn(name, rounds, c));
    }
  }
  ::close(start[0]);
  ::close(start[1]);  // EOF releases every child at once
  for (int c = 0; c < PROCESSES; ++c) {
    int status = 0;
    ::waitpid(children[c], &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << c << " died";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << c << " (1: invariant, 2: attach failed)";
  }
  EXPECT_FALSE(
      shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 0).has_value())
      << "the last endpoint left, the directory stayed";
}

}  // namespace
}  // namespace baton::stress
