// baton-floor-futex: the kernel floor for a blocking hand-off.
// Parent and forked child share two 32-bit words in an anonymous MAP_SHARED mapping. The parent
// stores sequence number i into "ping" and FUTEX_WAKEs it, then FUTEX_WAITs on "pong" until it
// reads i; the child does the mirror image. Every message costs one wake-up of a sleeping
// process. One-way latency = RTT / 2. Size-independent: reported once as size 64.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <string>

#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;

namespace {

struct alignas(64) Word {
  std::atomic<std::uint32_t> value{0};
};
struct Shared {
  Word ping;
  Word pong;
};

// Shared (not FUTEX_PRIVATE) operations: the words live in a mapping shared by two processes.
long futex_wait(std::atomic<std::uint32_t>* w, std::uint32_t expected, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAIT, expected, timeout,
                 nullptr, 0);
}
long futex_wake(std::atomic<std::uint32_t>* w) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), FUTEX_WAKE, 1, nullptr, nullptr,
                 0);
}

// Blocks until *w == want. `check` runs after every timeout/interruption.
template <typename Check>
void wait_for(std::atomic<std::uint32_t>* w, std::uint32_t want, Check&& check) {
  const timespec timeout{0, 200 * 1000 * 1000};
  for (;;) {
    std::uint32_t cur = w->load(std::memory_order_acquire);
    if (cur == want) return;
    long r = futex_wait(w, cur, &timeout);
    if (r != 0 && errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT)
      pp::die(std::string("futex wait failed: ") + std::strerror(errno));
    check();
  }
}

}  // namespace

int main(int argc, char** argv) {
  pp::ProgramInfo info;
  info.program = "baton-floor-futex";
  info.system = "floor-futex";
  info.description =
      "futex wait/wake ping-pong on shared words between a process and its forked child: the\n"
      "floor for any blocking (sleeping) shared-memory hand-off in this CPU placement.";
  info.modes = {"blocking"};
  info.size_independent = true;
  info.uses_payload_work = false;
  const pid_t parent = getpid();
  return pp::run_floor<Shared>(
      info, argc, argv, 300,
      [parent](Shared* sh, std::uint64_t total) {
        for (std::uint32_t i = 1; i <= total; ++i) {
          wait_for(&sh->ping.value, i, [&] {
            if (getppid() != parent) _exit(1);
          });
          sh->pong.value.store(i, std::memory_order_release);
          futex_wake(&sh->pong.value);
        }
        return 0;
      },
      [](Shared* sh, std::uint64_t i) {
        const auto seq = static_cast<std::uint32_t>(i);
        sh->ping.value.store(seq, std::memory_order_release);
        futex_wake(&sh->ping.value);
        wait_for(&sh->pong.value, seq, [] { pp::echo_alive(); });
      });
}
