// Seed 000's two benchmarks as the nodes of baton-bench-seed000 run them, and how a step's data
// is split between the nodes of each architecture.
//
//   cache       a 1024 x 1024 float matrix (4 MiB). CPU share: two passes of sqrt / div / mul,
//               read from and written to the same element; GPU share: the cache_reduce kernel
//               (row sums, repeated 4 times) over its rows.
//   concurrent  4 Mi floats (16 MiB): the first half is the GPU's, the second the CPU's; each
//               side does 8 iterations of one read + one write per element, at the same time.
//
// Architectures (seed 000 Figures 6-13): 2 nodes = a CPU node (coordinator, does the CPU share
// itself) + one GPU-wrapper node; 3 nodes = a scheduler + one CPU node + one GPU node; 5 nodes =
// a scheduler + two CPU nodes + two GPU nodes, each taking an equal share of the rows / half.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace seed000 {

enum class Bench { Cache, Concurrent };

constexpr std::uint32_t kRows = 1024, kCols = 1024, kReps = 4;
constexpr std::size_t kCacheFloats = std::size_t{kRows} * kCols;  // 4 MiB
constexpr int kCpuPasses = 2;
constexpr std::size_t kConcFloats = std::size_t{4} << 20;  // 16 MiB
constexpr std::uint32_t kConcIters = 8;

// A range of floats inside a step's data array.
struct Span {
  std::size_t offset = 0, count = 0;
  std::size_t bytes() const { return count * sizeof(float); }
};

struct Role {
  bool gpu = false;
  int index = 0;  // among the workers of its kind
  std::string name() const { return (gpu ? "gpu" : "cpu") + std::to_string(index); }
};

struct Plan {
  Bench bench = Bench::Cache;
  int nodes = 2;
  std::vector<Role> workers;  // every node but the coordinator
  int n_cpu = 0, n_gpu = 0;   // workers of each kind (2 nodes: the coordinator is the CPU)

  static Plan make(Bench b, int nodes) {
    Plan p;
    p.bench = b;
    p.nodes = nodes;
    const int pairs = nodes == 2 ? 0 : (nodes - 1) / 2;
    for (int i = 0; i < pairs; ++i) p.workers.push_back({false, i});
    for (int i = 0; i < (nodes == 2 ? 1 : pairs); ++i) p.workers.push_back({true, i});
    p.n_cpu = pairs;
    p.n_gpu = nodes == 2 ? 1 : pairs;
    return p;
  }
  bool coordinator_is_cpu() const { return nodes == 2; }
  std::size_t floats() const { return bench == Bench::Cache ? kCacheFloats : kConcFloats; }
  // Floats the coordinator keeps for the GPU results of a cache step (row sums).
  static constexpr std::size_t sums_floats() { return kRows; }

  // What a worker reads from the step's data array.
  Span input(const Role& r) const {
    if (bench == Bench::Cache) {
      const int parts = r.gpu ? n_gpu : n_cpu;
      const std::size_t rows = kRows / static_cast<std::size_t>(parts);
      return {rows * kCols * static_cast<std::size_t>(r.index), rows * kCols};
    }
    const std::size_t half = kConcFloats / 2;
    if (r.gpu) {
      const std::size_t n = half / static_cast<std::size_t>(n_gpu);
      return {n * static_cast<std::size_t>(r.index), n};
    }
    const std::size_t n = half / static_cast<std::size_t>(std::max(1, n_cpu));
    return {half + n * static_cast<std::size_t>(r.index), n};
  }
  // What a worker produces: its rows / share of the array, or (cache GPU) its rows' sums,
  // addressed inside the coordinator's sums array.
  Span output(const Role& r) const {
    if (bench == Bench::Cache && r.gpu) {
      const std::size_t rows = kRows / static_cast<std::size_t>(n_gpu);
      return {rows * static_cast<std::size_t>(r.index), rows};
    }
    return input(r);
  }
  // The coordinator's own CPU share in the 2-node architecture.
  Span coordinator_share() const {
    if (bench == Bench::Cache) return {0, kCacheFloats};
    return {kConcFloats / 2, kConcFloats / 2};
  }
};

// The CPU share of the cache benchmark: `passes` sqrt / div / mul passes, in -> out (the first
// pass reads `in`, the others read and write `out` in place; in == out is fine).
inline void cpu_cache_pass(const float* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::sqrt(in[i] + 1.0f) / 1.0001f * 1.0002f;
  for (int p = 1; p < kCpuPasses; ++p) {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::sqrt(out[i] + 1.0f) / 1.0001f * 1.0002f;
  }
}

// The CPU share of the concurrent benchmark: one read and one write per element per iteration
// (volatile: every iteration goes to memory, as the device kernel's does).
inline void cpu_concurrent_pass(const float* in, float* out, std::size_t n) {
  volatile float* o = out;
  for (std::size_t i = 0; i < n; ++i) o[i] = in[i] * 0.5f + 1.0f;
  for (std::uint32_t k = 1; k < kConcIters; ++k) {
    for (std::size_t i = 0; i < n; ++i) o[i] = o[i] * 0.5f + 1.0f;
  }
}

inline void cpu_share(Bench b, const float* in, float* out, std::size_t n) {
  if (b == Bench::Cache) {
    cpu_cache_pass(in, out, n);
  } else {
    cpu_concurrent_pass(in, out, n);
  }
}

inline std::vector<float> initial_data(std::size_t n) {
  std::vector<float> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<float>(i % 97);
  return s;
}

}  // namespace seed000
