// Parts of the CUDA accel benchmark beyond seed 000's table (cuda_bench.cpp runs them).
#pragma once

#include <string>

#include "baton/memory/domain/cuda_backend.hpp"
#include "bench/accel/accel_report.hpp"

namespace baton::bench::accel {

// DomainSubscriber takes of 4 MiB and 24 MiB messages into `domain`, chunk ranges page-locked
// and not: the printed table and "take-pageable" / "take-registered" JSON lines.
void report_cuda_take(memory::domain::CudaBackend& b, const std::string& domain, Report& report,
                      const Config& c);

}  // namespace baton::bench::accel
