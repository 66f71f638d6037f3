// The accel benchmark on an OpenCL device: kernels through clBuildProgram, SC as copy in / out,
// UM as SVM, ZC as CL_MEM_USE_HOST_PTR with map / unmap; bandwidth with clEnqueueWrite/ReadBuffer.
#include "bench/accel/device_bench.hpp"

#if BATON_HAVE_OPENCL
#include <cstdlib>
#include <cstring>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/opencl_backend.hpp"
#include "bench/accel/cache_bench.hpp"

namespace baton::bench::accel {

using namespace memory::domain;

namespace {

void check(cl_int st, const char* what) {
  if (st != CL_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, cl_status_text(st).c_str());
    std::exit(1);
  }
}

void set_buffer_arg(cl_kernel k, cl_uint i, const DeviceView& v) {
  if (v.svm) {
    check(clSetKernelArgSVMPointer(k, i, v.host), "clSetKernelArgSVMPointer");
  } else {
    check(clSetKernelArg(k, i, sizeof(cl_mem), &v.native), "clSetKernelArg");
  }
}

Summary run_cache_cl(OpenClBackend& b, cl_program prog, CommModel m, const Config& c) {
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "cache_reduce", &st);
  check(st, "clCreateKernel cache_reduce");
  const Summary s = run_cache(b, m, c, [&](const DeviceView& mv, const DeviceView& ov) {
    set_buffer_arg(k, 0, mv);
    set_buffer_arg(k, 1, ov);
    clSetKernelArg(k, 2, sizeof(cl_uint), &c.cols);
    clSetKernelArg(k, 3, sizeof(cl_uint), &c.reps);
    const std::size_t global = c.rows;
    check(clEnqueueNDRangeKernel(b.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "enqueue cache_reduce");
  });
  clReleaseKernel(k);
  return s;
}

Summary run_concurrent(OpenClBackend& b, cl_program prog, CommModel m, const Config& c) {
  const std::size_t n = c.conc_elems, half = n / 2, bytes = n * sizeof(float);
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "concurrent_step", &st);
  check(st, "clCreateKernel concurrent_step");
  const cl_uint iters = static_cast<cl_uint>(c.conc_iters);
  clSetKernelArg(k, 1, sizeof(cl_uint), &iters);
  float* host = nullptr;
  cl_mem whole = nullptr, dev = nullptr;
  void* svm = nullptr;
  if (m == CommModel::UM) {
    if (!b.info().svm_fine) return {};  // coarse-grain SVM cannot be shared concurrently
    svm = clSVMAlloc(b.context(), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
    host = static_cast<float*>(svm);
    check(clSetKernelArgSVMPointer(k, 0, svm), "svm arg");
  } else {
    if (::posix_memalign(reinterpret_cast<void**>(&host), 4096, bytes) != 0) return {};
    if (m == CommModel::SC) {
      dev = clCreateBuffer(b.context(), CL_MEM_READ_WRITE, half * sizeof(float), nullptr, &st);
    } else {
      whole =
          clCreateBuffer(b.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &st);
      check(st, "USE_HOST_PTR buffer");
      cl_buffer_region region{0, half * sizeof(float)};
      dev = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &st);
    }
    check(st, "device buffer");
    clSetKernelArg(k, 0, sizeof(cl_mem), &dev);
  }
  for (std::size_t i = 0; i < n; ++i) host[i] = 1.0f;
  std::vector<double> times;
  const std::size_t global = half;
  for (int r = 0; r < c.runs + 1; ++r) {
    const double t0 = now_ms();
    float* cpu_half = host + half;
    if (m == CommModel::SC) {
      check(clEnqueueWriteBuffer(b.queue(), dev, CL_TRUE, 0, half * sizeof(float), host, 0, nullptr,
                                 nullptr),
            "write");
    } else if (m == CommModel::ZC) {
      // Map the CPU's half (not the kernel's) before the kernel is queued: both run at once.
      cpu_half = static_cast<float*>(
          clEnqueueMapBuffer(b.queue(), whole, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                             half * sizeof(float), half * sizeof(float), 0, nullptr, nullptr, &st));
      check(st, "map");
    }
    check(clEnqueueNDRangeKernel(b.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "enqueue concurrent_step");
    clFlush(b.queue());
    cpu_concurrent_work(cpu_half, n - half, c.conc_iters);
    clFinish(b.queue());
    if (m == CommModel::SC) {
      check(clEnqueueReadBuffer(b.queue(), dev, CL_TRUE, 0, half * sizeof(float), host, 0, nullptr,
                                nullptr),
            "read");
    } else if (m == CommModel::ZC) {
      clEnqueueUnmapMemObject(b.queue(), whole, cpu_half, 0, nullptr, nullptr);
      clFinish(b.queue());
    }
    if (r > 0) times.push_back(now_ms() - t0);
  }
  clReleaseKernel(k);
  if (dev != nullptr) clReleaseMemObject(dev);
  if (whole != nullptr) clReleaseMemObject(whole);
  if (svm != nullptr) {
    clSVMFree(b.context(), svm);
  } else {
    std::free(host);
  }
  return summarize_runs(times);
}

}  // namespace

int run_opencl(const std::string& domain, const Config& c) {
  auto opened = open_domain(domain);
  if (!opened) {
    std::fprintf(stderr, "baton-bench-accel: %s\n", opened.error().detail.c_str());
    return 1;
  }
  auto b = std::dynamic_pointer_cast<OpenClBackend>(*opened);
  if (!b) {
    std::fprintf(stderr, "baton-bench-accel: %s is not an OpenCL domain\n", domain.c_str());
    return 2;
  }
  auto prog = b->build(kernels::OPENCL_SOURCE);
  if (!prog) {
    std::fprintf(stderr, "%s\n", prog.error().detail.c_str());
    return 1;
  }
  Report report(c, domain + " " + b->info().name);
  std::printf("device: %s (%s), host-unified memory: %s, SVM fine-grain: %s\n",
              b->info().name.c_str(), b->info().platform.c_str(),
              b->info().host_unified ? "yes" : "no", b->info().svm_fine ? "yes" : "no");
  report.table(b->info(), [&](bool cache, CommModel m) {
    return cache ? run_cache_cl(*b, *prog, m, c) : run_concurrent(*b, *prog, m, c);
  });
  // Copy-engine bandwidth, from pageable host memory.
  void* host = nullptr;
  if (::posix_memalign(&host, 4096, c.bw_max) != 0) return 1;
  std::memset(host, 1, c.bw_max);
  cl_int st = CL_SUCCESS;
  cl_mem dev = clCreateBuffer(b->context(), CL_MEM_READ_WRITE, c.bw_max, nullptr, &st);
  check(st, "bandwidth buffer");
  report.bandwidth("", [&](bool to_device, std::uint64_t size) {
    if (to_device) {
      clEnqueueWriteBuffer(b->queue(), dev, CL_TRUE, 0, size, host, 0, nullptr, nullptr);
    } else {
      clEnqueueReadBuffer(b->queue(), dev, CL_TRUE, 0, size, host, 0, nullptr, nullptr);
    }
  });
  clReleaseMemObject(dev);
  std::free(host);
  clReleaseProgram(*prog);
  std::printf("\nJSON lines: %s\n", report.path().c_str());
  return 0;
}

}  // namespace baton::bench::accel

#else  // no OpenCL ICD loader at build time

#include <cstdio>

namespace baton::bench::accel {

int run_opencl(const std::string& domain, const Config&) {
  std::fprintf(stderr, "baton-bench-accel: %s: built without the OpenCL ICD loader\n",
               domain.c_str());
  return 1;
}

}  // namespace baton::bench::accel

#endif
