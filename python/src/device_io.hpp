// A few bytes between host memory and a DeviceView of any domain: the array header of a device
// message (written at publish, read at take), and the explicit copies `read()` / `write()` offer
// where a device buffer is not host-visible.
//
// Host-visible views (host, staging, OpenCL on a host-unified device such as PoCL, SVM, CUDA on
// an integrated GPU) are plain memcpy; an OpenCL buffer goes through the backend's queue
// (blocking clEnqueueRead/WriteBuffer); CUDA device memory through cuMemcpyDtoH / HtoD.
#pragma once

#include <cstdint>
#include <string>

#include "baton/memory/domain/domain_backend.hpp"

namespace baton::py {

// Each returns an empty string on success, otherwise what went wrong. [offset, offset + n) must
// lie within view.size (checked).
std::string write_view(memory::domain::DomainBackend& backend,
                       const memory::domain::DeviceView& view, std::uint64_t offset,
                       const void* src, std::uint64_t n);
std::string read_view(memory::domain::DomainBackend& backend,
                      const memory::domain::DeviceView& view, std::uint64_t offset, void* dst,
                      std::uint64_t n);

}  // namespace baton::py
