// The janitors of the processes on a topic take turns (Topic::reclaim_dead_if_due): a periodic
// pass runs only if no janitor ran one on the topic within the last half period, so N processes
// no longer make N passes of N liveness checks each per period. Here two handles on one topic
// stand in for two processes' janitors; a slot claimed by a reaped child's pid is the dead owner.
// The turn itself (half a period, a time from the future) is tests/shm/periodic_turn_test.cpp.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "baton/topic/topic.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

const TypeInfo BYTES = TypeInfo::from_name("test/msg/Bytes");

std::shared_ptr<Topic> open_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, BYTES);
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return t ? *t : nullptr;
}

// A pid that is certainly not alive: a child that has exited and been reaped.
std::uint32_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<std::uint32_t>(child);
}

// Marks subscriber slot `k` active and owned by a dead process, as a crash would leave it: claimed
// the way a subscriber claims it (lowest free first; the claim commits the slot's page and moves
// the directory's slot limit past it), then handed to the dead pid. The slots below it that
// were claimed on the way are given back.
void plant_dead_subscriber(Topic& t, std::uint32_t k) {
  std::vector<std::uint32_t> on_the_way;
  for (;;) {
    auto slot = t.claim_subscriber_slot();
    ASSERT_TRUE(slot);
    if (*slot == k) break;
    on_the_way.push_back(*slot);
  }
  t.subscriber_slot(k)->state.store(slot_word(SlotState::Active, dead_pid()));
  for (std::uint32_t s : on_the_way) t.release_subscriber(s);
}

TEST(JanitorTurnsTest, a_pass_by_one_janitor_makes_the_others_skip_the_topic_until_due) {
  const auto name = testing::unique_name("turns");
  auto mine = open_topic(name);
  auto theirs = open_topic(name);  // another process's janitor would map the same directory
  ASSERT_TRUE(mine && theirs);
  plant_dead_subscriber(*mine, 7);
  EXPECT_EQ(theirs->reclaim_dead_if_due(1h), 1u);  // due: its pass reclaims the slot
  plant_dead_subscriber(*mine, 8);
  EXPECT_EQ(mine->reclaim_dead_if_due(1h), 0u);  // ran on this topic just now: skipped
  EXPECT_EQ(slot_state(mine->subscriber_slot(8)->state.load()), SlotState::Active);
  EXPECT_EQ(mine->reclaim_dead(), 1u);  // an explicit pass is never skipped
  EXPECT_EQ(slot_state(mine->subscriber_slot(8)->state.load()), SlotState::Free);
}

}  // namespace
}  // namespace baton::topic
