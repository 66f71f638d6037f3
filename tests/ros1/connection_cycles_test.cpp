// 100 subscribe / receive / unsubscribe cycles of a baton ros1::Node leave no file descriptor and
// no thread behind (counted in /proc/self/fd and /proc/self/task): over TCPROS to a stock rospy
// talker, and over BATONSHM to a baton publisher in this process. Each cycle waits for a message
// on a condition variable; the descriptors and the thread count are compared with those after a
// warm-up cycle (lazily made state). The nodes' shm Context has no janitor (see quiet_options),
// whose periodic reclaim would open files for a moment.
#include <dirent.h>
#include <unistd.h>

#include <set>
#include <string>
#include <string_view>

#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using test::GUARD;
using test::string_value;
using test::Strings;

constexpr int CYCLES = 100;

// This process's descriptors and what they point at ("3 -> socket:[123]"): a leak is an entry
// that was not there before, and a failure names it.
std::set<std::string> open_fds() {
  std::set<std::string> out;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char target[256] = {};
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0 && std::string_view(target, n).starts_with("/proc/")) continue;  // opendir's own
    out.insert(std::string(e->d_name) + " -> " + (n > 0 ? std::string(target, n) : "?"));
  }
  ::closedir(d);
  return out;
}

// The entries of `now` not in `before`, one per line.
std::string added(const std::set<std::string>& before, const std::set<std::string>& now) {
  std::string out;
  for (const std::string& fd : now)
    if (!before.contains(fd)) out += fd + "\n";
  return out;
}

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
    const std::set<std::string> fds = open_fds();
    const size_t threads = count_entries("/proc/self/task");
    for (int i = 0; i < CYCLES && !HasFatalFailure(); ++i) cycle();
    // Sockets close asynchronously: the publisher's side of a cycle's connection closes when its
    // thread sees the subscriber hang up, so one may still be open as a count is taken, before or
    // after. A leaked descriptor stays: wait for every one opened since `fds` to be gone.
    EXPECT_TRUE(baton::testing::eventually([&] { return added(fds, open_fds()).empty(); }, GUARD))
        << "opened by the cycles and still open:\n"
        << added(fds, open_fds());
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
