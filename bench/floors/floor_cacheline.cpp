// baton-floor-cacheline: the hardware floor for a busy-polling hand-off.
// Parent and forked child share one anonymous MAP_SHARED mapping holding two cache lines
// ("ping", written by the parent; "pong", written by the child). The parent stores sequence
// number i into ping and spins until pong == i; the child spins until ping == i and stores i
// into pong. One-way latency = RTT / 2. Size-independent: reported once as size 64.
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;
using baton::bench::now_ns;

namespace {

struct alignas(64) Line {
  std::atomic<std::uint64_t> value{0};
};
struct Shared {
  Line ping;
  Line pong;
};
static_assert(sizeof(Shared) == 128);

inline void cpu_relax() { __builtin_ia32_pause(); }

}  // namespace

int main(int argc, char** argv) {
  pp::ProgramInfo info;
  info.program = "baton-floor-cacheline";
  info.system = "floor-cacheline";
  info.description =
      "Raw shared cache-line ping-pong between a process and its forked child (busy-wait on\n"
      "an anonymous MAP_SHARED mapping): the floor for any busy-polling shared-memory hand-off.";
  info.modes = {"busy-poll"};
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
    pp::fork_echo(o, [&] {
      for (std::uint64_t i = 1; i <= total; ++i) {
        while (sh->ping.value.load(std::memory_order_acquire) != i) cpu_relax();
        sh->pong.value.store(i, std::memory_order_release);
      }
      return 0;
    });
    std::vector<std::uint64_t> rtt(total);
    pp::arm_deadline(120);
    for (std::uint64_t i = 1; i <= total; ++i) {
      std::uint64_t t0 = now_ns();
      sh->ping.value.store(i, std::memory_order_release);
      while (sh->pong.value.load(std::memory_order_acquire) != i) {
        cpu_relax();
        pp::echo_alive();
      }
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
