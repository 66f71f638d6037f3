#include "baton/shm/participant.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

bool is_alive(const ParticipantId& id) {
  if (id.pid == 0) return false;
  char state = 0;
  std::uint64_t start = 0;
  if (!read_stat(id.pid, &state, &start)) return false;
  if (state == 'Z' || state == 'X') return false;
  // start_time 0: the owner has claimed but not yet recorded its start time; the pid decides.
  return id.start_time == 0 || start == id.start_time;
}

}  // namespace baton::shm
