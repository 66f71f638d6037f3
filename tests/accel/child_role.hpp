// Child roles of the accelerator tests: a parent test runs another test of this binary in a fresh
// process (fork + exec, so no OpenCL / CUDA state is inherited: a CUDA context does not survive
// fork) to play the other side of a cross-process exchange.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace baton::testing {

// Runs the test named by `filter` in a fresh copy of this test binary with BATON_ACCEL_ROLE=1 and
// `env` set (how the parent passes it names and records). Returns the child's pid.
inline pid_t spawn_role(const std::string& filter,
                        const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("BATON_ACCEL_ROLE", "1", 1);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    const std::string arg = "--gtest_filter=" + filter;
    execl("/proc/self/exe", "child", arg.c_str(), "--gtest_brief=1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// True in a process spawn_role started (child role tests skip otherwise).
inline bool in_child_role() { return std::getenv("BATON_ACCEL_ROLE") != nullptr; }

// The child's exit code, or -1 if it did not exit normally (killed, crashed).
inline int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace baton::testing
