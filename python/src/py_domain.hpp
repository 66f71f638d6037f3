// Publishers and subscriptions in a memory domain (host, staging, opencl:N[:sc], cuda:N) for
// Python, over api/domain_endpoints.hpp. A device loan or sample exposes its bytes where the
// consumer library can take them without a copy:
//
//   memory                                          __dlpack_device__   __dlpack__ / array
//   host-visible (host, staging, OpenCL on a        (1, 0) kDLCPU       the host pointer
//     host-unified device such as PoCL, SVM)
//   CUDA device memory                              (2, n) kDLCUDA      the device pointer
//   OpenCL buffer the CPU cannot address            (4, n) kDLOpenCL    NotHostVisibleError:
//                                                                       no DLPack consumer takes
//                                                                       kDLOpenCL; use `cl_mem`
//                                                                       (PyOpenCL) or read()
//
// Messages carry the same array header as host array topics (array_view.hpp), written into the
// domain's memory at publish, so a host subscriber of the topic sees the same dtype and shape.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_domains(nanobind::module_& m);
}  // namespace baton::py
