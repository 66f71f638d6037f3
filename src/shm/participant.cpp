#include "baton/shm/participant.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace baton::shm {
namespace {

// Reads /proc/<pid>/stat and returns (state char, start time). The comm field may contain spaces
// and parentheses, so parsing starts after the last ')'.
bool read_stat(std::uint32_t pid, char* state, std::uint64_t* start_time) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%u/stat", pid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  char* p = std::strrchr(buf, ')');
  if (p == nullptr || p[1] == '\0') return false;
  p += 2;  // now at field 3 (state)
  *state = *p;
  // Skip fields 3..21 to reach field 22 (starttime).
  for (int field = 3; field < 22; ++field) {
    p = std::strchr(p, ' ');
    if (p == nullptr) return false;
    ++p;
  }
  *start_time = std::strtoull(p, nullptr, 10);
  return true;
}

// Liveness checks without reading /proc each time. Every endpoint's janitor checks every slot of
// its topics (and every registry entry) twice a second: with 256 subscriber processes that was
// 256 x 257 reads of /proc/<pid>/stat per half second, more CPU than two cores have, and a
// 256-subscriber stream fell to ~20 messages/s (perf: do_task_stat on top). So each thread keeps
// a pidfd per process it has verified (pid and start time read once from /proc): a pidfd names
// that very process, never a later one with the same pid, and polls readable once it has exited
// (zombie included). A check of a known process is then one poll(); /proc is read again only for
// a pid not seen yet, or whose cached process has exited.
class LivenessCache {
 public:
  ~LivenessCache() {
    for (auto& [pid, e] : entries_) ::close(e.fd);
  }

  // True: alive, start time in *start. False: dead, or unknown (the caller reads /proc).
  bool alive(std::uint32_t pid, std::uint64_t* start) {
    auto it = entries_.find(pid);
    if (it == entries_.end()) return false;
    pollfd p{it->second.fd, POLLIN, 0};
    if (::poll(&p, 1, 0) == 0) {
      *start = it->second.start;
      return true;
    }
    ::close(it->second.fd);  // exited (or the poll failed): forget it
    entries_.erase(it);
    return false;
  }

  // Opens a pidfd, then reads /proc: the pidfd holds the process that had `pid` when opened, so
  // the start time read after it belongs to that process unless it already died (then the next
  // alive() sees it exited). Returns false if the process is gone or a zombie.
  bool verify(std::uint32_t pid, std::uint64_t* start) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
    if (fd < 0 && errno == ESRCH) return false;
    char state = 0;
    const bool ok = read_stat(pid, &state, start) && state != 'Z' && state != 'X';
    if (fd >= 0) {
      if (ok && entries_.size() < MAX_ENTRIES) {
        entries_[pid] = {fd, *start};
      } else {
        ::close(fd);
      }
    }
    return ok;
  }

 private:
  static constexpr std::size_t MAX_ENTRIES = 4096;  // one fd each
  struct Entry {
    int fd;
    std::uint64_t start;
  };
  std::unordered_map<std::uint32_t, Entry> entries_;
};

// Cached identity; threads may race to fill it, but they all compute the same value. The pid
// check refreshes it in a forked child.
std::atomic<std::uint32_t> g_cached_pid{0};
std::atomic<std::uint64_t> g_cached_start{0};

}  // namespace

std::uint64_t process_start_time(std::uint32_t pid) {
  char state = 0;
  std::uint64_t start = 0;
  if (!read_stat(pid, &state, &start)) return 0;
  return start;
}

ParticipantId self() {
  const auto pid = static_cast<std::uint32_t>(::getpid());
  if (g_cached_pid.load(std::memory_order_acquire) != pid) {
    g_cached_start.store(process_start_time(pid), std::memory_order_relaxed);
    g_cached_pid.store(pid, std::memory_order_release);
  }
  return ParticipantId{pid, g_cached_start.load(std::memory_order_relaxed)};
}

namespace {

// This thread's cache, kept through a pthread key rather than a thread_local: a thread_local in
// a library that is dlopened (librmw_baton_cpp, as rcl loads it) is reached through
// __tls_get_addr, and the LeakSanitizer of GCC 12's libasan misreads glibc 2.36's dynamic TLS
// block there and crashes at exit ("Tracer caught signal 11" after a passing rmw test, depending
// on which TLS variable a thread touched first). The key's destructor closes the pidfds when a
// thread ends; the main thread's cache lives until the process does.
LivenessCache& thread_cache() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    if (pthread_key_create(&k, [](void* c) { delete static_cast<LivenessCache*>(c); }) != 0) {
      std::fprintf(stderr, "baton: pthread_key_create failed for the liveness cache\n");
      std::abort();
    }
    return k;
  }();
  auto* cache = static_cast<LivenessCache*>(pthread_getspecific(key));
  if (cache == nullptr) {
    cache = new LivenessCache();
    pthread_setspecific(key, cache);
  }
  return *cache;
}

}  // namespace

bool is_alive(const ParticipantId& id) {
  if (id.pid == 0) return false;
  LivenessCache& cache = thread_cache();
  std::uint64_t start = 0;
  if (!cache.alive(id.pid, &start) && !cache.verify(id.pid, &start)) return false;
  // start_time 0: the owner has claimed but not yet recorded its start time; the pid decides.
  return id.start_time == 0 || start == id.start_time;
}

}  // namespace baton::shm
