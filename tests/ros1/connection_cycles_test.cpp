// 100 subscribe / receive / unsubscribe cycles of a baton ros1::Node leave no file descriptor and
// no thread behind (counted in /proc/self/fd and, by name, /proc/self/task): over TCPROS to a stock
// rospy talker, over TCPROS to a baton publisher in this process (the publisher's side), and over
// BATONSHM to a baton publisher in this process. Each cycle waits for a message
// on a condition variable; the descriptors and the thread count are compared with those after a
// warm-up cycle (lazily made state). The nodes' shm Context has no janitor (see quiet_options),
// whose periodic reclaim would open files for a moment.
#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <map>
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

// This process's threads, counted by name (/proc/self/task/<tid>/comm: baton names its threads,
// see common/thread_name.hpp; others carry the program's name).
using ThreadCensus = std::map<std::string, size_t>;
ThreadCensus threads_by_name() {
  ThreadCensus out;
  DIR* d = ::opendir("/proc/self/task");
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name)) ++out[name];  // a thread that just ended has no comm: skipped
  }
  ::closedir(d);
  return out;
}

std::string to_string(const ThreadCensus& census) {
  std::string out;
  for (const auto& [name, n] : census) out += name + " x" + std::to_string(n) + "\n";
  return out;
}

class Ros1Cycles : public test::Ros1Graph {
 protected:
  // Nodes whose BATONSHM endpoints share a Context without a janitor: its periodic reclaim opens
  // files for a moment (/proc/<pid>, segments), which a count could catch. Without /rosout too:
  // roscore's rosout connects to it whenever it gets to it, a connection (descriptor and thread)
  // a count taken before would see as the cycles' own.
  NodeOptions quiet_options() {
    NodeOptions o = options();
    o.shm_context = shm_context_;
    o.rosout = false;
    return o;
  }
  std::shared_ptr<Context> shm_context_ =
      Context::create(ContextOptions{.janitor_period = std::chrono::milliseconds(0)});
  // Runs `cycle` once, then CYCLES times, and expects the descriptors and threads of before the
  // CYCLES runs afterwards. Threads named `per_connection` serve one connection each and end with
  // it, after the count that says it closed: the census leaves them out and expects none of them
  // once every connection is gone.
  template <typename Cycle>
  void expect_no_leak(Cycle cycle, const std::string& per_connection = "") {
    cycle();
    if (HasFatalFailure()) return;
    const std::set<std::string> fds = open_fds();
    auto census = [&] {
      ThreadCensus c = threads_by_name();
      c.erase(per_connection);
      return c;
    };
    const ThreadCensus threads = census();
    for (int i = 0; i < CYCLES && !HasFatalFailure(); ++i) cycle();
    // Sockets close asynchronously: the publisher's side of a cycle's connection closes when its
    // thread sees the subscriber hang up, so one may still be open as a count is taken, before or
    // after. A leaked descriptor stays: wait for every one opened since `fds` to be gone. The same
    // for threads: one that is ending is not leaked, one that stays is.
    EXPECT_TRUE(baton::testing::eventually([&] { return added(fds, open_fds()).empty(); }, GUARD))
        << "opened by the cycles and still open:\n"
        << added(fds, open_fds());
    EXPECT_TRUE(baton::testing::eventually([&] { return census() == threads; }, GUARD))
        << "threads before the cycles:\n"
        << to_string(threads) << "after:\n"
        << to_string(census());
    if (!per_connection.empty()) {
      EXPECT_TRUE(baton::testing::eventually(
          [&] { return !threads_by_name().contains(per_connection); }, GUARD))
          << to_string(threads_by_name());
    }
  }
  // One cycle against a baton publisher: `listener` subscribes to `pub`'s topic, and once
  // `ready(subscription)` holds (its transport's sign that a message published now reaches the
  // subscription), "cycle <sent>" is published and must arrive over `transport`. The subscription
  // goes at the end of the cycle.
  template <typename Ready>
  void publish_to_a_new_subscription(Node& listener, Publisher& pub, int& sent,
                                     const std::string& transport, Ready ready) {
    Strings strings;
    strings.type = *listener.types().message("std_msgs/String");
    auto sub = listener.subscribe(topic_, "std_msgs/String", strings.sink());
    ASSERT_TRUE(sub) << sub.error().detail;
    ASSERT_TRUE(ready(**sub));
    const std::string text = "cycle " + std::to_string(sent++);
    ASSERT_TRUE(pub.publish(string_value(text)));
    ASSERT_TRUE(strings.wait_for(text));
    std::lock_guard lock(strings.mutex);
    ASSERT_EQ(strings.transports.back(), transport);
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
    publish_to_a_new_subscription(*listener, **pub, sent, "BATONSHM", [](Subscription& sub) {
      return sub.wait_for_publishers(1, GUARD);
    });
  });  // the subscription goes: port detached, reader thread joined
  EXPECT_EQ((*pub)->wire().stats().sent, 0u);
}

// The publisher's side of TCPROS: a baton publisher serves 100 subscriptions of a TCPROS-only
// baton node (as a stock node's would come) one after another; each connection's socket and sender
// thread go with the subscriber that hung up.
TEST_F(Ros1Cycles, tcpros_cycles_with_a_baton_publisher_leave_no_fd_or_thread) {
  auto talker = node("baton_tcpros_cycle_talker", quiet_options());
  NodeOptions tcpros_only = quiet_options();
  tcpros_only.shared_memory = false;
  auto listener = node("baton_tcpros_cycle_listener", tcpros_only);
  auto pub = talker->advertise(topic_, "std_msgs/String");
  ASSERT_TRUE(pub) << pub.error().detail;
  int sent = 0;
  expect_no_leak(
      [&] {
        // The last cycle's connection closes on the publisher's side when its sender sees the
        // hang-up: wait for that, so the count below is this cycle's subscriber.
        ASSERT_TRUE(
            baton::testing::eventually([&] { return (*pub)->subscriber_count() == 0; }, GUARD));
        // Counted once its connection header is in: a message published before would go to nobody.
        publish_to_a_new_subscription(*listener, **pub, sent, "TCPROS", [&](Subscription&) {
          return (*pub)->wait_for_tcpros_subscribers(1, GUARD);
        });
      },
      "ros1-inbound");  // the subscription goes: connection closed; the publisher's sender ends
  EXPECT_TRUE(baton::testing::eventually([&] { return (*pub)->subscriber_count() == 0; }, GUARD));
  EXPECT_EQ((*pub)->wire().stats().sent, static_cast<uint64_t>(sent));
}

}  // namespace
}  // namespace baton::ros1
