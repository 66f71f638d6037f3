// baton-floor-futex: the kernel floor for a blocking hand-off.
// Parent and forked child share two 32-bit words in an anonymous MAP_SHARED mapping. The parent
// stores sequence number i into "ping" and FUTEX_WAKEs it, then FUTEX_WAITs on "pong" until it
// reads i; the child does the mirror image. Every message costs one wake-up of a sleeping
// process. One-way latency = RTT / 2. Size-independent: reported once as size 64.
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <new>
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;
using baton::bench::now_ns;

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
  pp::Options o = pp::parse_options(argc, argv, info);
  if (o.echo) pp::die("this program has no exec'd echo role");

  pp::parent_setup(o);
  pp::print_table_header(info, o);
  for (const auto& mode : o.modes) {
    const std::uint64_t size = 64;
    std::size_t samples = pp::samples_for(o, size);
    std::size_t warmup = pp::warmup_for(samples);
    std::size_t total = samples + warmup;
    void* m =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) pp::fail("mmap failed");
    auto* sh = new (m) Shared();
    const pid_t parent = getpid();
    pp::fork_echo(o, [&] {
      for (std::uint32_t i = 1; i <= total; ++i) {
        wait_for(&sh->ping.value, i, [&] {
          if (getppid() != parent) _exit(1);
        });
        sh->pong.value.store(i, std::memory_order_release);
        futex_wake(&sh->pong.value);
      }
      return 0;
    });
    std::vector<std::uint64_t> rtt(total);
    pp::arm_deadline(300);
    for (std::uint32_t i = 1; i <= total; ++i) {
      std::uint64_t t0 = now_ns();
      sh->ping.value.store(i, std::memory_order_release);
      futex_wake(&sh->ping.value);
      wait_for(&sh->pong.value, i, [] { pp::echo_alive(); });
      rtt[i - 1] = now_ns() - t0;
    }
    pp::disarm_deadline();
    pp::finish_echo();
    munmap(m, sizeof(Shared));
    pp::report_rtt(info, o, mode, size, rtt, warmup);
  }
  pp::shutdown_all();
  return 0;
}
