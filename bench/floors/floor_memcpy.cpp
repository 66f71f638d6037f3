// baton-floor-memcpy: what copying a payload costs, for comparison with zero-copy hand-offs.
// One process (pinned to the first CPU of --cpus) copies between two warm buffers (allocated,
// touched and copied once before timing, so no page faults are measured) and times each memcpy
// with now_ns(). Below 4 KiB one timed sample is a batch of 4096/size copies divided by the
// batch length, so the ~0.02 µs clock read does not swamp the copy.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;
using baton::bench::now_ns;

namespace {

void* alloc_warm(std::size_t bytes, int fill) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) pp::die("mmap of " + std::to_string(bytes) + " bytes failed");
  std::memset(p, fill, bytes);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  pp::ProgramInfo info;
  info.program = "baton-floor-memcpy";
  info.system = "floor-memcpy";
  info.description =
      "memcpy of each payload size between two warm (pre-faulted, recently used) buffers in one\n"
      "process: the cost any copying transport pays at least once per message. Reports the\n"
      "median/p99/max of one memcpy (not a ping-pong; --cpus A,B pins to A).";
  info.modes = {"warm"};
  info.uses_payload_work = false;
  info.single_process = true;
  pp::Options o = pp::parse_options(argc, argv, info);
  if (o.echo) pp::die("this program has no echo role");
  if (o.cpu_a >= 0 && !baton::bench::pin_to_cpu(o.cpu_a))
    std::fprintf(stderr, "warning: could not pin to CPU %d\n", o.cpu_a);

  pp::print_table_header(info, o);
  for (const auto& mode : o.modes) {
    for (std::uint64_t size : o.sizes) {
      std::size_t samples = pp::samples_for(o, size);
      std::size_t warmup = pp::warmup_for(samples);
      std::size_t total = samples + warmup;
      std::size_t batch = size < 4096 ? 4096 / size : 1;
      char* src = static_cast<char*>(alloc_warm(size, 0x5a));
      char* dst = static_cast<char*>(alloc_warm(size, 0));
      std::memcpy(dst, src, size);
      std::vector<double> us;
      us.reserve(samples);
      for (std::size_t i = 0; i < total; ++i) {
        src[0] = static_cast<char>(i);
        std::uint64_t t0 = now_ns();
        for (std::size_t b = 0; b < batch; ++b) {
          std::memcpy(dst, src, size);
          asm volatile("" : : "r"(dst), "r"(src) : "memory");
        }
        std::uint64_t t1 = now_ns();
        if (i >= warmup) us.push_back(static_cast<double>(t1 - t0) / 1000.0 / batch);
      }
      if (dst[0] != src[0]) pp::die("memcpy check failed");
      munmap(src, size);
      munmap(dst, size);
      pp::report_us(info, o, mode, size, std::move(us));
    }
  }
  return 0;
}
