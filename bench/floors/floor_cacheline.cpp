// baton-floor-cacheline: the hardware floor for a busy-polling hand-off.
// Parent and forked child share one anonymous MAP_SHARED mapping holding two cache lines
// ("ping", written by the parent; "pong", written by the child). The parent stores sequence
// number i into ping and spins until pong == i; the child spins until ping == i and stores i
// into pong. One-way latency = RTT / 2. Size-independent: reported once as size 64.
#include <atomic>
#include <cstdint>

#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;

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
  return pp::run_floor<Shared>(
      info, argc, argv, 120,
      [](Shared* sh, std::uint64_t total) {
        for (std::uint64_t i = 1; i <= total; ++i) {
          while (sh->ping.value.load(std::memory_order_acquire) != i) cpu_relax();
          sh->pong.value.store(i, std::memory_order_release);
        }
        return 0;
      },
      [](Shared* sh, std::uint64_t i) {
        sh->ping.value.store(i, std::memory_order_release);
        while (sh->pong.value.load(std::memory_order_acquire) != i) {
          cpu_relax();
          pp::echo_alive();
        }
      });
}
