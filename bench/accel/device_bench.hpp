// The accel benchmark's device back ends: each opens its domain, runs the cache / concurrent
// table and the copy bandwidth, and returns the process exit code (non-zero when the device is
// missing or fails: a result is never made up).
#pragma once

#include <string>

#include "bench/accel/accel_report.hpp"

namespace baton::bench::accel {

int run_opencl(const std::string& domain, const Config& c);  // "opencl:N"
int run_cuda(const std::string& domain, const Config& c);    // "cuda:N"

}  // namespace baton::bench::accel
