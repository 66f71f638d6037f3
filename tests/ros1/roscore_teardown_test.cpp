// The tests' private roscore (ros1_test_env.hpp) ends whole when the test stops it, even if its
// roslaunch had to be killed: rosmaster and rosout run in sessions of their own, and a master
// left running kept answering on the test's port (a test that stopped its roscore to check the
// MasterUnreachable error got "no provider" from it instead, on a loaded machine).
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <sstream>

#include "ros1_test_env.hpp"

namespace baton::ros1 {
namespace {

// The parent pid of `pid` (/proc/<pid>/stat's fourth field), -1 if unreadable.
pid_t parent_of(pid_t pid) {
  std::istringstream fields(test::proc_stat_fields(pid));
  char state = 0;
  pid_t ppid = -1;
  fields >> state >> ppid;
  return ppid;
}

TEST(RoscoreTeardown, a_roscore_whose_roslaunch_was_killed_leaves_no_master_behind) {
  if (auto why = test::missing_ros1(); !why.empty()) GTEST_FAIL() << why;
  auto core = std::make_unique<test::Roscore>();
  ASSERT_TRUE(core->ready()) << core->log();
  MasterClient master(core->uri(), "/baton_test_probe", std::chrono::seconds(1));
  auto master_pid = master.get_pid();
  ASSERT_TRUE(master_pid) << master_pid.error().detail;
  const pid_t roslaunch = parent_of(*master_pid);
  ASSERT_GT(roslaunch, 1);
  // As the teardown's SIGKILL after its grace does: roslaunch gets no chance to stop its nodes.
  ASSERT_EQ(::kill(roslaunch, SIGKILL), 0);
  core.reset();
  EXPECT_TRUE(test::process_ended(*master_pid)) << "rosmaster " << *master_pid << " still runs";
  EXPECT_FALSE(master.get_pid()) << "a master still answers at the stopped roscore's address";
}

}  // namespace
}  // namespace baton::ros1
