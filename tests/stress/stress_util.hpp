// Helpers for the multi-process stress tests: a private namespace per run, child processes of
// tests/helpers/baton_stress_child with pipes, and counting this run's segments in /dev/shm.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"

extern char** environ;

namespace baton::stress {

// Sets BATON_NAMESPACE to a name unique to this run for the lifetime of the object, and removes
// whatever segments are left under it at the end.
class ScopedNamespace {
 public:
  explicit ScopedNamespace(const std::string& stem) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    name_ = stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(now % 1000000007);
    if (const char* old = std::getenv("BATON_NAMESPACE")) old_ = old;
    ::setenv("BATON_NAMESPACE", name_.c_str(), 1);
  }
  ~ScopedNamespace() {
    for (const auto& n : list()) shm::Segment::unlink("/" + n);
    if (old_.empty()) {
      ::unsetenv("BATON_NAMESPACE");
    } else {
      ::setenv("BATON_NAMESPACE", old_.c_str(), 1);
    }
  }
  const std::string& name() const { return name_; }

  // Names (without the leading '/') of this namespace's segments in /dev/shm.
  static std::vector<std::string> list() {
    std::vector<std::string> out;
    const std::string prefix = shm::segment_prefix().substr(1);
    if (DIR* d = ::opendir("/dev/shm")) {
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.rfind(prefix, 0) == 0) out.push_back(n);
      }
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string name_;
  std::string old_;
};

// The helper executable, built next to the test binary (tests/CMakeLists.txt).
inline std::string helper_path(const std::string& name) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return name;
  std::string self(buf, static_cast<std::size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + name;
}

struct Child {
  pid_t pid = -1;
  int to_child = -1;    // its stdin
  int from_child = -1;  // its stdout (non-blocking)
  std::string kind;
  std::chrono::steady_clock::time_point deadline;
};

// Forks a child that runs `body` (given the write end of a pipe whose read end, non-blocking, is
// the Child's from_child) and exits with its return value. Forked, not spawned: the child uses
// the library directly (only from a process without threads of its own).
template <typename Body>
Child fork_child(std::string kind, Body body) {
  Child c;
  c.kind = std::move(kind);
  int out[2];
  if (::pipe(out) != 0) return c;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    ::_exit(body(out[1]));
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    return c;
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  c.pid = pid;
  c.from_child = out[0];
  return c;
}

inline Child spawn_child(const std::vector<std::string>& args, std::string kind) {
  Child c;
  c.kind = std::move(kind);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return c;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::vector<char*> argv;
  const std::string path = helper_path("baton_stress_child");
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    return c;
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  c.pid = pid;
  c.to_child = in[1];
  c.from_child = out[0];
  return c;
}

// Reads what the child wrote so far (non-blocking).
inline std::string drain(const Child& c) {
  std::string s;
  char buf[256];
  ssize_t n;
  while ((n = ::read(c.from_child, buf, sizeof(buf))) > 0)
    s.append(buf, static_cast<std::size_t>(n));
  return s;
}

// Waits up to `timeout` for the child to write `ch`; returns everything read.
// Asleep in poll(2) on the child's (non-blocking) pipe between reads.
inline std::string read_until(const Child& c, char ch, std::chrono::milliseconds timeout) {
  std::string s;
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    s += drain(c);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (s.find(ch) != std::string::npos || left.count() <= 0) return s;
    pollfd p{c.from_child, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count()) + 1) > 0 && (p.revents & POLLIN) == 0)
      return s;  // the child closed its end (exited) with nothing more to read
  }
}

inline void close_child(Child& c) {
  if (c.to_child >= 0) ::close(c.to_child);
  if (c.from_child >= 0) ::close(c.from_child);
  c.to_child = c.from_child = -1;
}

// State letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), or 0.
inline char process_state(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  return (p != nullptr && p[1] == ' ') ? p[2] : 0;
}

}  // namespace baton::stress
