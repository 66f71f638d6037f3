// For tests of what happens when /dev/shm fills up: run in a forked child, it moves the child
// into a mount namespace of its own (a user namespace too where it is not root) whose /dev/shm is
// a fresh tmpfs of the given size, so filling it touches nothing outside the child.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>

namespace baton::testing {

// Exit code of a child that could not get a private tmpfs: the test fails, naming why (it runs as
// root on the machines `make test` targets, where a mount namespace is always available).
inline constexpr int NO_PRIVATE_DEV_SHM = 77;

inline bool write_proc_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// False if the kernel or the sandbox refuses (no CAP_SYS_ADMIN, no user namespaces).
inline bool private_dev_shm(const char* size) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWNS) != 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    const std::string u = std::to_string(uid), g = std::to_string(gid);
    if (!write_proc_file("/proc/self/setgroups", "deny") ||
        !write_proc_file("/proc/self/uid_map", u + " " + u + " 1") ||
        !write_proc_file("/proc/self/gid_map", g + " " + g + " 1")) {
      return false;
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  const std::string options = std::string("size=") + size;
  return ::mount("tmpfs", "/dev/shm", "tmpfs", 0, options.c_str()) == 0;
}

// Fills the (private) /dev/shm to its last page with one file, so that the next page anything
// commits there is refused; false if not a page could be taken. unfill_dev_shm() gives it back.
inline constexpr const char* DEV_SHM_FILLER = "/dev/shm/baton-test-filler";
inline bool fill_dev_shm() {
  const int fd = ::open(DEV_SHM_FILLER, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return false;
  std::uint64_t filled = 0;
  while (::posix_fallocate(fd, static_cast<off_t>(filled), 4096) == 0) filled += 4096;
  ::close(fd);
  return filled > 0;
}
inline void unfill_dev_shm() { ::unlink(DEV_SHM_FILLER); }

// Runs `body` in a forked child with a private /dev/shm of `size` and expects it to return 0
// (its exit code; `codes` says what the others mean) without being killed by a signal, SIGBUS
// above all. Fails where no private tmpfs can be had: the behaviour was then not checked.
inline void expect_passes_on_private_dev_shm(const char* size, const std::function<int()>& body,
                                             const char* codes) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!private_dev_shm(size)) ::_exit(NO_PRIVATE_DEV_SHM);
    ::_exit(body());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == NO_PRIVATE_DEV_SHM) {
    FAIL() << "no mount namespace with a private tmpfs on /dev/shm here (needs root or "
              "unprivileged user namespaces): a full /dev/shm could not be tested";
  }
  ASSERT_FALSE(WIFSIGNALED(status)) << "the child died of signal " << WTERMSIG(status)
                                    << (WTERMSIG(status) == SIGBUS ? " (SIGBUS)" : "");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << codes;
}

}  // namespace baton::testing
