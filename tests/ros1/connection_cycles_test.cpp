// 100 subscribe / receive / unsubscribe cycles of a baton ros1::Node leave no file descriptor and
// no thread behind (counted in /proc/self/fd and /proc/self/task): over TCPROS to a stock rospy
// talker, and over BATONSHM to a baton publisher in this process. Each cycle waits for a message
// on a condition variable; the counts are compared after a warm-up cycle (lazily made state). The
// nodes' shm Context has no janitor (see quiet_options), whose periodic reclaim would open files
// for a moment.
#include <dirent.h>

#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using test::GUARD;
using test::string_value;
using test::Strings;

constexpr int CYCLES = 100;

// Entries of a /proc directory, "." and ".." excluded.
size_t count_entries(const char* dir) {
  DIR* d = ::opendir(dir);
  if (d == nullptr) return 0;
  size_t n = 0;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") ++n;
  ::closedir(d);
  return n;
}

class Ros1Cycles : public test::Ros1Graph {
 protected:
  // Nodes whose BATONSHM endpoints share a Context without a janitor: its periodic reclaim opens
  // files for a moment (/proc/<pid>, segments), which a count could catch.
  NodeOptions quiet_options() {
    NodeOptions o = options();
    o.shm_context = shm_context_;
    return o;
  }
  std::shared_ptr<Context> shm_context_ =
      Context::create(ContextOptions{.janitor_period = std::chrono::milliseconds(0)});
  // Runs `cycle` once, then CYCLES times, and expects the fd and thread counts of before the
  // CYCLES runs afterwards.
  template <typename Cycle>
  void expect_no_leak(Cycle cycle) {
    cycle();
    if (HasFatalFailure()) return;
    const size_t fds = count_entries("/proc/self/fd"), threads = count_entries("/proc/self/task");
    for (int i = 0; i < CYCLES && !HasFatalFailure(); ++i) cycle();
    EXPECT_EQ(count_entries("/proc/self/fd"), fds);
    EXPECT_EQ(count_entries("/proc/self/task"), threads);
  }
};

TEST_F(Ros1Cycles, tcpros_cycles_with_a_rospy_talker_leave_no_fd_or_thread) {
  auto n = node("baton_tcpros_cycler", quiet_options());
  auto talker = core_->peer({"string-talker", topic_, "0"});  // 200 Hz, forever
  expect_no_leak([&] {
    Strings strings;
    strings.type = *n->types().message("std_msgs/String");
    auto sub = n->subscribe(topic_, "std_msgs/String", strings.sink());
    ASSERT_TRUE(sub) << sub.error().detail;
    ASSERT_TRUE(strings.wait_for_count(1)) << talker->output();
  });  // the subscription goes: unregistered, connection closed, its thread joined
}

TEST_F(Ros1Cycles, batonshm_cycles_with_a_baton_publisher_leave_no_fd_or_thread) {
  auto talker = node("baton_shm_cycle_talker", quiet_options());
  auto listener = node("baton_shm_cycle_listener", quiet_options());
  auto pub = talker->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub) << pub.error().detail;
  int sent = 0;
  expect_no_leak([&] {
    Strings strings;
    strings.type = *listener->types().message("std_msgs/String");
    auto sub = listener->subscribe(topic_, "std_msgs/String", strings.sink());
    ASSERT_TRUE(sub) << sub.error().detail;
    ASSERT_TRUE((*sub)->wait_for_publishers(1, GUARD));
    const std::string text = "cycle " + std::to_string(sent++);
    ASSERT_TRUE((*pub)->publish(string_value(text)));
    ASSERT_TRUE(strings.wait_for(text));
    std::lock_guard lock(strings.mutex);
    ASSERT_EQ(strings.transports.back(), "BATONSHM");
  });  // the subscription goes: port detached, reader thread joined
  EXPECT_EQ((*pub)->wire().stats().sent, 0u);
}

}  // namespace
}  // namespace baton::ros1
