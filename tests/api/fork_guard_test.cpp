// The fork guard of every test process (fork_guard.hpp, installed by test_main.cpp): a fork
// without exec from a process with other threads fails the running test; a fork declared
// fork+exec, or from a single-threaded process, does not.
#include "fork_guard.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <thread>

namespace baton::testing {
namespace {

// Forks a child that exits at once (nothing in it can block) and reaps it.
void fork_and_reap() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
}

void fork_to_exec_and_reap() {
  ForkToExec exec_only;
  fork_and_reap();
}

// A second thread for the duration of the scope: it waits, without polling, to be let go.
class OtherThread {
 public:
  OtherThread() : thread_([done = stop_.get_future()] { done.wait(); }) {}
  ~OtherThread() {
    stop_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> stop_;
  std::thread thread_;
};

TEST(ForkGuardTest, a_fork_without_exec_from_a_threaded_process_fails_the_test) {
  OtherThread other;
  EXPECT_NONFATAL_FAILURE(fork_and_reap(), "fork() without exec from a process with");
}

TEST(ForkGuardTest, a_fork_declared_fork_and_exec_passes_with_other_threads) {
  OtherThread other;
  fork_to_exec_and_reap();
  EXPECT_FALSE(forking_to_exec);  // the declaration ends with its scope
}

TEST(ForkGuardTest, a_fork_from_a_single_threaded_process_passes) {
  ASSERT_EQ(thread_count(), runtime_threads);  // no thread of the test's own
  fork_and_reap();
}

}  // namespace
}  // namespace baton::testing
