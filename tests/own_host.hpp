// Each test process of the DDS suites (tests/ros2, tests/bridge) is a host of its own: a network
// namespace with only a loopback, and a mount namespace whose /dev/shm is a fresh tmpfs, which
// its children (rclpy, rospy and roscpp peers, roscore, child roles) share. DDS peers of two tests
// that run at once can then never meet, whatever domain ids they use, nor share Fast DDS's
// shared-memory ports or baton's segments, so ctest runs these suites in parallel as it runs the
// others (before, one lock held them to one test at a time: the longest chain of CI's test runs).
//
// Where no namespace can be had (not root and no unprivileged user namespaces), the process
// waits for a lock held by every other such process on this machine instead: isolated by turns.
#pragma once

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "private_dev_shm.hpp"  // write_proc_file

namespace baton::testing {

// Brings this network namespace's loopback up (a new namespace starts with it down).
inline bool loopback_up() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  ok = ok && ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  ::close(fd);
  return ok;
}

// Whether this process could leave the machine's network and mount namespaces for new ones (a
// user namespace too where it is not root; that needs the process to have one thread).
inline bool unshare_host() {
  constexpr int kHost = CLONE_NEWNET | CLONE_NEWNS;
  if (::unshare(kHost) == 0) return true;
  const std::string uid = std::to_string(::getuid()), gid = std::to_string(::getgid());
  return ::unshare(CLONE_NEWUSER | kHost) == 0 && write_proc_file("/proc/self/setgroups", "deny") &&
         write_proc_file("/proc/self/uid_map", uid + " " + uid + " 1") &&
         write_proc_file("/proc/self/gid_map", gid + " " + gid + " 1");
}

// A host of its own for this test process (the loopback up, a fresh tmpfs on /dev/shm), or else
// its turn at the machine-wide lock (held until the process exits; children do not inherit it).
// Exits 1 if the namespaces were made but could not be set up: the tests would fail obscurely.
inline void isolate_dds_test_process() {
  if (unshare_host()) {
    if (loopback_up() && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
        ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") == 0) {
      return;
    }
    std::fprintf(stderr, "baton tests: a host of this test process's own could not be set up: %s\n",
                 std::strerror(errno));
    std::exit(1);
  }
  const std::string lock = "/tmp/baton-dds-tests." + std::to_string(::getuid()) + ".lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  std::fprintf(stderr,
               "baton tests: no network and mount namespace of this process's own here (needs root "
               "or unprivileged user namespaces): DDS tests run one at a time (%s)\n",
               lock.c_str());
  if (fd >= 0) ::flock(fd, LOCK_EX);
}

}  // namespace baton::testing
