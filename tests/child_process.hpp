// A child process of a test (a peer program: rclpy, rospy, roscore, this test binary re-run in a
// child role), with its stdout + stderr captured and its exit observable without polling:
//   - output goes through a pipe to a reader thread, which wakes every wait_for_output() the
//     moment new text arrives (no log file re-read on a timer); output() also takes what waits in
//     the pipe, so it holds all the child wrote before the call;
//   - the exit is watched through a pidfd (pidfd_open), so wait_exit() sleeps in poll(2) until
//     the child ends or the deadline passes;
//   - stdin is a pipe as well: send_line() is how a test opens a gate in a peer that waits for it.
// The child runs in its own process group (a peer's own children are signalled with it) and gets
// SIGKILL if the test process dies first (PR_SET_PDEATHSIG).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fork_guard.hpp"

extern char** environ;

namespace baton::test {

// Environment overrides of a child: name → value; a value of "" removes the variable.
using Env = std::map<std::string, std::string>;

// The test's environment with `overrides` applied, as NAME=value strings.
inline std::vector<std::string> environment_with(const Env& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv = *e;
    if (overrides.count(std::string(kv.substr(0, kv.find('=')))) == 0) env.emplace_back(kv);
  }
  for (const auto& [k, v] : overrides)
    if (!v.empty()) env.push_back(k + "=" + v);
  return env;
}

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the test's environment plus `overrides`. pid() is -1 if it could
  // not start.
  ChildProcess(std::vector<std::string> argv, const Env& overrides) {
    std::vector<std::string> env = environment_with(overrides);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);

    int out[2], in[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    if (::pipe2(in, O_CLOEXEC) != 0) {
      ::close(out[0]);
      ::close(out[1]);
      return;
    }
    const pid_t parent = ::getpid();
    {
      baton::testing::ForkToExec exec_only;  // the child execs at once: a threaded parent is fine
      pid_ = ::fork();
    }
    if (pid_ == 0) {  // only async-signal-safe calls until execve
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(out[1], 2);
      ::execve(cargv[0], cargv.data(), cenv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(in[0]);
    stdin_ = in[1];
    out_ = out[0];
    if (pid_ < 0) return;
    ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    stop_reader_ = ::eventfd(0, EFD_CLOEXEC);
    reader_ = std::thread([this] { read_until_eof(); });
  }
  ~ChildProcess() {
    stop();
    if (reader_.joinable()) {
      const uint64_t one = 1;  // a grandchild may still hold the pipe open: stop reading anyway
      (void)!::write(stop_reader_, &one, sizeof one);
      reader_.join();
    }
    for (int fd : {stdin_, out_, pidfd_, stop_reader_})
      if (fd >= 0) ::close(fd);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // True once the process has exited; `status` gets its wait status.
  bool exited(int* status = nullptr) {
    if (pid_ > 0 && ::waitpid(pid_, &status_, WNOHANG) == pid_) pid_ = -1;
    if (status != nullptr) *status = status_;
    return pid_ <= 0;
  }
  // Waits up to `timeout` for the exit; true with its exit code in `code` (-1: killed by a
  // signal) if it exited.
  bool wait_exit(std::chrono::milliseconds timeout, int* code = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      if (pidfd_ < 0) {  // no pidfd (kernel < 5.3): block in waitpid, the deadline unenforced
        if (::waitpid(pid_, &status_, 0) == pid_) pid_ = -1;
        continue;
      }
      pollfd p{pidfd_, POLLIN, 0};
      (void)::poll(&p, 1, static_cast<int>(left.count()) + 1);
    }
    if (code != nullptr) *code = WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
    return true;
  }
  // Sends `signal` to the child's process group.
  void signal(int sig) const {
    if (pid_ > 0) ::kill(-pid_, sig);
  }
  // `first` (SIGTERM by default), then SIGKILL once `grace` has passed: a peer busy inside its
  // DDS library (a 24 MB sample being reassembled on a loaded machine) may not run Python's
  // signal handler for a long time, and a test must end with a verdict, never hang in teardown.
  void stop(int first = SIGTERM, std::chrono::milliseconds grace = std::chrono::seconds(10)) {
    if (exited()) return;
    signal(first);
    if (wait_exit(grace)) return;
    signal(SIGKILL);
    (void)::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

  // Everything the child printed so far: what waits in the pipe too, so text the child wrote
  // before an event the test saw (a reply it sent) is there.
  std::string output() {
    std::lock_guard<std::mutex> lock(mutex_);
    drain_locked();
    return output_;
  }
  // Waits until the output holds `text` (true), or the child's output ends / `timeout` passes
  // (false).
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
    return wait_for_output_where(
        [&](const std::string& out) { return out.find(text) != std::string::npos; }, timeout);
  }
  // Waits until `holds(output)` (true), or the child's output ends / `timeout` passes (false);
  // `holds` is asked again each time output arrives.
  template <typename Holds>
  bool wait_for_output_where(Holds holds, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      drain_locked();
      return holds(output_) || output_closed_;
    }) && holds(output_);
  }
  // Writes `line` and a newline to the child's stdin.
  bool send_line(const std::string& line) {
    const std::string text = line + "\n";
    return stdin_ >= 0 &&
           ::write(stdin_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }

 private:
  // Waits for output (or the stop signal) and drains it into output_, until the pipe's end.
  void read_until_eof() {
    pollfd p[2] = {{out_, POLLIN, 0}, {stop_reader_, POLLIN, 0}};
    for (;;) {
      if (::poll(p, 2, -1) < 0 && errno != EINTR) break;
      if (p[1].revents != 0) break;
      std::lock_guard<std::mutex> lock(mutex_);
      drain_locked();
      changed_.notify_all();
      if (output_closed_) return;
    }
  }
  // Reads what the (non-blocking) pipe holds now; at its end, closes it and says so.
  void drain_locked() {
    char buf[4096];
    while (!output_closed_) {
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n > 0) {
        output_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      output_closed_ = true;  // end of output (or a read error: nothing more will come)
    }
  }

  pid_t pid_ = -1;
  int status_ = 0;
  int pidfd_ = -1;
  int stdin_ = -1;
  int out_ = -1;  // the read end of the child's stdout + stderr
  int stop_reader_ = -1;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string output_;
  bool output_closed_ = false;
};

}  // namespace baton::test
