// The accel benchmark on a CUDA device: the bundled kernels through NVRTC, SC / UM / ZC as
// CudaBackend's kernel buffers (cuMemAlloc + copies, cuMemAllocManaged, mapped pinned host
// memory), and the copy engine through baton's own pool copies (copy_from_host / copy_to_host)
// from pageable and from pinned host memory, and from a shm segment (what a take copies from)
// with page-locking off and on; then whole DomainSubscriber takes (cuda_take_bench.cpp).
#include "bench/accel/cuda_bench.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "baton/memory/domain/cuda_backend.hpp"
#include "baton/memory/domain/cuda_kernels.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"
#include "bench/accel/cache_bench.hpp"
#include "bench/accel/device_bench.hpp"

namespace baton::bench::accel {

using namespace memory::domain;
using namespace memory::domain::detail;  // NOLINT: the driver API's own names

namespace {

// A failed launch or kernel fault ends the run: a benchmark of a broken kernel means nothing.
void check(const Status<Error<DomainError>>& s, const char* what) {
  if (!s) {
    std::fprintf(stderr, "baton-bench-accel: %s: %s\n", what, s.error().detail.c_str());
    std::exit(1);
  }
}

void check(CUresult r, const CudaBackend& b, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* text = nullptr;
    b.api().cuGetErrorString(r, &text);
    std::fprintf(stderr, "baton-bench-accel: %s: %s\n", what, text ? text : "CUDA error");
    std::exit(1);
  }
}

Summary run_cache_cuda(CudaBackend& b, const CudaBundledKernels& k, CommModel m, const Config& c) {
  unsigned rows = c.rows, cols = c.cols, reps = c.reps;
  return run_cache(b, m, c, [&](const DeviceView& mv, const DeviceView& ov) {
    std::uint64_t matrix = mv.device, sums = ov.device;
    void* args[] = {&matrix, &sums, &rows, &cols, &reps};
    check(b.launch(k.cache_reduce, rows, args), "cache_reduce");
    check(b.synchronize(), "cache_reduce");  // a kernel fault ends the run, not a later call
  });
}

// The device steps the first half while the CPU steps the second half, at the same time.
Summary run_concurrent(CudaBackend& b, const CudaBundledKernels& k, CommModel m, const Config& c) {
  const auto& api = b.api();
  const std::size_t n = c.conc_elems, half = n / 2, bytes = n * sizeof(float);
  CUdeviceptr dev = 0;
  void* host = nullptr;
  api.cuCtxSetCurrent(b.context());
  switch (m) {
    case CommModel::SC:  // pinned host memory and a device copy of the kernel's half
      check(api.cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE), b, "cuMemHostAlloc");
      check(api.cuMemAlloc(&dev, half * sizeof(float)), b, "cuMemAlloc");
      break;
    case CommModel::UM:  // both sides on one managed allocation at once needs concurrent access
      if (!b.info().svm_fine) return {};
      check(api.cuMemAllocManaged(&dev, bytes, CU_MEM_ATTACH_GLOBAL), b, "cuMemAllocManaged");
      host = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dev));
      break;
    case CommModel::ZC:  // the kernel reads and writes host memory across the bus
      check(api.cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
            b, "cuMemHostAlloc");
      check(api.cuMemHostGetDevicePointer(&dev, host, 0), b, "cuMemHostGetDevicePointer");
      break;
  }
  float* data = static_cast<float*>(host);
  for (std::size_t i = 0; i < n; ++i) data[i] = 1.0f;
  unsigned count = static_cast<unsigned>(half), iters = static_cast<unsigned>(c.conc_iters);
  void* args[] = {&dev, &count, &iters};
  std::vector<double> times;
  for (int r = 0; r < c.runs + 1; ++r) {
    const double t0 = now_ms();
    if (m == CommModel::SC) check(api.cuMemcpyHtoD(dev, data, half * sizeof(float)), b, "HtoD");
    check(b.launch(k.concurrent_step, count, args), "concurrent_step");  // returns at once
    cpu_concurrent_work(data + half, n - half, c.conc_iters);
    check(b.synchronize(), "concurrent_step");
    if (m == CommModel::SC) check(api.cuMemcpyDtoH(data, dev, half * sizeof(float)), b, "DtoH");
    if (r > 0) times.push_back(now_ms() - t0);
  }
  if (m == CommModel::UM) {
    api.cuMemFree(dev);
  } else {
    if (m == CommModel::SC) api.cuMemFree(dev);
    api.cuMemFreeHost(host);
  }
  return summarize_runs(times);
}

}  // namespace

int run_cuda(const std::string& domain, const Config& c) {
  auto opened = open_domain(domain);
  if (!opened) {
    std::fprintf(stderr, "baton-bench-accel: %s: %s (no GPU result is reported)\n", domain.c_str(),
                 opened.error().detail.c_str());
    return 1;
  }
  auto b = std::dynamic_pointer_cast<CudaBackend>(*opened);
  if (!b) {
    std::fprintf(stderr, "baton-bench-accel: %s is not a CUDA domain\n", domain.c_str());
    return 2;
  }
  auto k = load_bundled_kernels(*b, {BATON_SOURCE_DIR});
  if (!k) {
    std::fprintf(stderr, "baton-bench-accel: %s: %s\n", domain.c_str(), k.error().detail.c_str());
    return 1;
  }
  const DeviceInfo& info = b->info();
  Report report(c, domain + " " + info.name);
  if (!report.ok()) {
    std::fprintf(stderr, "baton-bench-accel: cannot write %s\n", report.path().c_str());
    return 1;
  }
  std::printf("device: %s (CUDA), %u SMs, %.1f GiB, integrated: %s, concurrent managed: %s\n",
              info.name.c_str(), info.compute_units,
              static_cast<double>(info.global_mem_bytes) / (1ull << 30),
              info.host_unified ? "yes" : "no", info.svm_fine ? "yes" : "no");
  std::printf("kernels: NVRTC %s\n", k->nvrtc_path.c_str());
  report.table(info, [&](bool cache, CommModel m) {
    return cache ? run_cache_cuda(*b, *k, m, c) : run_concurrent(*b, *k, m, c);
  });
  // Copy engine: baton's pool copies (what a cuda:N subscriber's take costs), from pageable host
  // memory (a publisher's shm chunk is pageable) and from pinned host memory.
  auto pool = b->create_pool(c.bw_max, "bench-bandwidth");
  if (!pool) {
    std::fprintf(stderr, "baton-bench-accel: %s\n", pool.error().detail.c_str());
    return 1;
  }
  void* pageable = nullptr;
  if (::posix_memalign(&pageable, 4096, c.bw_max) != 0) return 1;
  std::memset(pageable, 1, c.bw_max);
  void* pinned = nullptr;
  check(b->api().cuMemHostAlloc(&pinned, c.bw_max, CU_MEMHOSTALLOC_PORTABLE), *b, "cuMemHostAlloc");
  std::memset(pinned, 1, c.bw_max);
  for (void* host : {pageable, pinned}) {
    report.bandwidth(host == pinned ? "-pinned" : "", [&](bool to_device, std::uint64_t size) {
      const bool ok = to_device ? b->copy_from_host(*pool, 0, host, size).has_value()
                                : b->copy_to_host(host, *pool, 0, size).has_value();
      if (!ok) {
        std::fprintf(stderr, "baton-bench-accel: copy of %llu bytes failed\n",
                     static_cast<unsigned long long>(size));
        std::exit(1);
      }
    });
  }
  // A shm segment like a publisher's chunks: pageable (registration cap 0: what takes did before)
  // and page-locked on first copy, reused after (each size's warm-up copy registers it).
  auto seg = shm::Segment::create(
      shm::segment_name("bench", "/bench/accel/chunk/" + std::to_string(::getpid())), c.bw_max,
      shm::SegmentKind::Test);
  if (!seg) {
    std::fprintf(stderr, "baton-bench-accel: %s\n", seg.error().detail.c_str());
    return 1;
  }
  seg->unlink();
  std::memset(seg->base(), 1, c.bw_max);
  const std::uint64_t cap = b->registrations().cap;
  for (bool registered : {false, true}) {
    b->set_registration_cap(registered ? cap : 0);
    report.bandwidth(
        registered ? "-shm-registered" : "-shm-pageable", [&](bool to_device, std::uint64_t size) {
          const bool ok = to_device ? b->copy_from_host(*pool, 0, seg->base(), size).has_value()
                                    : b->copy_to_host(seg->base(), *pool, 0, size).has_value();
          if (!ok) std::exit(1);
        });
  }
  const auto regs = b->registrations();
  std::printf("registrations: %llu made, %llu reused, %llu fallbacks, %llu MiB locked (cap %llu)\n",
              static_cast<unsigned long long>(regs.registrations),
              static_cast<unsigned long long>(regs.reused),
              static_cast<unsigned long long>(regs.fallbacks),
              static_cast<unsigned long long>(regs.bytes >> 20),
              static_cast<unsigned long long>(regs.cap >> 20));
  report_cuda_take(*b, domain, report, c);
  b->api().cuMemFreeHost(pinned);
  std::free(pageable);
  std::printf("\nJSON lines: %s\n", report.path().c_str());
  return 0;
}

}  // namespace baton::bench::accel
