#include <cstring>
#include <vector>

#include "accel_test_util.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/staging_backend.hpp"

namespace baton::memory::domain {
namespace {

TEST(DomainSpecTest, parse_with_unknown_name_returns_nullopt) {
  EXPECT_FALSE(DomainSpec::parse("gpu:0"));
  EXPECT_FALSE(DomainSpec::parse("opencl:"));
  EXPECT_FALSE(DomainSpec::parse("opencl:0:zc"));
  EXPECT_FALSE(DomainSpec::parse("cuda:-1"));
  auto sut = open_domain("tpu:3");
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::InvalidSpec);
}

TEST(DomainSpecTest, parse_with_known_names_round_trips) {
  for (const char* name : {"host", "staging", "opencl:0", "opencl:2:sc", "cuda:1"}) {
    auto sut = DomainSpec::parse(name);
    ASSERT_TRUE(sut) << name;
    EXPECT_EQ(sut->str(), name);
  }
}

TEST(HostBackendTest, host_domain_is_zero_copy_and_copies_count) {
  auto sut = open_domain("staging");
  ASSERT_TRUE(sut);
  EXPECT_FALSE((*sut)->zero_copy_from_host());
  auto pool = (*sut)->create_pool(4096, "t.staging." + std::to_string(::getpid()));
  ASSERT_TRUE(pool) << pool.error().detail;
  const char text[] = "staged";
  ASSERT_TRUE((*sut)->copy_from_host(*pool, 100, text, sizeof(text)));
  char back[sizeof(text)] = {};
  ASSERT_TRUE((*sut)->copy_to_host(back, *pool, 100, sizeof(text)));
  EXPECT_STREQ(back, "staged");
  EXPECT_GE((*sut)->stats().copies.load(), 2u);
  EXPECT_FALSE((*sut)->copy_from_host(*pool, 4090, text, sizeof(text)));  // out of range
  StagingBackend::unlink_pool("t.staging." + std::to_string(::getpid()));
  auto host = open_domain("host");
  ASSERT_TRUE(host);
  EXPECT_TRUE((*host)->zero_copy_from_host());
}

#if BATON_HAVE_OPENCL

// Runs kernels::transform over `in` (n bytes) into `out` (both cl_mem).
void run_transform(OpenClBackend& b, cl_mem in, cl_mem out, cl_uint n) {
  auto prog = b.build(kernels::OPENCL_SOURCE);
  ASSERT_TRUE(prog) << prog.error().detail;
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(*prog, "transform", &st);
  ASSERT_EQ(st, CL_SUCCESS);
  clSetKernelArg(k, 0, sizeof(cl_mem), &in);
  clSetKernelArg(k, 1, sizeof(cl_mem), &out);
  clSetKernelArg(k, 2, sizeof(cl_uint), &n);
  const std::size_t global = n;
  ASSERT_EQ(clEnqueueNDRangeKernel(b.queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  clFinish(b.queue());
  clReleaseKernel(k);
  clReleaseProgram(*prog);
}

TEST(OpenClBackendTest, open_with_missing_device_returns_unavailable) {
  BATON_OPENCL_OR_SKIP(b, "opencl:0");
  auto sut = OpenClBackend::open(*DomainSpec::parse("opencl:999"));
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::Unavailable);
}

TEST(OpenClBackendTest, wrap_host_on_unified_device_uses_host_bytes_without_copy) {
  BATON_OPENCL_OR_SKIP(sut, "opencl:0");
  if (!sut->info().host_unified) GTEST_SKIP() << sut->info().name << " is not host-unified";
  constexpr std::size_t N = 4096;
  alignas(4096) static std::byte input[N];
  for (std::size_t i = 0; i < N; ++i) input[i] = static_cast<std::byte>(i * 7);
  const auto copies_before = sut->stats().copies.load();
  auto in = sut->wrap_host(input, N);
  ASSERT_TRUE(in) << in.error().detail;
  void* host_ptr = nullptr;
  clGetMemObjectInfo(static_cast<cl_mem>(in->native), CL_MEM_HOST_PTR, sizeof(host_ptr), &host_ptr,
                     nullptr);
  EXPECT_EQ(host_ptr, input);
  auto out = sut->kernel_buffer(N, CommModel::SC);
  ASSERT_TRUE(out);
  auto out_view = (*out)->begin_device(Access::Write);
  // Change the host bytes after wrapping: a device that had copied them would miss this.
  input[5] = std::byte{42};
  run_transform(*sut, static_cast<cl_mem>(in->native), static_cast<cl_mem>(out_view.native), N);
  EXPECT_EQ(sut->stats().copies.load(), copies_before);  // no copy into the device
  (*out)->end_device(Access::Write);                     // one copy back, for the check
  const std::byte* result = (*out)->begin_host(Access::Read);
  for (std::size_t i = 0; i < N; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(result[i]),
              kernels::transform_byte(static_cast<unsigned char>(input[i])))
        << "at " << i;
  }
  sut->release_view(*in);
}

TEST(OpenClBackendTest, kernel_buffer_under_each_model_round_trips_through_kernel) {
  BATON_OPENCL_OR_SKIP(sut, "opencl:0");
  auto prog = sut->build(kernels::OPENCL_SOURCE);
  ASSERT_TRUE(prog) << prog.error().detail;
  for (CommModel m : {CommModel::SC, CommModel::UM, CommModel::ZC}) {
    if (!sut->info().supports(m)) continue;
    constexpr cl_uint N = 1024;
    auto buf = sut->kernel_buffer(N * sizeof(float), m);
    ASSERT_TRUE(buf) << buf.error().detail;
    auto* h = reinterpret_cast<float*>((*buf)->begin_host(Access::Write));
    ASSERT_NE(h, nullptr);
    for (cl_uint i = 0; i < N; ++i) h[i] = static_cast<float>(i);
    (*buf)->end_host();
    DeviceView v = (*buf)->begin_device(Access::ReadWrite);
    cl_int st = CL_SUCCESS;
    cl_kernel k = clCreateKernel(*prog, "concurrent_step", &st);
    ASSERT_EQ(st, CL_SUCCESS);
    if (v.svm) {
      clSetKernelArgSVMPointer(k, 0, v.host);
    } else {
      clSetKernelArg(k, 0, sizeof(cl_mem), &v.native);
    }
    const cl_uint iters = 1;
    clSetKernelArg(k, 1, sizeof(cl_uint), &iters);
    const std::size_t global = N;
    ASSERT_EQ(
        clEnqueueNDRangeKernel(sut->queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
        CL_SUCCESS);
    (*buf)->end_device(Access::ReadWrite);
    clReleaseKernel(k);
    const auto* r = reinterpret_cast<const float*>((*buf)->begin_host(Access::Read));
    for (cl_uint i = 0; i < N; ++i) ASSERT_FLOAT_EQ(r[i], i * 0.5f + 1.0f) << to_string(m);
    (*buf)->end_host();
  }
  clReleaseProgram(*prog);
}

TEST(OpenClBackendTest, pool_copies_are_counted_and_views_are_sub_buffers) {
  BATON_OPENCL_OR_SKIP(sut, "opencl:0");
  auto pool = sut->create_pool(1 << 16, "unused");
  ASSERT_TRUE(pool) << pool.error().detail;
  std::vector<unsigned char> a(4096, 7), b(4096, 0);
  const auto before = sut->stats().copies.load();
  ASSERT_TRUE(sut->copy_from_host(*pool, 8192, a.data(), a.size()));
  ASSERT_TRUE(sut->copy_to_host(b.data(), *pool, 8192, b.size()));
  EXPECT_EQ(sut->stats().copies.load(), before + 2);
  EXPECT_EQ(b, a);
  auto v = sut->view(*pool, 8192, 4096);
  ASSERT_TRUE(v) << v.error().detail;
  EXPECT_NE(v->native, nullptr);
  sut->release_view(*v);
  EXPECT_FALSE(sut->view(*pool, 1 << 16, 1));
}

#else

TEST(OpenClBackendTest, opencl_tests_skip_without_icd_loader) {
  GTEST_SKIP() << "no OpenCL platform found: baton was built without the OpenCL ICD loader "
                  "(run scripts/install-accel-deps.sh and reconfigure)";
}

#endif  // BATON_HAVE_OPENCL

}  // namespace
}  // namespace baton::memory::domain
