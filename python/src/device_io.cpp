#include "device_io.hpp"

#include <cstring>

#include "baton/memory/domain/cuda_backend.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#endif

namespace baton::py {
namespace {

using memory::domain::DeviceView;
using memory::domain::DomainBackend;
using memory::domain::DomainKind;

enum class Direction { ToView, FromView };

std::string transfer(DomainBackend& backend, const DeviceView& view, std::uint64_t offset,
                     void* host, std::uint64_t n, Direction dir) {
  if (offset > view.size || n > view.size - offset) {
    return "range [" + std::to_string(offset) + ", +" + std::to_string(n) +
           ") lies outside the buffer of " + std::to_string(view.size) + " bytes";
  }
  if (n == 0) return {};
  if (view.host != nullptr) {
    if (dir == Direction::ToView)
      std::memcpy(view.host + offset, host, n);
    else
      std::memcpy(host, view.host + offset, n);
    return {};
  }
  const DomainKind kind = backend.spec().kind;
#if BATON_HAVE_OPENCL
  if (kind == DomainKind::OpenCl && view.native != nullptr) {
    auto& cl = static_cast<memory::domain::OpenClBackend&>(backend);
    auto mem = static_cast<cl_mem>(view.native);
    const cl_int st =
        dir == Direction::ToView
            ? clEnqueueWriteBuffer(cl.queue(), mem, CL_TRUE, offset, n, host, 0, nullptr, nullptr)
            : clEnqueueReadBuffer(cl.queue(), mem, CL_TRUE, offset, n, host, 0, nullptr, nullptr);
    if (st != CL_SUCCESS) return "OpenCL transfer failed: " + memory::domain::cl_status_text(st);
    return {};
  }
#endif
  if (kind == DomainKind::Cuda && view.device != 0) {
    auto& cu = static_cast<memory::domain::CudaBackend&>(backend);
    cu.api().cuCtxSetCurrent(cu.context());
    const auto r = dir == Direction::ToView ? cu.api().cuMemcpyHtoD(view.device + offset, host, n)
                                            : cu.api().cuMemcpyDtoH(host, view.device + offset, n);
    if (r != 0) return "CUDA transfer failed (CUresult " + std::to_string(r) + ")";
    return {};
  }
  return "the " + backend.spec().str() + " buffer has no host pointer, cl_mem or device pointer";
}

}  // namespace

std::string write_view(DomainBackend& backend, const DeviceView& view, std::uint64_t offset,
                       const void* src, std::uint64_t n) {
  return transfer(backend, view, offset, const_cast<void*>(src), n, Direction::ToView);
}

std::string read_view(DomainBackend& backend, const DeviceView& view, std::uint64_t offset,
                      void* dst, std::uint64_t n) {
  return transfer(backend, view, offset, dst, n, Direction::FromView);
}

}  // namespace baton::py
