#include "bench/accel/accel_report.hpp"

#include <cmath>
#include <filesystem>

#include "bench/common/clock.hpp"

namespace baton::bench::accel {

using memory::domain::CommModel;

Summary summarize_runs(std::vector<double> v) {
  Summary out;
  if (v.empty()) return out;
  double sum = 0;
  for (double x : v) sum += x;
  out.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - out.mean) * (x - out.mean);
  out.sd = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0;
  out.s = summarize(v);
  return out;
}

double now_ms() { return static_cast<double>(now_ns()) / 1e6; }

void cpu_cache_work(float* a, std::size_t n, int iters) {
  for (int it = 0; it < iters; ++it) {
    for (std::size_t i = 0; i < n; ++i) a[i] = std::sqrt(a[i] + 1.0f) / 1.0001f * 1.0002f;
  }
}

void cpu_concurrent_work(volatile float* a, std::size_t n, int iters) {
  for (int it = 0; it < iters; ++it) {
    for (std::size_t i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1.0f;
  }
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

Report::Report(const Config& c, std::string system) : c_(c), system_(std::move(system)) {
  std::filesystem::path p(c.json);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  json_ = std::fopen(c.json.c_str(), c.append ? "a" : "w");
}

Report::~Report() {
  if (json_ != nullptr) std::fclose(json_);
}

void Report::emit(const std::string& mode, std::uint64_t size, const Summary& s, const char* unit) {
  if (json_ == nullptr) return;
  std::fprintf(json_,
               "{\"system\":\"%s\",\"mode\":\"%s\",\"size\":%llu,\"median\":%.4f,\"p99\":%.4f,"
               "\"max\":%.4f,\"mean\":%.4f,\"sd\":%.4f,\"samples\":%zu,\"unit\":\"%s\"}\n",
               system_.c_str(), mode.c_str(), static_cast<unsigned long long>(size), s.s.median,
               s.s.p99, s.s.max, s.mean, s.sd, s.s.samples, unit);
  std::fflush(json_);
}

void Report::table(const memory::domain::DeviceInfo& info,
                   const std::function<Summary(bool, CommModel)>& run) {
  std::printf("runs: %d per cell (+1 warm-up), times in ms per run\n\n", c_.runs);
  std::printf("%-11s %-5s %-8s %10s %8s %10s %10s %10s\n", "benchmark", "model", "size", "mean",
              "SD", "median", "p99", "max");
  for (const bool cache : {true, false}) {
    const char* bench = cache ? "cache" : "concurrent";
    for (CommModel m : {CommModel::SC, CommModel::UM, CommModel::ZC}) {
      const std::uint64_t size =
          cache ? std::uint64_t{c_.rows} * c_.cols * sizeof(float) : c_.conc_elems * sizeof(float);
      const std::string model(to_string(m));
      const Summary s = info.supports(m) ? run(cache, m) : Summary{};
      if (s.s.samples == 0) {
        std::printf("%-11s %-5s %-8s %10s\n", bench, model.c_str(), human(size).c_str(),
                    "unsupported");
        continue;
      }
      std::printf("%-11s %-5s %-8s %10.2f %8.2f %10.2f %10.2f %10.2f\n", bench, model.c_str(),
                  human(size).c_str(), s.mean, s.sd, s.s.median, s.s.p99, s.s.max);
      emit(std::string(bench) + "-" + model, size, s, "ms");
    }
  }
}

void Report::bandwidth(const std::string& label,
                       const std::function<void(bool, std::uint64_t)>& copy) {
  std::printf("\n%-8s %14s %14s %14s %14s  %s\n", "size", "h2d median us", "h2d GB/s",
              "d2h median us", "d2h GB/s", label.empty() ? "" : label.c_str() + 1);
  for (std::uint64_t size = 64 << 10; size <= c_.bw_max; size *= 4) {
    Summary dir[2];
    for (int d = 0; d < 2; ++d) {
      std::vector<double> us;
      for (int i = 0; i < c_.bw_samples + 1; ++i) {  // sample 0 warms up
        const double t0 = now_ms();
        copy(d == 0, size);
        if (i > 0) us.push_back((now_ms() - t0) * 1000.0);
      }
      dir[d] = summarize_runs(us);
      emit((d == 0 ? "copy-h2d" : "copy-d2h") + label, size, dir[d], "us");
    }
    auto gbs = [&](double us) { return us > 0 ? static_cast<double>(size) / (us * 1e3) : 0.0; };
    std::printf("%-8s %14.1f %14.2f %14.1f %14.2f\n", human(size).c_str(), dir[0].s.median,
                gbs(dir[0].s.median), dir[1].s.median, gbs(dir[1].s.median));
  }
}

}  // namespace baton::bench::accel
