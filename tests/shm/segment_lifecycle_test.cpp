// The shm layer's removal rules (segment_lifecycle.hpp, Segment::unlink_if_same,
// Segment::remove_if_stale) on bare Test segments; topic directories and the graph registry use
// them (tests/topic/lifecycle_test.cpp, tests/graph/registry_lifecycle_test.cpp).
#include "baton/shm/segment_lifecycle.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "test_util.hpp"

namespace baton::shm {
namespace {

// A Test segment whose body starts with the two lifecycle words.
struct Body {
  std::atomic<std::uint64_t> lifecycle;
  std::atomic<std::uint64_t> closer_start_time;
};
constexpr std::uint64_t BODY_AT = sizeof(SegmentHeader);

std::string fresh_name() { return segment_name("test", testing::unique_name("lc")); }

Segment make(const std::string& name) {
  auto s = Segment::create(name, 4096, SegmentKind::Test);
  EXPECT_TRUE(s) << (s ? "" : s.error().detail);
  s->mark_ready();
  return std::move(*s);
}

SegmentLifecycle lifecycle_of(const Segment& s) {
  auto* b = s.at<Body>(BODY_AT);
  return SegmentLifecycle(b->lifecycle, b->closer_start_time);
}

bool exists(const std::string& name) {
  return Segment::open(name, SegmentKind::Test, 0).has_value();
}

std::uint32_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<std::uint32_t>(child);
}

TEST(SegmentLifecycleTest, remove_if_stale_with_bad_name_returns_false) {
  EXPECT_FALSE(Segment::remove_if_stale("no-slash"));
}

TEST(SegmentLifecycleTest, close_with_a_live_claim_keeps_the_segment_open) {
  const auto name = fresh_name();
  Segment sut = make(name);
  EXPECT_EQ(lifecycle_of(sut).close_if_unused(sut, [] { return true; }), CloseVerdict::InUse);
  EXPECT_TRUE(lifecycle_of(sut).is_open());
  EXPECT_TRUE(lifecycle_of(sut).admits_claim());
  EXPECT_EQ(sut.at<Body>(BODY_AT)->closer_start_time.load(), 0u);  // zeroed on reopening
  EXPECT_TRUE(exists(name));
  sut.unlink();
}

TEST(SegmentLifecycleTest, close_without_claims_removes_and_refuses_later_claims) {
  const auto name = fresh_name();
  Segment sut = make(name);
  EXPECT_EQ(lifecycle_of(sut).close_if_unused(sut, [] { return false; }), CloseVerdict::Removed);
  EXPECT_FALSE(exists(name));
  EXPECT_FALSE(lifecycle_of(sut).admits_claim());
  EXPECT_EQ(lifecycle_of(sut).closer_pid(), self().pid);
  // A second close (our own, alive) is left to the holder of Closed.
  EXPECT_EQ(lifecycle_of(sut).close_if_unused(sut, [] { return false; }), CloseVerdict::Busy);
}

TEST(SegmentLifecycleTest, unlink_if_same_leaves_a_successor_under_the_name_alone) {
  const auto name = fresh_name();
  Segment old = make(name);
  ASSERT_TRUE(old.unlink());
  Segment successor = make(name);
  EXPECT_FALSE(old.unlink_if_same());
  EXPECT_TRUE(exists(name));
  EXPECT_TRUE(successor.unlink_if_same());
  EXPECT_FALSE(exists(name));
}

// A closer that unlinked and then died leaves Closed(dead pid); whoever takes over must not
// remove the segment created under the name since (it used to unlink by name).
TEST(SegmentLifecycleTest, takeover_of_a_dead_closers_closed_segment_spares_the_successor) {
  const auto name = fresh_name();
  Segment old = make(name);
  old.at<Body>(BODY_AT)->lifecycle.store(lifecycle_word(LifecycleState::Closed, dead_pid()));
  ASSERT_TRUE(old.unlink());
  Segment successor = make(name);
  EXPECT_EQ(lifecycle_of(old).close_if_unused(old, [] { return false; }), CloseVerdict::Removed);
  EXPECT_EQ(lifecycle_of(old).closer_pid(), self().pid);
  EXPECT_TRUE(exists(name));
  successor.unlink();
}

TEST(SegmentLifecycleTest, closing_wait_waits_out_a_live_closer_and_names_it) {
  const auto name = fresh_name();
  Segment sut = make(name);
  sut.at<Body>(BODY_AT)->lifecycle.store(lifecycle_word(LifecycleState::Closing, self().pid));
  ClosingWait wait;
  EXPECT_TRUE(wait.settle(sut, lifecycle_of(sut), [] { return false; }));
  EXPECT_EQ(wait.busy_closer(), self().pid);
  EXPECT_TRUE(exists(name));
  // A dead closer's job is finished instead, and that round counts as an attempt.
  sut.at<Body>(BODY_AT)->lifecycle.store(lifecycle_word(LifecycleState::Closing, dead_pid()));
  ClosingWait after_death;
  EXPECT_FALSE(after_death.settle(sut, lifecycle_of(sut), [] { return false; }));
  EXPECT_FALSE(exists(name));
}

// Creates `name` in a child that dies before mark_ready().
void create_stale(const std::string& name) {
  pid_t child = ::fork();
  if (child == 0) {
    auto s = Segment::create(name, 4096, SegmentKind::Test);
    std::_Exit(s ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
}

TEST(SegmentLifecycleTest, remove_if_stale_removes_a_dead_creators_unfinished_segment) {
  const auto name = fresh_name();
  create_stale(name);
  auto opened = Segment::open(name, SegmentKind::Test, 0);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, SegmentOpenError::Stale);
  EXPECT_TRUE(Segment::remove_if_stale(name));
  EXPECT_EQ(Segment::open(name, SegmentKind::Test, 0).error().code, SegmentOpenError::DoesNotExist);
}

TEST(SegmentLifecycleTest, remove_if_stale_keeps_ready_and_live_creators_segments) {
  const auto ready = fresh_name();
  Segment sut = make(ready);
  EXPECT_FALSE(Segment::remove_if_stale(ready));
  EXPECT_TRUE(exists(ready));
  sut.unlink();
  const auto creating = fresh_name();
  auto unfinished = Segment::create(creating, 4096, SegmentKind::Test);  // we are alive
  ASSERT_TRUE(unfinished);
  EXPECT_FALSE(Segment::remove_if_stale(creating));
  unfinished->mark_ready();
  EXPECT_TRUE(exists(creating));
  unfinished->unlink();
}

TEST(SegmentLifecycleTest, remove_if_stale_takes_over_from_a_dead_remover_only) {
  const auto name = fresh_name();
  create_stale(name);
  // A live remover (this process) holds the right: a second remover backs off.
  {
    int fd = ::shm_open(name.c_str(), O_RDWR, 0);
    ASSERT_GE(fd, 0);
    void* p = ::mmap(nullptr, sizeof(SegmentHeader), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    ASSERT_NE(p, MAP_FAILED);
    auto* h = static_cast<SegmentHeader*>(p);
    h->ready.store(stale_removal_ready(self().pid));
    EXPECT_FALSE(Segment::remove_if_stale(name));
    EXPECT_EQ(Segment::open(name, SegmentKind::Test, 0).error().code, SegmentOpenError::Stale);
    h->ready.store(stale_removal_ready(dead_pid()));
    EXPECT_TRUE(Segment::remove_if_stale(name));
    EXPECT_EQ(h->ready.load(), stale_removal_ready(self().pid));
    ::munmap(p, sizeof(SegmentHeader));
  }
  EXPECT_EQ(Segment::open(name, SegmentKind::Test, 0).error().code, SegmentOpenError::DoesNotExist);
}

}  // namespace
}  // namespace baton::shm
