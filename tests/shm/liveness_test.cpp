// shm::is_alive: a process checked once is then checked through a cached pidfd, which must
// still see it die (zombie included) and never take a later process of the same pid for it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baton/shm/participant.hpp"

namespace baton::shm {
namespace {

pid_t sleeping_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::pause();
    ::_exit(0);
  }
  return pid;
}

TEST(LivenessTest, a_process_seen_alive_is_dead_once_it_exits_even_unreaped) {
  const pid_t pid = sleeping_child();
  ASSERT_GT(pid, 0);
  const ParticipantId id{static_cast<std::uint32_t>(pid),
                         process_start_time(static_cast<std::uint32_t>(pid))};
  ASSERT_NE(id.start_time, 0u);
  EXPECT_TRUE(is_alive(id));
  EXPECT_TRUE(is_alive(id));  // now from the cache
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);  // a zombie
  EXPECT_FALSE(is_alive(id));
  ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);
  EXPECT_FALSE(is_alive(id));
}

TEST(LivenessTest, another_start_time_under_a_live_pid_is_not_alive) {
  const ParticipantId me = self();
  EXPECT_TRUE(is_alive(me));
  EXPECT_TRUE(is_alive({me.pid, 0}));  // start time not recorded yet: the pid decides
  EXPECT_FALSE(is_alive({me.pid, me.start_time + 1}));
  EXPECT_FALSE(is_alive({0, me.start_time}));
}

}  // namespace
}  // namespace baton::shm
