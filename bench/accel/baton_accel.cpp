// baton-bench-accel: seed 000's Table 1 on this machine's OpenCL device, plus copy bandwidth.
//
//   cache       CPU: a series of float sqrt / div / mul read from and written to the same matrix;
//               then the device: a 2D reduction of that matrix repeated `reps` times with linear
//               accesses. No overlap: the two phases run one after the other (as in the seed).
//   concurrent  one read and one write per element per iteration; the device works on one half
//               of the array while the CPU works on the other half, at the same time.
//   Each under SC (copy in / out), UM (SVM) and ZC (CL_MEM_USE_HOST_PTR, map / unmap); 30 runs
//   (5 with --quick), mean and SD in ms as in Table 1, plus median / p99 / max.
//   bandwidth   clEnqueueWriteBuffer / ReadBuffer (the "copy engine") for 64 KiB ... 64 MiB.
//
// Writes JSON lines (system, mode, size, median, p99, max, mean, sd, samples, unit) to
// out/bench/accel.json and prints a table.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/opencl_backend.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"

using namespace baton::memory::domain;

namespace {

struct Summary {
  baton::bench::LatencySummary s;
  double mean = 0, sd = 0;
};

Summary summarize(std::vector<double> v) {
  Summary out;
  if (v.empty()) return out;
  double sum = 0;
  for (double x : v) sum += x;
  out.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - out.mean) * (x - out.mean);
  out.sd = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0;
  out.s = baton::bench::summarize(v);
  return out;
}

FILE* g_json = nullptr;
void emit(const std::string& system, const std::string& mode, std::uint64_t size, const Summary& s,
          const char* unit) {
  if (g_json == nullptr) return;
  std::fprintf(g_json,
               "{\"system\":\"%s\",\"mode\":\"%s\",\"size\":%llu,\"median\":%.4f,\"p99\":%.4f,"
               "\"max\":%.4f,\"mean\":%.4f,\"sd\":%.4f,\"samples\":%zu,\"unit\":\"%s\"}\n",
               system.c_str(), mode.c_str(), static_cast<unsigned long long>(size), s.s.median,
               s.s.p99, s.s.max, s.mean, s.sd, s.s.samples, unit);
  std::fflush(g_json);
}

double now_ms() { return static_cast<double>(baton::bench::now_ns()) / 1e6; }

void check(cl_int st, const char* what) {
  if (st != CL_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, cl_status_text(st).c_str());
    std::exit(1);
  }
}

void set_buffer_arg(cl_kernel k, cl_uint i, const DeviceView& v) {
  if (v.svm) {
    check(clSetKernelArgSVMPointer(k, i, v.host), "clSetKernelArgSVMPointer");
  } else {
    check(clSetKernelArg(k, i, sizeof(cl_mem), &v.native), "clSetKernelArg");
  }
}

// CPU side of the cache benchmark: read, sqrt, div, mul, write back to the same element.
void cpu_cache_work(float* a, std::size_t n, int iters) {
  for (int it = 0; it < iters; ++it) {
    for (std::size_t i = 0; i < n; ++i) a[i] = std::sqrt(a[i] + 1.0f) / 1.0001f * 1.0002f;
  }
}

// CPU side of the concurrent benchmark: one read and one write per element per iteration.
void cpu_concurrent_work(volatile float* a, std::size_t n, int iters) {
  for (int it = 0; it < iters; ++it) {
    for (std::size_t i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1.0f;
  }
}

struct Config {
  int runs = 30;
  std::uint32_t rows = 1024, cols = 1024, reps = 4;  // cache: 4 MiB float matrix
  int cpu_iters = 2;
  std::size_t conc_elems = 4u << 20;  // concurrent: 16 MiB of floats
  int conc_iters = 8;
  int bw_samples = 20;
  std::uint64_t bw_max = 64ull << 20;
};

Summary run_cache(OpenClBackend& b, cl_program prog, CommModel m, const Config& c) {
  const std::size_t n = std::size_t{c.rows} * c.cols;
  auto mat = b.kernel_buffer(n * sizeof(float), m);
  auto out = b.kernel_buffer(c.rows * sizeof(float), m);
  if (!mat || !out) return {};
  float* h = reinterpret_cast<float*>((*mat)->begin_host(Access::Write));
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(i % 97);
  (*mat)->end_host();
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "cache_reduce", &st);
  check(st, "clCreateKernel cache_reduce");
  std::vector<double> times;
  volatile float sink = 0;
  for (int r = 0; r < c.runs + 1; ++r) {  // run 0 warms up (JIT, page faults)
    const double t0 = now_ms();
    float* a = reinterpret_cast<float*>((*mat)->begin_host(Access::ReadWrite));
    cpu_cache_work(a, n, c.cpu_iters);
    (*mat)->end_host();
    DeviceView mv = (*mat)->begin_device(Access::Read);
    DeviceView ov = (*out)->begin_device(Access::Write);
    set_buffer_arg(k, 0, mv);
    set_buffer_arg(k, 1, ov);
    clSetKernelArg(k, 2, sizeof(cl_uint), &c.cols);
    clSetKernelArg(k, 3, sizeof(cl_uint), &c.reps);
    const std::size_t global = c.rows;
    check(clEnqueueNDRangeKernel(b.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "enqueue cache_reduce");
    (*out)->end_device(Access::Write);
    (*mat)->end_device(Access::Read);
    const float* o = reinterpret_cast<const float*>((*out)->begin_host(Access::Read));
    sink = sink + o[0];
    (*out)->end_host();
    if (r > 0) times.push_back(now_ms() - t0);
  }
  clReleaseKernel(k);
  return summarize(times);
}

Summary run_concurrent(OpenClBackend& b, cl_program prog, CommModel m, const Config& c) {
  const std::size_t n = c.conc_elems, half = n / 2, bytes = n * sizeof(float);
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "concurrent_step", &st);
  check(st, "clCreateKernel concurrent_step");
  const cl_uint iters = static_cast<cl_uint>(c.conc_iters);
  clSetKernelArg(k, 1, sizeof(cl_uint), &iters);
  float* host = nullptr;
  cl_mem whole = nullptr, dev = nullptr;
  void* svm = nullptr;
  if (m == CommModel::UM) {
    if (!b.info().svm_fine) return {};  // coarse-grain SVM cannot be shared concurrently
    svm = clSVMAlloc(b.context(), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
    host = static_cast<float*>(svm);
    check(clSetKernelArgSVMPointer(k, 0, svm), "svm arg");
  } else {
    if (::posix_memalign(reinterpret_cast<void**>(&host), 4096, bytes) != 0) return {};
    if (m == CommModel::SC) {
      dev = clCreateBuffer(b.context(), CL_MEM_READ_WRITE, half * sizeof(float), nullptr, &st);
    } else {
      whole =
          clCreateBuffer(b.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &st);
      check(st, "USE_HOST_PTR buffer");
      cl_buffer_region region{0, half * sizeof(float)};
      dev = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &st);
    }
    check(st, "device buffer");
    clSetKernelArg(k, 0, sizeof(cl_mem), &dev);
  }
  for (std::size_t i = 0; i < n; ++i) host[i] = 1.0f;
  std::vector<double> times;
  const std::size_t global = half;
  for (int r = 0; r < c.runs + 1; ++r) {
    const double t0 = now_ms();
    float* cpu_half = host + half;
    if (m == CommModel::SC) {
      check(clEnqueueWriteBuffer(b.queue(), dev, CL_TRUE, 0, half * sizeof(float), host, 0, nullptr,
                                 nullptr),
            "write");
    } else if (m == CommModel::ZC) {
      // Map the CPU's half (not the kernel's) before the kernel is queued: both run at once.
      cpu_half = static_cast<float*>(
          clEnqueueMapBuffer(b.queue(), whole, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                             half * sizeof(float), half * sizeof(float), 0, nullptr, nullptr, &st));
      check(st, "map");
    }
    check(clEnqueueNDRangeKernel(b.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "enqueue concurrent_step");
    clFlush(b.queue());
    cpu_concurrent_work(cpu_half, n - half, c.conc_iters);
    clFinish(b.queue());
    if (m == CommModel::SC) {
      check(clEnqueueReadBuffer(b.queue(), dev, CL_TRUE, 0, half * sizeof(float), host, 0, nullptr,
                                nullptr),
            "read");
    } else if (m == CommModel::ZC) {
      clEnqueueUnmapMemObject(b.queue(), whole, cpu_half, 0, nullptr, nullptr);
      clFinish(b.queue());
    }
    if (r > 0) times.push_back(now_ms() - t0);
  }
  clReleaseKernel(k);
  if (dev != nullptr) clReleaseMemObject(dev);
  if (whole != nullptr) clReleaseMemObject(whole);
  if (svm != nullptr) {
    clSVMFree(b.context(), svm);
  } else {
    std::free(host);
  }
  return summarize(times);
}

std::string human(std::uint64_t b) {
  char buf[32];
  if (b >= (1u << 20)) {
    std::snprintf(buf, sizeof(buf), "%llu MiB", static_cast<unsigned long long>(b >> 20));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu KiB", static_cast<unsigned long long>(b >> 10));
  }
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  std::string json = "out/bench/accel.json";
  std::string domain = "opencl:0";
  bool append = false;
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
      json = argv[++i];
    } else if (a == "--append") {
      append = true;
    } else if (a == "--domain" && i + 1 < argc) {
      domain = argv[++i];
    } else {
      std::printf(
          "usage: baton-bench-accel [--quick] [--all] [--runs N] [--domain opencl:N]\n"
          "                         [--json PATH] [--append]\n"
          "Seed 000's Table 1 on an OpenCL device: the cache benchmark (CPU sqrt/div/mul on a\n"
          "matrix, then a repeated 2D reduction on the device) and the concurrent benchmark (one\n"
          "read + one write per element per iteration, CPU and device at the same time), each\n"
          "under SC, UM and ZC, 30 runs (5 with --quick), mean and SD; then host<->device copy\n"
          "bandwidth for 64 KiB .. 64 MiB. JSON lines go to out/bench/accel.json (replaced\n"
          "unless --append).\n");
      return a == "--help" ? 0 : 2;
    }
  }
  auto opened = open_domain(domain);
  if (!opened) {
    std::fprintf(stderr, "baton-bench-accel: %s\n", opened.error().detail.c_str());
    return 1;
  }
  auto b = std::dynamic_pointer_cast<OpenClBackend>(*opened);
  if (!b) {
    std::fprintf(stderr, "baton-bench-accel: %s is not an OpenCL domain\n", domain.c_str());
    return 2;
  }
  std::filesystem::path p(json);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  g_json = std::fopen(json.c_str(), append ? "a" : "w");
  auto prog = b->build(kernels::OPENCL_SOURCE);
  if (!prog) {
    std::fprintf(stderr, "%s\n", prog.error().detail.c_str());
    return 1;
  }
  const std::string system = domain + " " + b->info().name;
  std::printf("device: %s (%s), host-unified memory: %s, SVM fine-grain: %s\n",
              b->info().name.c_str(), b->info().platform.c_str(),
              b->info().host_unified ? "yes" : "no", b->info().svm_fine ? "yes" : "no");
  std::printf("runs: %d per cell (+1 warm-up), times in ms per run\n\n", c.runs);
  std::printf("%-11s %-5s %-8s %10s %8s %10s %10s %10s\n", "benchmark", "model", "size", "mean",
              "SD", "median", "p99", "max");
  for (const char* bench : {"cache", "concurrent"}) {
    for (CommModel m : {CommModel::SC, CommModel::UM, CommModel::ZC}) {
      const bool cache = std::strcmp(bench, "cache") == 0;
      const std::uint64_t size =
          cache ? std::uint64_t{c.rows} * c.cols * sizeof(float) : c.conc_elems * sizeof(float);
      if (!b->info().supports(m)) {
        std::printf("%-11s %-5s %-8s %10s\n", bench, std::string(to_string(m)).c_str(),
                    human(size).c_str(), "unsupported");
        continue;
      }
      const Summary s = cache ? run_cache(*b, *prog, m, c) : run_concurrent(*b, *prog, m, c);
      std::printf("%-11s %-5s %-8s %10.2f %8.2f %10.2f %10.2f %10.2f\n", bench,
                  std::string(to_string(m)).c_str(), human(size).c_str(), s.mean, s.sd, s.s.median,
                  s.s.p99, s.s.max);
      emit(system, std::string(bench) + "-" + std::string(to_string(m)), size, s, "ms");
    }
  }
  // Copy-engine bandwidth.
  std::printf("\n%-8s %14s %14s %14s %14s\n", "size", "h2d median us", "h2d GB/s", "d2h median us",
              "d2h GB/s");
  void* host = nullptr;
  if (::posix_memalign(&host, 4096, c.bw_max) != 0) return 1;
  std::memset(host, 1, c.bw_max);
  cl_int st = CL_SUCCESS;
  cl_mem dev = clCreateBuffer(b->context(), CL_MEM_READ_WRITE, c.bw_max, nullptr, &st);
  check(st, "bandwidth buffer");
  for (std::uint64_t size = 64 << 10; size <= c.bw_max; size *= 4) {
    Summary dir[2];
    for (int d = 0; d < 2; ++d) {
      std::vector<double> us;
      for (int i = 0; i < c.bw_samples + 1; ++i) {
        const double t0 = now_ms();
        if (d == 0) {
          clEnqueueWriteBuffer(b->queue(), dev, CL_TRUE, 0, size, host, 0, nullptr, nullptr);
        } else {
          clEnqueueReadBuffer(b->queue(), dev, CL_TRUE, 0, size, host, 0, nullptr, nullptr);
        }
        if (i > 0) us.push_back((now_ms() - t0) * 1000.0);
      }
      dir[d] = summarize(us);
      emit(system, d == 0 ? "copy-h2d" : "copy-d2h", size, dir[d], "us");
    }
    auto gbs = [&](double us) { return us > 0 ? static_cast<double>(size) / (us * 1e3) : 0.0; };
    std::printf("%-8s %14.1f %14.2f %14.1f %14.2f\n", human(size).c_str(), dir[0].s.median,
                gbs(dir[0].s.median), dir[1].s.median, gbs(dir[1].s.median));
  }
  clReleaseMemObject(dev);
  std::free(host);
  clReleaseProgram(*prog);
  if (g_json != nullptr) std::fclose(g_json);
  std::printf("\nJSON lines: %s\n", json.c_str());
  return 0;
}
