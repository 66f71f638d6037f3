// A reserve()d pool commits its chunks as loans first need them (issue 20, memory), so a
// /dev/shm that fills up after reserve() must show as a loan error, never as a SIGBUS on the
// first write into a chunk whose pages tmpfs could not provide. Checked on a real full tmpfs: a
// child process in a mount namespace of its own, with a 4 MiB tmpfs on /dev/shm.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>

#include "baton/memory/chunk_pool.hpp"
#include "test_util.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr int NO_NAMESPACE = 77;  // the child could not get a private tmpfs

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// In the child: a mount namespace (a user namespace too where we are not root) whose /dev/shm
// is a fresh tmpfs of `size`. False if the kernel or the sandbox refuses.
bool private_dev_shm(const char* size) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWNS) != 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    if (!write_file("/proc/self/setgroups", "deny") ||
        !write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
        !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1")) {
      return false;
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  const std::string options = std::string("size=") + size;
  return ::mount("tmpfs", "/dev/shm", "tmpfs", 0, options.c_str()) == 0;
}

// Child exit codes, so the parent can say what went wrong.
enum Outcome : int {
  Passed = 0,
  ReserveFailed = 3,
  WrongError = 4,
  NeverFull = 5,
  WrongCount = 6,
};

TEST(ChunkPoolFullShmTest, a_loan_on_a_full_dev_shm_returns_out_of_memory_and_nothing_faults) {
  const std::string name = testing::unique_name("pool");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!private_dev_shm("4m")) ::_exit(NO_NAMESPACE);
    ChunkPool pool(name, {});
    // Room for 8 chunks of 1 MiB on a 4 MiB tmpfs: fine, only the first is committed now.
    if (!pool.reserve(MiB, 8)) ::_exit(ReserveFailed);
    int granted = 0;
    ChunkRef last = INVALID_CHUNK;
    for (;;) {
      auto a = pool.allocate(MiB);
      if (!a) {
        if (a.error() != AllocError::OutOfMemory) ::_exit(WrongError);
        break;
      }
      std::memset(a->data, 0x5a, MiB);  // every page of every chunk handed out: no SIGBUS
      last = a->ref;
      if (++granted > 8) ::_exit(NeverFull);
    }
    // 4 MiB less the segment's header page: three chunks; the fourth could not be committed.
    if (granted != 3) ::_exit(WrongCount);
    // Still usable: a chunk given back is handed out again, and written, without committing.
    pool.end_loan(last);
    pool.release_publisher_ref(last);
    auto again = pool.allocate(MiB);
    if (!again) ::_exit(WrongError);
    std::memset(again->data, 0x5b, MiB);
    ::_exit(Passed);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == NO_NAMESPACE) {
    GTEST_SKIP() << "no mount namespace with a private tmpfs on /dev/shm here (needs root or "
                    "unprivileged user namespaces)";
  }
  ASSERT_FALSE(WIFSIGNALED(status)) << "the child died of signal " << WTERMSIG(status)
                                    << (WTERMSIG(status) == SIGBUS ? " (SIGBUS)" : "");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), Passed)
      << "3: reserve failed, 4: not OutOfMemory, 5: never full, 6: wrong number of chunks";
}

}  // namespace
}  // namespace baton::memory
