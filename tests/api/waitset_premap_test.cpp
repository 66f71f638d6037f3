// No cold start through a WaitSet (issue 20): an executor's subscriptions pre-map the chunks their
// publishers commit after they attached, in the wait's idle time, as SubscriberPort::wait does
// (tests/topic/cold_start_test.cpp); before, a WaitSet never did, in any wait mode, and the first
// take of each such chunk faulted. Checked through /proc/self/pagemap (premapped_pages.hpp).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "api/api_test_types.hpp"
#include "premapped_pages.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;
using testing::Pipe;

const topic::TypeInfo BYTES = topic::TypeInfo::from_name("test/msg/Bytes");
constexpr std::uint64_t kChunk = 4ull << 20;  // 1 MiB or more: reserve() commits one chunk
constexpr std::uint32_t kDepth = 8;
constexpr std::uint32_t kChunks = kDepth + 2;

// A publisher node in a child process (forked before this process makes a context, so no thread
// is forked): created, then on 'r' reserve(kChunk, kChunks); says 'p' when created and 'd' when
// reserved, exits on 'q'.
pid_t start_publisher(const std::string& topic, const Pipe& to_child, const Pipe& from_child) {
  const pid_t child = ::fork();
  if (child != 0) return child;
  auto ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});
  Node node(ctx, "premap_publisher");
  auto pub = node.raw_publisher(topic, BYTES).qos(QoS(kDepth)).max_message_size(kChunk).create();
  if (!pub) std::_Exit(3);
  from_child.put('p');
  if (to_child.get() != 'r') std::_Exit(4);
  if (!pub->reserve(kChunk, kChunks)) std::_Exit(5);
  from_child.put('d');
  if (to_child.get() != 'q') std::_Exit(6);
  std::_Exit(0);
}

class WaitSetPremapTest : public ::testing::TestWithParam<WaitMode> {};

TEST_P(WaitSetPremapTest, chunks_committed_after_attaching_are_premapped_while_the_set_waits) {
  const std::string topic = testing::unique_name("wspremap");
  Pipe to_child, from_child;
  const pid_t child = start_publisher(topic, to_child, from_child);
  ASSERT_EQ(from_child.get(), 'p');
  auto ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});
  Node node(ctx, "premap_subscriber");
  auto sub = node.raw_subscription(topic, BYTES).qos(QoS(kDepth)).create();
  ASSERT_TRUE(sub);
  ASSERT_EQ((*sub)->publisher_count(), 1u);  // attached to a publisher with no pool yet
  WaitSetOptions options;
  options.wait_mode = GetParam();
  WaitSet sut(options);
  ASSERT_TRUE(sut.add_subscription(*sub));
  to_child.put('r');
  ASSERT_EQ(from_child.get(), 'd');
  EXPECT_EQ(sut.wait(1ms).kind, WaitResultKind::Timeout);  // nothing published: idle time
  testing::expect_reserved_chunks_premapped(
      testing::pages_mapped((*sub)->port().topic(), kChunks, kChunk));
  to_child.put('q');
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

INSTANTIATE_TEST_SUITE_P(WaitModes, WaitSetPremapTest,
                         ::testing::Values(WaitMode::Blocking, WaitMode::BusyPoll,
                                           WaitMode::Adaptive),
                         [](const auto& info) { return testing::wait_mode_name(info.param); });

}  // namespace
}  // namespace baton
