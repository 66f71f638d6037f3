// What seed 000's two programs share (baton-bench-seed000: native, baton, the CycloneDDS and
// baton stand-ins; baton-bench-seed000-rcl: rcl C++ nodes on an RMW): options, the timed step
// loop, a worker's share of the work, node processes, and the summary / JSON / raw output, so a
// row differs from another only in how its nodes exchange the data.
#pragma once

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"
#include "bench/seed000/gpu_worker.hpp"
#include "bench/seed000/workload.hpp"

namespace seed000 {

struct Options {
  std::string transport = "native";
  CommModel model = CommModel::SC;
  std::string model_name = "SC";
  Bench bench = Bench::Cache;
  std::string bench_name = "cache";
  int nodes = 2;
  int runs = 30;
  int warmup = 5;
  std::string json, raw, phases;
  int domain = 88;
  int total() const { return warmup + runs; }
};

// Parses the options both programs take; prints `usage` on --help (exit 0) or an unknown option
// (exit 2). The transport is checked by the program that runs it.
inline Options parse_options(int argc, char** argv, const char* usage) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) fail("missing value for " + a);
      return argv[++i];
    };
    if (a == "--transport") {
      o.transport = next();
    } else if (a == "--model") {
      o.model_name = next();
    } else if (a == "--bench") {
      o.bench_name = next();
    } else if (a == "--nodes") {
      o.nodes = std::atoi(next().c_str());
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::atoi(next().c_str()));
    } else if (a == "--quick") {
      o.runs = 5;
    } else if (a == "--json") {
      o.json = next();
    } else if (a == "--raw") {
      o.raw = next();
    } else if (a == "--phases") {
      o.phases = next();
    } else if (a == "--domain") {
      o.domain = std::atoi(next().c_str());
    } else {
      std::fputs(usage, a == "--help" ? stdout : stderr);
      std::exit(a == "--help" ? 0 : 2);
    }
  }
  if (o.model_name == "SC") {
    o.model = CommModel::SC;
  } else if (o.model_name == "UM") {
    o.model = CommModel::UM;
  } else if (o.model_name == "ZC") {
    o.model = CommModel::ZC;
  } else {
    fail("unknown model " + o.model_name + " (SC, UM or ZC)");
  }
  if (o.bench_name == "cache") {
    o.bench = Bench::Cache;
  } else if (o.bench_name == "concurrent") {
    o.bench = Bench::Concurrent;
  } else {
    fail("unknown benchmark " + o.bench_name + " (cache or concurrent)");
  }
  if (o.nodes != 2 && o.nodes != 3 && o.nodes != 5) fail("--nodes must be 2, 3 or 5");
  return o;
}

inline double now_ms() { return static_cast<double>(baton::bench::now_ns()) / 1e6; }

inline float* aligned_floats(std::size_t n) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, n * sizeof(float)) != 0) fail("posix_memalign");
  std::memset(p, 0, n * sizeof(float));
  return static_cast<float*>(p);
}

inline volatile float g_sink = 0;  // keeps the results alive past the optimizer

// The coordinator's own CPU share of the current step, in ms (2 nodes and the native
// reference; 0 otherwise): written to --phases with each step's total, warm-up included.
inline double g_share_ms = 0;
template <typename F>
void own_share(F&& f) {
  const double t0 = now_ms();
  f();
  g_share_ms = now_ms() - t0;
}

// A CPU coordinator's own share of a concurrent step, in place in `data` (the step's whole
// array), timed as own_share; nothing for other benchmarks and GPU coordinators.
inline void coordinator_concurrent_share(const Plan& p, float* data) {
  if (!p.coordinator_is_cpu() || p.bench != Bench::Concurrent) return;
  const Span c = p.coordinator_share();
  own_share([&] { cpu_concurrent_pass(data + c.offset, data + c.offset, c.count); });
}

// The 2-node CPU coordinator's own share of a concurrent step's array, copied out of `state`
// (the result-topic data flow keeps it apart from the workers' results); empty otherwise.
inline std::vector<float> coordinator_own_share(const Plan& p, const std::vector<float>& state) {
  if (!p.coordinator_is_cpu() || p.bench != Bench::Concurrent) return {};
  const Span c = p.coordinator_share();
  return {state.begin() + static_cast<std::ptrdiff_t>(c.offset),
          state.begin() + static_cast<std::ptrdiff_t>(c.offset + c.count)};
}

// The result-topic data flow of native baton and of rcl loans (baton_seed000.cpp: run_baton,
// rcl_loaned_topics.hpp). 2-node cache: the CPU node's matrix is each step's message.
inline bool matrix_step(const Plan& p) { return p.coordinator_is_cpu() && p.bench == Bench::Cache; }
// Otherwise the worker whose result topic holds `r`'s input: its own previous result; for a
// cache GPU node, the CPU node of the same rows.
inline Role input_source(const Plan& p, const Role& r) {
  return p.bench == Bench::Cache ? Role{false, r.index} : r;
}
// Subscribers of worker `w`'s result topic: the coordinator, plus every worker reading it.
inline std::size_t result_readers(const Plan& p, const Role& w) {
  std::size_t n = 1;
  if (matrix_step(p)) return n;
  for (const Role& r : p.workers) {
    const Role s = input_source(p, r);
    if (s.gpu == w.gpu && s.index == w.index) ++n;
  }
  return n;
}

// Where worker `r`'s output merges on the coordinator: a GPU node's cache sums go to `sums`,
// everything else back into the step's array `data`.
inline float* merge_target(const Plan& p, const Role& r, float* sums, float* data) {
  return (p.bench == Bench::Cache && r.gpu ? sums : data) + p.output(r).offset;
}

// Collects the timed runs (after the warm-up) of a coordinator's step loop.
struct Timer {
  const Options& o;
  std::vector<double> t;
  template <typename Step>
  std::vector<double> loop(Step&& step) {
    FILE* phases = o.phases.empty() ? nullptr : std::fopen(o.phases.c_str(), "w");
    if (phases) std::fprintf(phases, "step,warmup,total_ms,own_cpu_share_ms\n");
    for (int k = 0; k < o.total(); ++k) {
      g_share_ms = 0;
      const double t0 = now_ms();
      step(k);
      const double dt = now_ms() - t0;
      if (k >= o.warmup) t.push_back(dt);
      if (phases)
        std::fprintf(phases, "%d,%d,%.4f,%.4f\n", k, k < o.warmup ? 1 : 0, dt, g_share_ms);
    }
    if (phases) std::fclose(phases);
    return t;
  }
};

// A worker's share: reads `in` (its input span), writes `out` (its output span).
inline void compute(const Plan& p, const Role& r, GpuWorker* gpu, const float* in, float* out) {
  const Span s = p.input(r);
  if (!r.gpu) return cpu_share(p.bench, in, out, s.count);
  if (p.bench == Bench::Cache) {
    gpu->reduce(in, static_cast<std::uint32_t>(s.count / kCols), out);
  } else {
    gpu->concurrent(in, out, s.count);
  }
}

inline std::unique_ptr<GpuWorker> gpu_for(const Options& o, const Role& r) {
  if (!r.gpu) return nullptr;
  return std::make_unique<GpuWorker>(o.model, Plan::make(o.bench, o.nodes).input(r).count);
}

// A node process: `body` runs in a child that dies with its parent. Fork before the parent makes
// any middleware or device object (their threads do not survive a fork).
inline pid_t fork_node(const std::function<void()>& body) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    body();
    std::fflush(nullptr);
    _exit(0);
  }
  return pid;
}

inline void reap(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("a worker node exited abnormally");
  }
}

// The summary line, the JSON line (--json, appended) and the runs (--raw) of a finished cell.
inline void finish(const Options& o, const std::vector<double>& t) {
  if (t.empty()) fail("no runs timed");
  double sum = 0;
  for (double x : t) sum += x;
  const double mean = sum / static_cast<double>(t.size());
  double sq = 0;
  for (double x : t) sq += (x - mean) * (x - mean);
  const double sd = t.size() > 1 ? std::sqrt(sq / static_cast<double>(t.size() - 1)) : 0.0;
  std::vector<double> sorted = t;
  const auto s = baton::bench::summarize(sorted);
  const int nodes = o.transport == "native" ? 1 : o.nodes;
  const std::size_t bytes = Plan::make(o.bench, o.nodes).floats() * sizeof(float);
  const std::string config =
      (nodes == 1 ? std::string("native") : std::to_string(nodes) + " nodes") + " " + o.bench_name +
      " " + o.model_name;
  std::printf(
      "%-15s %-24s runs %3zu  mean %9.2f ms  sd %8.2f  median %9.2f  p99 %9.2f  max %9.2f\n",
      o.transport.c_str(), config.c_str(), t.size(), mean, sd, s.median, s.p99, s.max);
  if (!o.json.empty()) {
    std::filesystem::path jp(o.json);
    if (jp.has_parent_path()) std::filesystem::create_directories(jp.parent_path());
    if (FILE* f = std::fopen(o.json.c_str(), "a")) {
      std::fprintf(f,
                   "{\"system\":\"%s\",\"configuration\":\"%s\",\"size\":%zu,\"mean\":%.4f,"
                   "\"median\":%.4f,\"sd\":%.4f,\"p99\":%.4f,\"max\":%.4f,\"samples\":%zu,"
                   "\"unit\":\"ms\"}\n",
                   o.transport.c_str(), config.c_str(), bytes, mean, s.median, sd, s.p99, s.max,
                   t.size());
      std::fclose(f);
    }
  }
  if (!o.raw.empty()) {
    if (FILE* f = std::fopen(o.raw.c_str(), "w")) {
      for (double x : t) std::fprintf(f, "%.6f\n", x);
      std::fclose(f);
    }
  }
}

}  // namespace seed000
