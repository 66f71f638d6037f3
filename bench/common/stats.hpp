// Latency statistics and the JSON record format shared by every benchmark.
// One record per row: system, mode, size, median, p99, max, samples, unit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace baton::bench {

struct LatencySummary {
  double median = 0;
  double p99 = 0;
  double max = 0;
  std::size_t samples = 0;
};

// Sorts `values` in place and summarises them (nearest-rank percentiles).
inline LatencySummary summarize(std::vector<double>& values) {
  LatencySummary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    std::size_t i = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(i, values.size() - 1)];
  };
  s.median = rank(0.5);
  s.p99 = rank(0.99);
  s.max = values.back();
  s.samples = values.size();
  return s;
}

struct Record {
  std::string system;      // e.g. "baton", "iceoryx2", "cyclonedds", "floor-futex"
  std::string mode;        // e.g. "busy-poll", "blocking", "adaptive"
  std::uint64_t size = 0;  // payload bytes
  LatencySummary stats;
  std::string unit = "us";
};

inline std::string to_json(const Record& r) {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "{\"system\":\"%s\",\"mode\":\"%s\",\"size\":%llu,\"median\":%.4f,\"p99\":%.4f,"
                "\"max\":%.4f,\"samples\":%zu,\"unit\":\"%s\"}",
                r.system.c_str(), r.mode.c_str(), static_cast<unsigned long long>(r.size),
                r.stats.median, r.stats.p99, r.stats.max, r.stats.samples, r.unit.c_str());
  return buf;
}

// Appends one JSON line per record to out/bench/<name>.json (created if absent).
inline void append_json(const std::string& path, const Record& r) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s\n", to_json(r).c_str());
    std::fclose(f);
  }
}

}  // namespace baton::bench
