// The device work of seed 002's graph nodes, on an OpenCL device (PoCL here): a bilateral filter
// over a 4K 8-bit grey image (the two-component experiment; 3x3 window so that PoCL's CPU
// "device" takes ~0.1 s, not seconds) and the synthetic graphs' per-byte kernel.
// Buffers a node needs on the device (inputs copied in, outputs before they are copied out) are
// created once per slot and reused; a buffer the middleware hands over (baton's domain
// endpoints) is used as it is.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/opencl_backend.hpp"

namespace seed002 {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "baton-bench-graph: error: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

constexpr std::uint32_t kImageW = 3840, kImageH = 2160;
constexpr std::size_t kImageBytes = std::size_t{kImageW} * kImageH;  // 8-bit grey

inline constexpr const char* kKernels = R"CLC(
// Bilateral filter over an 8-bit grey image, 3x3 window: a Gaussian spatial weight (sigma 2) and
// a rational range weight 1 / (1 + d^2 / sigma_r^2) (no exp per tap, so the device vectorises).
__kernel void bilateral(__global const uchar* in, __global uchar* out, uint w, uint h,
                        float inv_sr2) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= (int)w || y >= (int)h) return;
  float c = in[(size_t)y * w + x];
  float acc = 0.0f, wsum = 0.0f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
    size_t row = (size_t)clamp(y + dy, 0, (int)h - 1) * w;
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) {
      float p = in[row + clamp(x + dx, 0, (int)w - 1)];
      float d = p - c;
      float wgt = exp(-(float)(dx * dx + dy * dy) * 0.125f) / (1.0f + d * d * inv_sr2);
      acc += wgt * p;
      wsum += wgt;
    }
  }
  out[(size_t)y * w + x] = convert_uchar_sat(acc / wsum + 0.5f);
}
// Synthetic node work: every output byte from an input byte, `reps` rounds of v = v * 3 + 1;
// further inputs are folded in with xor.
__kernel void graph_work(__global const uchar* in, __global uchar* out, uint n_in, uint reps,
                         uint accumulate) {
  size_t i = get_global_id(0);
  uchar v = in[i % n_in];
  for (uint r = 0; r < reps; ++r) v = (uchar)(v * 3 + 1);
  out[i] = accumulate ? (uchar)(out[i] ^ v) : v;
}
)CLC";

// The same synthetic work on the CPU (graph nodes of kind "cpu").
inline void cpu_graph_work(const std::uint8_t* in, std::size_t n_in, std::uint8_t* out,
                           std::size_t n_out, std::uint32_t reps, bool accumulate) {
  for (std::size_t i = 0; i < n_out; ++i) {
    auto v = in[i % n_in];
    for (std::uint32_t r = 0; r < reps; ++r) v = static_cast<std::uint8_t>(v * 3 + 1);
    out[i] = accumulate ? static_cast<std::uint8_t>(out[i] ^ v) : v;
  }
}

class DeviceWork {
 public:
  DeviceWork() {
    auto opened = baton::memory::domain::open_domain("opencl:0");
    if (!opened) fail("opencl:0: " + opened.error().detail);
    b_ = std::dynamic_pointer_cast<baton::memory::domain::OpenClBackend>(*opened);
    if (!b_) fail("opencl:0 is not an OpenCL domain");
    auto prog = b_->build(kKernels);
    if (!prog) fail(prog.error().detail);
    prog_ = *prog;
    cl_int st = CL_SUCCESS;
    bilateral_ = clCreateKernel(prog_, "bilateral", &st);
    check(st, "bilateral");
    work_ = clCreateKernel(prog_, "graph_work", &st);
    check(st, "graph_work");
  }
  ~DeviceWork() {
    for (auto& [k, b] : buffers_) clReleaseMemObject(b.mem);
    clReleaseKernel(bilateral_);
    clReleaseKernel(work_);
    clReleaseProgram(prog_);
  }
  DeviceWork(const DeviceWork&) = delete;
  DeviceWork& operator=(const DeviceWork&) = delete;

  baton::memory::domain::OpenClBackend& backend() { return *b_; }

  // A device buffer of at least `bytes` for `slot` (one per input / output of the node).
  cl_mem buffer(int slot, std::size_t bytes) {
    auto& b = buffers_[slot];
    if (b.bytes < bytes) {
      if (b.mem) clReleaseMemObject(b.mem);
      cl_int st = CL_SUCCESS;
      b.mem = clCreateBuffer(b_->context(), CL_MEM_READ_WRITE, bytes, nullptr, &st);
      check(st, "device buffer");
      b.bytes = bytes;
    }
    return b.mem;
  }
  void upload(const void* host, std::size_t n, cl_mem dst) {
    check(clEnqueueWriteBuffer(b_->queue(), dst, CL_FALSE, 0, n, host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
  }
  void download(cl_mem src, void* host, std::size_t n) {
    check(clEnqueueReadBuffer(b_->queue(), src, CL_TRUE, 0, n, host, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }
  void graph(cl_mem in, std::size_t n_in, cl_mem out, std::size_t n_out, std::uint32_t reps,
             bool accumulate) {
    const cl_uint nin = static_cast<cl_uint>(n_in), r = reps, acc = accumulate ? 1 : 0;
    arg(work_, 0, in);
    arg(work_, 1, out);
    clSetKernelArg(work_, 2, sizeof(cl_uint), &nin);
    clSetKernelArg(work_, 3, sizeof(cl_uint), &r);
    clSetKernelArg(work_, 4, sizeof(cl_uint), &acc);
    const std::size_t global = n_out;
    check(clEnqueueNDRangeKernel(b_->queue(), work_, 1, nullptr, &global, nullptr, 0, nullptr,
                                 nullptr),
          "graph_work");
  }
  void bilateral(cl_mem in, cl_mem out) {
    const cl_uint w = kImageW, h = kImageH;
    const float inv_sr2 = 1.0f / (20.0f * 20.0f);
    arg(bilateral_, 0, in);
    arg(bilateral_, 1, out);
    clSetKernelArg(bilateral_, 2, sizeof(cl_uint), &w);
    clSetKernelArg(bilateral_, 3, sizeof(cl_uint), &h);
    clSetKernelArg(bilateral_, 4, sizeof(float), &inv_sr2);
    const std::size_t global[2] = {kImageW, kImageH};
    // Work-groups along a row: PoCL vectorises across neighbouring pixels.
    const std::size_t local[2] = {64, 1};
    check(clEnqueueNDRangeKernel(b_->queue(), bilateral_, 2, nullptr, global, local, 0, nullptr,
                                 nullptr),
          "bilateral");
  }
  void finish() { clFinish(b_->queue()); }

 private:
  static void check(cl_int st, const char* what) {
    if (st != CL_SUCCESS)
      fail(std::string(what) + ": " + baton::memory::domain::cl_status_text(st));
  }
  static void arg(cl_kernel k, cl_uint i, cl_mem m) {
    check(clSetKernelArg(k, i, sizeof(cl_mem), &m), "clSetKernelArg");
  }
  struct Buffer {
    cl_mem mem = nullptr;
    std::size_t bytes = 0;
  };
  std::shared_ptr<baton::memory::domain::OpenClBackend> b_;
  cl_program prog_ = nullptr;
  cl_kernel bilateral_ = nullptr, work_ = nullptr;
  std::map<int, Buffer> buffers_;
};

}  // namespace seed002
