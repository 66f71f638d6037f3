// The GPU-wrapper node's device work for baton-bench-seed000, on an OpenCL device (PoCL here),
// under seed 000's three device models:
//   SC  clEnqueueWriteBuffer into a device buffer, kernel, clEnqueueReadBuffer back;
//   UM  one SVM allocation: the input is copied into it unless the CPU wrote there directly
//       (only an in-process native reference can), the result copied out of it;
//   ZC  CL_MEM_USE_HOST_PTR on the very bytes the node received and on the bytes it will send
//       (the publisher's / the shared buffer's bytes for the zero-copy transports).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/opencl_backend.hpp"
#include "bench/seed000/workload.hpp"

namespace seed000 {

using baton::memory::domain::CommModel;
using baton::memory::domain::OpenClBackend;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "baton-bench-seed000: error: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

// Out-of-place variant of concurrent_step for a node that reads a message and writes its reply:
// the first iteration reads `in`, the others read and write `out` (same traffic as in place).
inline constexpr const char* kExtraKernels = R"CLC(
__kernel void concurrent_step_to(__global const float* in, __global volatile float* out,
                                 uint iters) {
  size_t i = get_global_id(0);
  out[i] = in[i] * 0.5f + 1.0f;
  for (uint k = 1; k < iters; ++k) out[i] = out[i] * 0.5f + 1.0f;
}
)CLC";

class GpuWorker {
 public:
  // `max_floats`: the largest input / output this worker handles.
  GpuWorker(CommModel m, std::size_t max_floats) : m_(m), max_bytes_(max_floats * sizeof(float)) {
    auto opened = baton::memory::domain::open_domain("opencl:0");
    if (!opened) fail("opencl:0: " + opened.error().detail);
    b_ = std::dynamic_pointer_cast<OpenClBackend>(*opened);
    if (!b_) fail("opencl:0 is not an OpenCL domain");
    if (!b_->info().supports(m)) fail("device model not supported by this device");
    auto prog =
        b_->build(std::string(baton::memory::domain::kernels::OPENCL_SOURCE) + kExtraKernels);
    if (!prog) fail(prog.error().detail);
    prog_ = *prog;
    reduce_ = kernel("cache_reduce");
    step_ = kernel("concurrent_step");
    step_to_ = kernel("concurrent_step_to");
    cl_int st = CL_SUCCESS;
    if (m == CommModel::SC) {
      din_ = clCreateBuffer(b_->context(), CL_MEM_READ_WRITE, max_bytes_, nullptr, &st);
      check(st, "device input");
      dout_ = clCreateBuffer(b_->context(), CL_MEM_READ_WRITE, max_bytes_, nullptr, &st);
      check(st, "device output");
    } else if (m == CommModel::UM) {
      const cl_svm_mem_flags f = CL_MEM_READ_WRITE | (fine() ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
      svm_in_ = static_cast<float*>(clSVMAlloc(b_->context(), f, max_bytes_, 0));
      svm_out_ = static_cast<float*>(clSVMAlloc(b_->context(), f, max_bytes_, 0));
      if (!svm_in_ || !svm_out_) fail("clSVMAlloc");
    }
  }
  ~GpuWorker() {
    for (auto& [k, mem] : wraps_) clReleaseMemObject(mem);
    if (din_) clReleaseMemObject(din_);
    if (dout_) clReleaseMemObject(dout_);
    if (svm_in_) clSVMFree(b_->context(), svm_in_);
    if (svm_out_) clSVMFree(b_->context(), svm_out_);
    for (cl_kernel k : {reduce_, step_, step_to_}) clReleaseKernel(k);
    clReleaseProgram(prog_);
  }
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // UM, in-process reference only: the SVM input buffer the CPU may write directly (the
  // reference then passes it to reduce() / concurrent() and no copy is made).
  float* svm_input() { return svm_in_; }
  void host_access(float* p, std::size_t bytes, bool begin) {
    if (m_ != CommModel::UM || fine()) return;
    if (begin) {
      check(clEnqueueSVMMap(b_->queue(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, p, bytes, 0, nullptr,
                            nullptr),
            "svm map");
    } else {
      check(clEnqueueSVMUnmap(b_->queue(), p, 0, nullptr, nullptr), "svm unmap");
      clFinish(b_->queue());
    }
  }

  // Cache benchmark, device share: row sums of `rows` rows (kCols floats each) of `in`.
  void reduce(const float* in, std::uint32_t rows, float* out) {
    const std::size_t in_bytes = std::size_t{rows} * kCols * sizeof(float);
    const std::size_t out_bytes = rows * sizeof(float);
    auto run = [&](auto set_in, auto set_out) {
      set_in(reduce_, 0);
      set_out(reduce_, 1);
      const cl_uint cols = kCols, reps = kReps;
      clSetKernelArg(reduce_, 2, sizeof(cl_uint), &cols);
      clSetKernelArg(reduce_, 3, sizeof(cl_uint), &reps);
      enqueue(reduce_, rows);
    };
    transfer(in, in_bytes, out, out_bytes, run, /*in_place=*/false, {});
  }

  // Concurrent benchmark, device share: `n` floats in -> out (in == out: in place). `overlap`
  // runs on this thread while the device works (the in-process reference's CPU share).
  void concurrent(const float* in, float* out, std::size_t n,
                  const std::function<void()>& overlap = {}) {
    const std::size_t bytes = n * sizeof(float);
    const cl_uint iters = kConcIters;
    auto run = [&](auto set_in, auto set_out) {
      if (in == out || m_ != CommModel::ZC) {  // SC / UM work in place on the device copy
        set_out(step_, 0);
        clSetKernelArg(step_, 1, sizeof(cl_uint), &iters);
        enqueue(step_, n);
      } else {
        set_in(step_to_, 0);
        set_out(step_to_, 1);
        clSetKernelArg(step_to_, 2, sizeof(cl_uint), &iters);
        enqueue(step_to_, n);
      }
    };
    transfer(in, bytes, out, bytes, run, /*in_place=*/true, overlap);
  }

 private:
  // Moves the input in, runs `run(set_in, set_out)`, moves the output out, per model. With
  // `in_place` the SC / UM kernels work on the input's device copy and that copy is the result.
  template <typename Run>
  void transfer(const float* in, std::size_t in_bytes, float* out, std::size_t out_bytes, Run run,
                bool in_place, const std::function<void()>& overlap) {
    if (in_bytes > max_bytes_ || out_bytes > max_bytes_) fail("GPU worker: share too large");
    cl_command_queue q = b_->queue();
    if (m_ == CommModel::SC) {
      check(clEnqueueWriteBuffer(q, din_, CL_FALSE, 0, in_bytes, in, 0, nullptr, nullptr), "write");
      cl_mem result = in_place ? din_ : dout_;
      run([&](cl_kernel k, cl_uint i) { arg(k, i, din_); },
          [&](cl_kernel k, cl_uint i) { arg(k, i, result); });
      clFlush(q);
      if (overlap) overlap();
      check(clEnqueueReadBuffer(q, result, CL_TRUE, 0, out_bytes, out, 0, nullptr, nullptr),
            "read");
    } else if (m_ == CommModel::UM) {
      if (in != svm_in_) {  // a copy into unified memory: the message is not in SVM
        host_access(svm_in_, in_bytes, true);
        std::memcpy(svm_in_, in, in_bytes);
        host_access(svm_in_, in_bytes, false);
      }
      float* result = in_place ? svm_in_ : svm_out_;
      run([&](cl_kernel k, cl_uint i) { check(clSetKernelArgSVMPointer(k, i, svm_in_), "svm"); },
          [&](cl_kernel k, cl_uint i) { check(clSetKernelArgSVMPointer(k, i, result), "svm"); });
      clFlush(q);
      if (overlap) overlap();
      clFinish(q);
      if (out != result) {
        host_access(result, out_bytes, true);
        std::memcpy(out, result, out_bytes);
        host_access(result, out_bytes, false);
      }
    } else {
      cl_mem mi = wrap(in, in_bytes, in == out ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY);
      cl_mem mo = in == out ? mi : wrap(out, out_bytes, CL_MEM_READ_WRITE);
      run([&](cl_kernel k, cl_uint i) { arg(k, i, mi); },
          [&](cl_kernel k, cl_uint i) { arg(k, i, mo); });
      clFlush(q);
      if (overlap) overlap();
      // Map / unmap makes the device's writes visible to the host (a no-op copy on unified
      // devices, required by the OpenCL memory model).
      cl_int st = CL_SUCCESS;
      void* p =
          clEnqueueMapBuffer(q, mo, CL_TRUE, CL_MAP_READ, 0, out_bytes, 0, nullptr, nullptr, &st);
      check(st, "map result");
      clEnqueueUnmapMemObject(q, mo, p, 0, nullptr, nullptr);
      clFinish(q);
    }
  }

  static void check(cl_int st, const char* what) {
    if (st != CL_SUCCESS)
      fail(std::string(what) + ": " + baton::memory::domain::cl_status_text(st));
  }
  bool fine() const { return b_->info().svm_fine; }
  cl_kernel kernel(const char* name) {
    cl_int st = CL_SUCCESS;
    cl_kernel k = clCreateKernel(prog_, name, &st);
    check(st, name);
    return k;
  }
  static void arg(cl_kernel k, cl_uint i, cl_mem m) {
    check(clSetKernelArg(k, i, sizeof(cl_mem), &m), "clSetKernelArg");
  }
  void enqueue(cl_kernel k, std::size_t global) {
    check(clEnqueueNDRangeKernel(b_->queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }
  // CL_MEM_USE_HOST_PTR on received / outgoing bytes, cached per (address, size, flags): rings
  // and shared buffers reuse the same chunks, so each is wrapped once.
  cl_mem wrap(const float* p, std::size_t bytes, cl_mem_flags flags) {
    const auto key = std::make_tuple(p, bytes, flags);
    auto it = wraps_.find(key);
    if (it != wraps_.end()) return it->second;
    if (wraps_.size() > 64) {
      for (auto& [k, m] : wraps_) clReleaseMemObject(m);
      wraps_.clear();
    }
    cl_int st = CL_SUCCESS;
    cl_mem m = clCreateBuffer(b_->context(), flags | CL_MEM_USE_HOST_PTR, bytes,
                              const_cast<float*>(p), &st);
    check(st, "CL_MEM_USE_HOST_PTR");
    wraps_[key] = m;
    return m;
  }

  CommModel m_;
  std::size_t max_bytes_;
  std::shared_ptr<OpenClBackend> b_;
  cl_program prog_ = nullptr;
  cl_kernel reduce_ = nullptr, step_ = nullptr, step_to_ = nullptr;
  cl_mem din_ = nullptr, dout_ = nullptr;
  float* svm_in_ = nullptr;
  float* svm_out_ = nullptr;
  std::map<std::tuple<const float*, std::size_t, cl_mem_flags>, cl_mem> wraps_;
};

}  // namespace seed000
