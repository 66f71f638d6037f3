// fork() without exec needs a single-threaded parent. fork() copies only the calling thread, so
// a lock another thread holds at that moment stays held in the child for good: under ASan (GCC
// 12's libasan has no fork handler for its allocator) a fork while a context's janitor thread
// allocated left the child blocked in its first malloc, about one run in 30. test_main.cpp
// installs a pthread_atfork hook that fails the running test when a process with other threads
// forks, so such a test fails every time instead of hanging now and then. A child that only execs
// (async-signal-safe calls until execve, as ChildProcess) inherits no lock: its fork is declared
// with ForkToExec. posix_spawn, popen and system run no fork hooks and need nothing.
#pragma once

#include <cstddef>
#include <filesystem>

namespace baton::testing {

// Threads the runtime keeps of its own once a program has started one: 1 (the main thread), or 2
// under TSan, whose background thread starts with a program's first thread and stays. test_main
// measures it before any test runs; the guard counts only threads beyond these.
inline std::size_t runtime_threads = 1;

// True while the calling thread forks a child that only execs.
inline thread_local bool forking_to_exec = false;

// Declares the forks of its scope fork+exec.
class ForkToExec {
 public:
  ForkToExec() { forking_to_exec = true; }
  ~ForkToExec() { forking_to_exec = false; }
  ForkToExec(const ForkToExec&) = delete;
  ForkToExec& operator=(const ForkToExec&) = delete;
};

// Threads of this process (entries of /proc/self/task).
inline std::size_t thread_count() {
  std::size_t n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)task;
    ++n;
  }
  return n;
}

}  // namespace baton::testing
