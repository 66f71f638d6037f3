// Processes racing for the slots of the dead: CHILDREN processes hold every publisher slot of a
// topic between them; each is SIGKILLed as soon as it has its publishers and replaced at once, so
// several replacements claim at the same time, each finding the topic full and reclaiming dead
// owners' slots while the others, and a process that reclaims all the time, do the same. A slot
// another process is reclaiming right now (Reclaiming, its reclaimer alive) is not a full topic:
// every replacement must get all its publishers. ServiceCrashTest saw a replacement's client
// refused ("already has 256 clients") while another replacement was reclaiming the dead clients'
// request publisher slots.
//
// BATON_STRESS_RECLAIM_KILLS overrides the number of kills (500).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "baton/topic/publisher_port.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

using topic::MAX_PUBLISHERS;
using topic::PublisherPort;
using topic::Topic;

constexpr std::uint32_t CHILDREN = 8;
constexpr std::uint32_t PUBLISHERS_PER_CHILD = MAX_PUBLISHERS / CHILDREN;
const topic::TypeInfo RAW = topic::TypeInfo::from_name("test/msg/Raw");

// A child process that creates PUBLISHERS_PER_CHILD publishers on `name`, writes 'R' and waits to
// be killed; 'F' (the reason on stderr) and exit 1 if one cannot be created.
Child fork_holder(const std::string& name) {
  return fork_child("holder", [&](int out) {
    auto say = [&](char ch) { (void)!::write(out, &ch, 1); };
    auto topic = Topic::open_or_create(name, RAW);
    if (!topic) {
      std::fprintf(stderr, "holder %d: %s\n", ::getpid(), topic.error().detail.c_str());
      say('F');
      return 1;
    }
    std::vector<std::unique_ptr<PublisherPort>> mine;
    for (std::uint32_t k = 0; k < PUBLISHERS_PER_CHILD; ++k) {
      auto pub = PublisherPort::create(*topic, topic::PublisherOptions{});
      if (!pub) {
        std::fprintf(stderr, "holder %d: publisher %u of %u: %s\n", ::getpid(), k + 1,
                     PUBLISHERS_PER_CHILD, pub.error().detail.c_str());
        say('F');
        return 1;
      }
      mine.push_back(std::move(*pub));
    }
    say('R');
    for (;;) ::pause();
  });
}

// A process that reclaims the topic's dead over and over, as any process may at any time (a
// janitor, a publisher short of chunks, a reliable publisher waiting for space).
pid_t fork_reclaimer(const std::string& name) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  auto topic = Topic::open_or_create(name, RAW);
  if (!topic) ::_exit(1);
  for (;;) (void)(*topic)->reclaim_dead();
}

TEST(SlotReclaimRaceTest, replacements_racing_to_reclaim_a_full_topic_each_get_their_slots) {
  ScopedNamespace ns("reclaimrace");
  const char* kills_env = std::getenv("BATON_STRESS_RECLAIM_KILLS");
  const int target_kills = kills_env ? std::atoi(kills_env) : 500;
  const std::string name = "/reclaim_race";
  // This process keeps the topic's directory open throughout (its last handle removes it).
  auto topic = Topic::open_or_create(name, RAW);
  ASSERT_TRUE(topic) << topic.error().detail;

  std::vector<Child> children;
  pid_t reclaimer = -1;
  // Whatever happens (a failed assertion included), no child outlives the test.
  struct Reaper {
    std::vector<Child>& children;
    pid_t& reclaimer;
    void reap() {
      for (Child& c : children) {
        if (c.pid > 0) {
          ::kill(c.pid, SIGKILL);
          ::waitpid(c.pid, nullptr, 0);
          c.pid = -1;
        }
        close_child(c);
      }
      if (reclaimer > 0) {
        ::kill(reclaimer, SIGKILL);
        ::waitpid(reclaimer, nullptr, 0);
        reclaimer = -1;
      }
    }
    ~Reaper() { reap(); }
  } reaper{children, reclaimer};
  reclaimer = fork_reclaimer(name);
  ASSERT_GT(reclaimer, 0);
  for (std::uint32_t i = 0; i < CHILDREN; ++i) children.push_back(fork_holder(name));
  int kills = 0, failures = 0;
  std::vector<bool> refused(CHILDREN, false);
  while (kills < target_kills && failures == 0) {
    std::vector<pollfd> fds;
    for (const Child& c : children) fds.push_back({c.from_child, POLLIN, 0});
    (void)::poll(fds.data(), fds.size(), 30'000);  // a "must not hang" guard
    bool any = false;
    for (std::uint32_t i = 0; i < CHILDREN; ++i) {
      Child& c = children[i];
      ASSERT_GT(c.pid, 0) << "fork failed";
      const std::string out = drain(c);
      if (out.find('F') != std::string::npos) {
        refused[i] = true;
        ++failures;
        std::printf("  holder %d was refused a slot\n", c.pid);
      }
      if (out.find('R') == std::string::npos) continue;
      any = true;
      // It has all its publishers: kill it and replace it at once, while others still claim.
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, nullptr, 0);
      close_child(c);
      c = fork_holder(name);
      ++kills;
    }
    ASSERT_TRUE(any || failures > 0) << "no holder got its publishers within the guard";
  }
  // The last replacements finish claiming too (a "must not hang" guard of 30 s each).
  for (std::uint32_t i = 0; i < CHILDREN; ++i) {
    if (refused[i]) continue;
    const std::string out = read_until(children[i], 'R', std::chrono::seconds(30));
    if (out.find('R') == std::string::npos) {
      ++failures;
      std::printf("  holder %d did not get its publishers: '%s'\n", children[i].pid, out.c_str());
    }
  }
  reaper.reap();
  std::printf("[reclaim-race] kills: %d (%u holders of %u publishers); refused holders: %d\n",
              kills, CHILDREN, PUBLISHERS_PER_CHILD, failures);
  EXPECT_EQ(failures, 0);
  EXPECT_GE(kills, target_kills);
  // Our last handle reclaims the last holders' slots and removes the directory: every dead
  // holder's segments are gone.
  topic->reset();
  const auto left = ScopedNamespace::list();
  for (const auto& s : left) std::printf("  left: %s\n", s.c_str());
  EXPECT_TRUE(left.empty());
}

}  // namespace
}  // namespace baton::stress
