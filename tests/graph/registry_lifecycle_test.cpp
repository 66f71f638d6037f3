// The registry segment's lifetime (registry.hpp, protocol in registry_layout.hpp and
// shm/segment_lifecycle.hpp): removed when its last participant leaves, kept while any live
// participant is registered in any process, a participant registering in a registry closed
// under it is refused (and Context reopens by name), a closer that died mid-close is taken over,
// and `baton clean` keeps a registry whose creator died while others still use it. The
// multi-process race is tests/stress/registry_close_race_test.cpp.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baton/graph/cleanup.hpp"
#include "baton/graph/registry.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "test_util.hpp"

namespace baton::graph {
namespace {

using shm::CloseVerdict;
using shm::LifecycleState;

class RegistryLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options.name = testing::unique_name("lifecycle");
    options.ready_timeout_ms = 50;
    seg_name = shm::segment_name("g", options.name);
  }
  void TearDown() override { shm::Segment::unlink(seg_name); }

  std::shared_ptr<Registry> open() {
    auto r = Registry::open_or_create(options);
    EXPECT_TRUE(r) << (r ? "" : r.error().detail);
    return r ? *r : nullptr;
  }
  bool registry_exists() const {
    return shm::Segment::open(seg_name, shm::SegmentKind::Graph, 0).has_value();
  }
  static RegistryHeader* header_of(const Registry& r) {
    return r.segment().at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  }
  const SegmentInfo* listed(const std::vector<SegmentInfo>& all) const {
    for (const auto& s : all) {
      if (s.name == seg_name) return &s;
    }
    return nullptr;
  }

  RegistryOptions options;
  std::string seg_name;
};

// A child process that holds a registration until told to go. `how` 'e' = exit normally (its
// handles unregister), 'k' = _exit without a word (a dead participant is left behind).
class ChildParticipant {
 public:
  explicit ChildParticipant(const RegistryOptions& options) {
    if (::pipe(ready_) != 0 || ::pipe(go_) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      char c = 'n';
      {
        auto reg = Registry::open_or_create(options);
        std::shared_ptr<ParticipantHandle> me;
        if (reg) {
          if (auto p = (*reg)->register_participant()) me = *p;
        }
        c = me ? 'y' : 'n';
        (void)!::write(ready_[1], &c, 1);
        (void)!::read(go_[0], &c, 1);
        if (c == 'k') std::_Exit(0);
      }
      std::_Exit(0);  // after the handles went: the registry may go with them
    }
  }
  ~ChildParticipant() { finish('k'); }
  bool registered() {
    char c = 0;
    return pid_ > 0 && ::read(ready_[0], &c, 1) == 1 && c == 'y';
  }
  void finish(char how) {
    if (pid_ <= 0) return;
    (void)!::write(go_[1], &how, 1);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    for (int fd : {ready_[0], ready_[1], go_[0], go_[1]}) ::close(fd);
  }

 private:
  pid_t pid_ = -1;
  int ready_[2] = {-1, -1};
  int go_[2] = {-1, -1};
};

// A pid that is certainly not alive: a child that has exited and been reaped.
std::uint32_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<std::uint32_t>(child);
}

TEST_F(RegistryLifecycleTest, close_with_a_live_participant_keeps_the_registry) {
  auto sut = open();
  auto other = open();  // a second mapping, as another process would have
  auto me = sut->register_participant();
  ASSERT_TRUE(me);
  EXPECT_EQ(other->close_if_unused(), CloseVerdict::InUse);
  EXPECT_TRUE(sut->is_open());
  EXPECT_TRUE(registry_exists());
}

TEST_F(RegistryLifecycleTest, last_participant_leaving_removes_the_registry) {
  auto sut = open();
  {
    auto me = sut->register_participant();
    ASSERT_TRUE(me);
    auto node = sut->register_node(*me, "n", "/");
    ASSERT_TRUE(node);
    auto second = sut->register_participant();
    ASSERT_TRUE(second);
    second->reset();
    EXPECT_TRUE(registry_exists());  // `me` is still there
  }
  EXPECT_FALSE(registry_exists());
  EXPECT_FALSE(sut->is_open());
  // A reader holding the removed registry keeps a valid mapping: it just sees an empty graph.
  auto snap = sut->snapshot();
  EXPECT_TRUE(snap.nodes.empty());
  EXPECT_TRUE(snap.participants.empty());
  EXPECT_TRUE(snap.issues.empty());
}

TEST_F(RegistryLifecycleTest, reader_without_participants_removes_what_it_created) {
  open().reset();  // e.g. `baton node list` in a namespace nobody uses
  EXPECT_FALSE(registry_exists());
}

TEST_F(RegistryLifecycleTest, registry_stays_while_another_process_has_a_participant) {
  auto sut = open();  // we create it; the child only joins
  ChildParticipant child(options);
  ASSERT_TRUE(child.registered());
  {
    auto me = sut->register_participant();
    ASSERT_TRUE(me);
  }
  sut.reset();  // our last handle, with no participant of ours left: theirs keeps it
  EXPECT_TRUE(registry_exists());
  child.finish('e');  // its participant leaves last: it removes the registry
  EXPECT_FALSE(registry_exists());
}

TEST_F(RegistryLifecycleTest, dead_participants_do_not_keep_the_registry) {
  auto sut = open();
  ChildParticipant child(options);
  ASSERT_TRUE(child.registered());
  child.finish('k');  // dies registered
  EXPECT_EQ(sut->close_if_unused(), CloseVerdict::Removed);
  EXPECT_FALSE(registry_exists());
}

TEST_F(RegistryLifecycleTest, register_in_a_closed_registry_returns_closed_and_leaves_nothing) {
  auto stale = open();
  auto closer = open();
  ASSERT_EQ(closer->close_if_unused(), CloseVerdict::Removed);
  EXPECT_FALSE(stale->is_open());
  auto sut = stale->register_participant();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, RegisterError::Closed);
  EXPECT_NE(sut.error().detail.find("removed"), std::string::npos) << sut.error().detail;
  for (std::uint32_t i = 0; i < MAX_PARTICIPANTS; ++i) {
    const auto* e =
        stale->segment().at<ParticipantEntry>(RegistrySegmentLayout::participants_offset) + i;
    ASSERT_EQ(entry_state(e->state.load()), EntryState::Free) << i;
    ASSERT_EQ(e->start_time.load(), 0u) << i;
  }
  // Opening by name again gives a new registry where registering works.
  auto fresh = open();
  ASSERT_TRUE(fresh->is_open());
  auto me = fresh->register_participant();
  EXPECT_TRUE(me);
  EXPECT_TRUE(registry_exists());
}

TEST_F(RegistryLifecycleTest, new_registry_under_the_name_never_repeats_an_old_epoch) {
  auto old = open();
  const std::uint64_t cached = old->epoch();
  ASSERT_EQ(old->close_if_unused(), CloseVerdict::Removed);
  auto fresh = open();
  EXPECT_NE(fresh->epoch(), cached);
  EXPECT_TRUE(fresh->snapshot_if_changed(cached));
}

// The state a closer leaves when SIGKILLed between its CAS to Closing and its verdict.
TEST_F(RegistryLifecycleTest, closer_killed_while_closing_is_taken_over_by_the_next_opener) {
  auto sut = open();
  pid_t child = ::fork();
  if (child == 0) {
    auto reg = Registry::open_or_create(options);
    if (!reg) std::_Exit(2);
    RegistryHeader* h = header_of(**reg);
    std::uint64_t open_word = 0;
    const shm::ParticipantId me = shm::self();
    if (!h->lifecycle.compare_exchange_strong(open_word,
                                              shm::lifecycle_word(LifecycleState::Closing, me.pid)))
      std::_Exit(3);
    h->closer_start_time.store(me.start_time);
    ::raise(SIGKILL);
    std::_Exit(4);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit code " << WEXITSTATUS(status);
  EXPECT_FALSE(sut->is_open());
  // The opener finishes the dead closer's job (nobody is registered) and creates a new registry.
  auto fresh = open();
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(fresh->is_open());
  const std::uint64_t w = header_of(*sut)->lifecycle.load();
  EXPECT_EQ(shm::lifecycle_state(w), LifecycleState::Closed);
  EXPECT_EQ(shm::lifecycle_pid(w), shm::self().pid);
  auto me = fresh->register_participant();
  EXPECT_TRUE(me);
  EXPECT_TRUE(registry_exists());
}

TEST_F(RegistryLifecycleTest, closing_left_by_a_dead_closer_over_a_live_participant_reopens) {
  auto sut = open();
  auto me = sut->register_participant();  // a live participant: the dead closer must not win
  ASSERT_TRUE(me);
  header_of(*sut)->lifecycle.store(shm::lifecycle_word(LifecycleState::Closing, dead_pid()));
  auto again = open();
  ASSERT_TRUE(again);
  EXPECT_TRUE(sut->is_open());  // the same registry, given back to Open
  EXPECT_EQ(again->snapshot().participants.size(), 1u);
}

TEST_F(RegistryLifecycleTest, closed_left_by_a_dead_closer_is_unlinked_by_the_next_opener) {
  auto sut = open();
  header_of(*sut)->lifecycle.store(shm::lifecycle_word(LifecycleState::Closed, dead_pid()));
  auto fresh = open();
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(fresh->is_open());
  EXPECT_EQ(shm::lifecycle_pid(header_of(*sut)->lifecycle.load()), shm::self().pid);
  auto me = fresh->register_participant();
  ASSERT_TRUE(me);
  // The old mapping is no longer under the name: registering there is refused.
  auto stale = sut->register_participant();
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, RegisterError::Closed);
}

TEST_F(RegistryLifecycleTest, registry_being_closed_by_a_live_process_is_left_to_it) {
  auto sut = open();
  header_of(*sut)->lifecycle.store(shm::lifecycle_word(LifecycleState::Closing, shm::self().pid));
  // open_or_create waits for the closer, then gives up naming it (the closer is this very test).
  auto other = Registry::open_or_create(options);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, RegistryOpenError::Contention);
  EXPECT_NE(other.error().detail.find("being removed by process " + std::to_string(::getpid())),
            std::string::npos)
      << other.error().detail;
  header_of(*sut)->lifecycle.store(shm::lifecycle_word(LifecycleState::Open, 0));
}

TEST_F(RegistryLifecycleTest, clean_keeps_a_registry_whose_creator_died_while_others_use_it) {
  ChildParticipant creator(options);  // creates the registry and registers
  ASSERT_TRUE(creator.registered());
  auto sut = open();
  auto me = sut->register_participant();
  ASSERT_TRUE(me);
  creator.finish('k');  // the creator dies; we are a live participant that did not create it
  const SegmentInfo* info = nullptr;
  auto all = list_segments();
  info = listed(all);
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->creator_alive);
  EXPECT_TRUE(info->in_use);
  EXPECT_TRUE(info->problem.empty()) << info->problem;
  auto report = clean_segments(/*dry_run=*/false, /*remove_corrupt=*/false);
  EXPECT_NE(listed(report.kept), nullptr);
  EXPECT_EQ(listed(report.removed), nullptr);
  EXPECT_TRUE(registry_exists());
  EXPECT_TRUE(sut->is_open());
  // Once we leave, only a dead participant is left: clean removes it through the protocol.
  me->reset();
  sut.reset();
  EXPECT_FALSE(registry_exists());  // we were the last live participant
}

TEST_F(RegistryLifecycleTest, clean_removes_a_registry_left_with_dead_participants_only) {
  ChildParticipant creator(options);
  ASSERT_TRUE(creator.registered());
  creator.finish('k');
  ASSERT_TRUE(registry_exists());
  auto all = list_segments();
  const SegmentInfo* info = listed(all);
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->in_use);
  auto report = clean_segments(/*dry_run=*/false, /*remove_corrupt=*/false);
  EXPECT_NE(listed(report.removed), nullptr);
  EXPECT_FALSE(registry_exists());
}

}  // namespace
}  // namespace baton::graph
