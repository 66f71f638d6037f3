// Child roles of the accelerator tests: a parent test runs another test of this binary in a fresh
// process (fork + exec, so no OpenCL / CUDA state is inherited: a CUDA context does not survive
// fork) to play the other side of a cross-process exchange.
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

// Starts a fresh copy of this test binary with `args` and `env` set; returns the child's pid.
inline pid_t spawn_self(std::vector<std::string> args, const test::Env& env) {
  // Everything the child needs is built before the fork: the parent may have threads (PoCL's,
  // a GPU driver's), so the child makes no call but execve (fork_guard.hpp).
  std::vector<std::string> vars = test::environment_with(env);
  std::vector<char*> envp, argv;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  args.insert(args.begin(), "child");
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ForkToExec exec_only;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execve("/proc/self/exe", argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// Runs the test named by `filter` in a fresh copy of this test binary with BATON_ACCEL_ROLE=1 and
// `env` set (how the parent passes it names and records). Returns the child's pid.
inline pid_t spawn_role(const std::string& filter, test::Env env) {
  env["BATON_ACCEL_ROLE"] = "1";
  return spawn_self({"--gtest_filter=" + filter, "--gtest_brief=1"}, env);
}

// Runs child role `role` (child_roles.hpp) in a fresh copy of this test binary with `env` set.
inline pid_t spawn_child_role(const std::string& role, test::Env env) {
  env["BATON_CHILD_ROLE"] = role;
  return spawn_self({}, env);
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
