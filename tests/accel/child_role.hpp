// Spawning child roles (tests/child_roles.hpp) from the accelerator tests: a parent test runs a
// role in a fresh copy of this binary (fork + exec, so no OpenCL / CUDA state is inherited: a CUDA
// context does not survive fork) to play the other side of a cross-process exchange.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "child_roles.hpp"
#include "fork_guard.hpp"

namespace baton::testing {

// Runs child role `role` in a fresh copy of this test binary with `env` set (how the parent passes
// it names and records); returns the child's pid.
inline pid_t spawn_child_role(const std::string& role, test::Env env) {
  env["BATON_CHILD_ROLE"] = role;
  // Everything the child needs is built before the fork: the parent may have threads (PoCL's,
  // a GPU driver's), so the child makes no call but execve (fork_guard.hpp).
  std::vector<std::string> vars = test::environment_with(env);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  char name[] = "child";
  char* argv[] = {name, nullptr};
  ForkToExec exec_only;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execve("/proc/self/exe", argv, envp.data());
    ::_exit(127);
  }
  return pid;
}

// The child's exit code, or -1 if it did not exit normally (killed, crashed).
inline int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace baton::testing
