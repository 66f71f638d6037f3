// What the accel benchmark's device back ends share: the configuration, the mean / SD summary of
// seed 000's Table 1, the CPU halves of the cache and concurrent benchmarks, and the report (the
// printed table and the JSON lines), so the OpenCL and CUDA runs measure and print alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "baton/memory/domain/comm_model.hpp"
#include "baton/memory/domain/domain_backend.hpp"
#include "bench/common/stats.hpp"

namespace baton::bench::accel {

struct Config {
  int runs = 30;
  std::uint32_t rows = 1024, cols = 1024, reps = 4;  // cache: 4 MiB float matrix
  int cpu_iters = 2;
  std::size_t conc_elems = 4u << 20;  // concurrent: 16 MiB of floats
  int conc_iters = 8;
  int bw_samples = 20;
  std::uint64_t bw_max = 64ull << 20;
  std::string json;
  bool append = false;
};

struct Summary {
  LatencySummary s;
  double mean = 0, sd = 0;
};
Summary summarize_runs(std::vector<double> v);

double now_ms();

// CPU side of the cache benchmark: read, sqrt, div, mul, write back to the same element.
void cpu_cache_work(float* a, std::size_t n, int iters);
// CPU side of the concurrent benchmark: one read and one write per element per iteration.
void cpu_concurrent_work(volatile float* a, std::size_t n, int iters);

// Prints the table and writes JSON lines (system, mode, size, median, p99, max, mean, sd,
// samples, unit) for one device.
class Report {
 public:
  Report(const Config& c, std::string system);
  ~Report();
  Report(const Report&) = delete;
  bool ok() const { return json_ != nullptr; }
  const std::string& path() const { return c_.json; }

  // cache and concurrent under SC, UM, ZC: `run(cache, model)` measures one cell (an empty
  // Summary when the device cannot run that cell); models the device lacks print "unsupported".
  void table(const memory::domain::DeviceInfo& info,
             const std::function<Summary(bool cache, memory::domain::CommModel)>& run);
  // Copy bandwidth for 64 KiB .. bw_max: `copy(to_device, size)` makes one blocking copy.
  // `label` suffixes the JSON modes ("copy-h2d<label>").
  void bandwidth(const std::string& label, const std::function<void(bool, std::uint64_t)>& copy);
  // One JSON line for a cell measured elsewhere (e.g. the CUDA take rows).
  void emit(const std::string& mode, std::uint64_t size, const Summary& s, const char* unit);

 private:
  const Config& c_;
  std::string system_;
  FILE* json_ = nullptr;
};

std::string human(std::uint64_t bytes);

}  // namespace baton::bench::accel
