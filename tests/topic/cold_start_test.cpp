// No cold start (issue 20): a subscriber in another process pre-maps a publisher's committed
// chunks — their control words and first payload page — when it attaches and while it waits, so
// its first take of each chunk takes no page fault (memory/pool_prefault.hpp). Checked through
// /proc/self/pagemap (premapped_pages.hpp).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "premapped_pages.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;
using testing::Pipe;

const TypeInfo BYTES = TypeInfo::from_name("test/msg/Bytes");
constexpr std::uint64_t KiB = 1024;
// Pre-mapping a chunk's first page may bring in more than that page: 64 KiB around it
// (fault-around, as on a first touch), or the whole 2 MiB huge page holding it where the host
// backs shared memory with transparent huge pages (shmem_enabled). A page 2 MiB past the chunk's
// start is beyond both, so it stays unmapped on any host.
constexpr std::uint64_t kChunk = 4 * 1024 * KiB;
constexpr std::uint32_t kDepth = 8;
constexpr std::uint32_t kChunks = kDepth + 2;

// A publisher in a child process: created, then (after 'r' on `go`, or at once if
// `reserve_at_once`) reserve(kChunk, kChunks); says 'p' when created and 'd' when reserved, exits
// on 'q'.
pid_t start_publisher(const std::string& name, const Pipe& to_child, const Pipe& from_child,
                      bool reserve_at_once) {
  const pid_t child = ::fork();
  if (child != 0) return child;
  auto t = Topic::open_or_create(name, BYTES);
  if (!t) std::_Exit(2);
  PublisherOptions o;
  o.depth = kDepth;
  auto pub = PublisherPort::create(*t, o);
  if (!pub) std::_Exit(3);
  from_child.put('p');
  if (!reserve_at_once && to_child.get() != 'r') std::_Exit(4);
  if (!(*pub)->reserve(kChunk, kChunks)) std::_Exit(5);
  from_child.put('d');
  if (to_child.get() != 'q') std::_Exit(6);
  std::_Exit(0);
}

// The pre-mapped pages (premapped_pages.hpp), then the child publisher is told to exit and must
// exit cleanly.
void expect_premapped_then_stop(const Topic& topic, pid_t child, const Pipe& to_child) {
  testing::expect_reserved_chunks_premapped(testing::pages_mapped(topic, kChunks, kChunk));
  to_child.put('q');
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(ColdStartTest, a_subscriber_attaching_to_a_reserved_publisher_premaps_its_chunks) {
  const auto name = testing::unique_name("cold");
  auto topic = Topic::open_or_create(name, BYTES);
  ASSERT_TRUE(topic);
  Pipe to_child, from_child;
  const pid_t child = start_publisher(name, to_child, from_child, true);
  ASSERT_EQ(from_child.get(), 'p');
  ASSERT_EQ(from_child.get(), 'd');
  SubscriberOptions so;
  so.depth = kDepth;
  auto sub = SubscriberPort::create(*topic, so);  // attaches: nothing taken yet
  ASSERT_TRUE(sub);
  expect_premapped_then_stop(**topic, child, to_child);
}

// Each wait mode's idle time pre-maps: the blocking wait before it sleeps, a busy-poll or
// adaptive spin before it spins (a busy-poll subscriber never sleeps; its first take of a chunk
// committed after it attached faulted before).
class ColdStartWaitTest : public ::testing::TestWithParam<WaitMode> {};

TEST_P(ColdStartWaitTest,
       chunks_committed_after_attaching_are_premapped_while_the_subscriber_waits) {
  const auto name = testing::unique_name("cold");
  auto topic = Topic::open_or_create(name, BYTES);
  ASSERT_TRUE(topic);
  Pipe to_child, from_child;
  const pid_t child = start_publisher(name, to_child, from_child, false);
  ASSERT_EQ(from_child.get(), 'p');
  SubscriberOptions so;
  so.depth = kDepth;
  so.wait_mode = GetParam();
  auto sub = SubscriberPort::create(*topic, so);  // attaches to a publisher with no pool yet
  ASSERT_TRUE(sub);
  to_child.put('r');
  ASSERT_EQ(from_child.get(), 'd');
  EXPECT_FALSE((*sub)->wait(1ms));  // nothing published: the wait is idle time
  expect_premapped_then_stop(**topic, child, to_child);
}

INSTANTIATE_TEST_SUITE_P(WaitModes, ColdStartWaitTest,
                         ::testing::Values(WaitMode::Blocking, WaitMode::BusyPoll,
                                           WaitMode::Adaptive),
                         [](const auto& info) { return testing::wait_mode_name(info.param); });

}  // namespace
}  // namespace baton::topic
