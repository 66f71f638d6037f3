// The cache benchmark's timed loop (seed 000, Table 1), the same for every device back end: the
// CPU pass over the matrix, then `launch` runs cache_reduce on the kernel buffers' device views.
#pragma once

#include <functional>

#include "baton/memory/domain/domain_backend.hpp"
#include "bench/accel/accel_report.hpp"

namespace baton::bench::accel {

// `launch(matrix, row_sums)` queues the kernel (end_device waits for it). An empty Summary when
// the buffers cannot be made under `m`.
Summary run_cache(memory::domain::DomainBackend& b, memory::domain::CommModel m, const Config& c,
                  const std::function<void(const memory::domain::DeviceView& matrix,
                                           const memory::domain::DeviceView& sums)>& launch);

}  // namespace baton::bench::accel
