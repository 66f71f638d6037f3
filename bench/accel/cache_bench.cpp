#include "bench/accel/cache_bench.hpp"

namespace baton::bench::accel {

using namespace memory::domain;

Summary run_cache(DomainBackend& b, CommModel m, const Config& c,
                  const std::function<void(const DeviceView&, const DeviceView&)>& launch) {
  const std::size_t n = std::size_t{c.rows} * c.cols;
  auto mat = b.kernel_buffer(n * sizeof(float), m);
  auto out = b.kernel_buffer(c.rows * sizeof(float), m);
  if (!mat || !out) return {};
  float* h = reinterpret_cast<float*>((*mat)->begin_host(Access::Write));
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(i % 97);
  (*mat)->end_host();
  std::vector<double> times;
  volatile float sink = 0;
  for (int r = 0; r < c.runs + 1; ++r) {  // run 0 warms up (JIT, page faults, migrations)
    const double t0 = now_ms();
    float* a = reinterpret_cast<float*>((*mat)->begin_host(Access::ReadWrite));
    cpu_cache_work(a, n, c.cpu_iters);
    (*mat)->end_host();
    const DeviceView mv = (*mat)->begin_device(Access::Read);
    const DeviceView ov = (*out)->begin_device(Access::Write);
    launch(mv, ov);
    (*out)->end_device(Access::Write);
    (*mat)->end_device(Access::Read);
    const float* o = reinterpret_cast<const float*>((*out)->begin_host(Access::Read));
    sink = sink + o[0];
    (*out)->end_host();
    if (r > 0) times.push_back(now_ms() - t0);
  }
  return summarize_runs(times);
}

}  // namespace baton::bench::accel
