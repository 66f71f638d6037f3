// baton-bench-accel: seed 000's Table 1 on one accelerator domain (OpenCL by default, or CUDA with
// --domain cuda:N), plus copy bandwidth.
//
//   cache       CPU: a series of float sqrt / div / mul read from and written to the same matrix;
//               then the device: a 2D reduction of that matrix repeated `reps` times with linear
//               accesses. No overlap: the two phases run one after the other (as in the seed).
//   concurrent  one read and one write per element per iteration; the device works on one half
//               of the array while the CPU works on the other half, at the same time.
//   Each under SC (copy in / out), UM (SVM / managed memory) and ZC (host memory the device uses
//   in place); 30 runs (5 with --quick), mean and SD in ms as in Table 1, plus median / p99 / max.
//   bandwidth   host <-> device copies (the "copy engine") for 64 KiB ... 64 MiB.
//
// Writes JSON lines (system, mode, size, median, p99, max, mean, sd, samples, unit) to
// out/bench/accel.json (out/bench/accel-cuda.json for a CUDA domain) and prints a table. Without
// the device it says why and exits 1: it never reports a result it did not measure.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/accel/device_bench.hpp"

int main(int argc, char** argv) {
  baton::bench::accel::Config c;
  std::string domain = "opencl:0";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      c.runs = 5;
      c.bw_samples = 5;
    } else if (a == "--all") {
      // the default: every benchmark
    } else if (a == "--runs" && i + 1 < argc) {
      c.runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json" && i + 1 < argc) {
      c.json = argv[++i];
    } else if (a == "--append") {
      c.append = true;
    } else if (a == "--domain" && i + 1 < argc) {
      domain = argv[++i];
    } else {
      std::printf(
          "usage: baton-bench-accel [--quick] [--all] [--runs N] [--domain opencl:N|cuda:N]\n"
          "                         [--json PATH] [--append]\n"
          "Seed 000's Table 1 on an OpenCL or CUDA device: the cache benchmark (CPU sqrt/div/mul\n"
          "on a matrix, then a repeated 2D reduction on the device) and the concurrent benchmark\n"
          "(one read + one write per element per iteration, CPU and device at the same time),\n"
          "each under SC, UM and ZC, 30 runs (5 with --quick), mean and SD; then host<->device\n"
          "copy bandwidth for 64 KiB .. 64 MiB (CUDA: from pageable and from pinned memory).\n"
          "JSON lines go to out/bench/accel.json, or out/bench/accel-cuda.json for cuda:N\n"
          "(replaced unless --append). Exits 1 when the device is not there.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const bool cuda = domain.rfind("cuda:", 0) == 0;
  if (c.json.empty()) c.json = cuda ? "out/bench/accel-cuda.json" : "out/bench/accel.json";
  return cuda ? baton::bench::accel::run_cuda(domain, c)
              : baton::bench::accel::run_opencl(domain, c);
}
