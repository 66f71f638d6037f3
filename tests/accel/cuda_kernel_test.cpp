// The bundled kernels on a real CUDA device: compiled by NVRTC, JIT-loaded by the driver and
// launched on device pools, on KernelBuffers under each communication model, and on shared memory
// registered with wrap_host. Skips without a CUDA driver / device (CI has no GPU).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "baton/memory/domain/kernels.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace baton::memory::domain {
namespace {

using testing::DeviceBytes;

unsigned char pattern(std::uint64_t i) { return static_cast<unsigned char>((i * 7 + 3) & 0xFF); }

TEST(CudaKernelTest, transform_launched_on_pool_bytes_writes_exactly_n_results) {
  BATON_CUDA_OR_SKIP(cuda);
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  constexpr unsigned N = 10000;  // not a multiple of the block size: the bound check must hold
  auto in = cuda->create_pool(N, "kernel-in");
  ASSERT_TRUE(in) << in.error().detail;
  std::vector<unsigned char> host(N);
  for (unsigned i = 0; i < N; ++i) host[i] = pattern(i);
  ASSERT_TRUE(cuda->copy_from_host(*in, 0, host.data(), N));
  DeviceBytes out(*cuda, N + 256);
  ASSERT_TRUE(out.ok());
  const std::vector<unsigned char> canary(N + 256, 0xAA);
  ASSERT_TRUE(out.write(canary.data(), canary.size()));

  ASSERT_TRUE(testing::run_transform(*cuda, k, in->device, out.ptr(), N));

  const auto back = out.read();
  ASSERT_EQ(back.size(), N + 256u);
  for (unsigned i = 0; i < N; ++i) ASSERT_EQ(back[i], kernels::transform_byte(pattern(i))) << i;
  for (unsigned i = N; i < N + 256; ++i) ASSERT_EQ(back[i], 0xAA) << "written past n at " << i;
  std::cout << "[ INFO     ] " << cuda->info().name << ": NVRTC " << k.nvrtc_path << ", "
            << k.ptx_bytes << " bytes of PTX, JIT-loaded and run\n";
}

TEST(CudaKernelTest, cache_reduce_and_concurrent_step_compute_what_the_cpu_computes) {
  BATON_CUDA_OR_SKIP(cuda);
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  unsigned rows = 300, cols = 64, reps = 3;  // small integers: float sums are exact
  std::vector<float> m(std::size_t{rows} * cols);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i % 97);
  DeviceBytes dm(*cuda, m.size() * sizeof(float)), dout(*cuda, rows * sizeof(float));
  ASSERT_TRUE(dm.ok() && dout.ok());
  ASSERT_TRUE(dm.write(m.data(), m.size() * sizeof(float)));
  std::uint64_t pm = dm.ptr(), pout = dout.ptr();
  void* args[] = {&pm, &pout, &rows, &cols, &reps};
  ASSERT_TRUE(cuda->launch(k.cache_reduce, rows, args));
  ASSERT_TRUE(cuda->synchronize());
  const auto raw = dout.read();
  ASSERT_EQ(raw.size(), rows * sizeof(float));
  std::vector<float> sums(rows);
  std::memcpy(sums.data(), raw.data(), raw.size());
  for (unsigned r = 0; r < rows; ++r) {
    float s = 0;
    for (unsigned c = 0; c < cols; ++c) s += m[std::size_t{r} * cols + c];
    ASSERT_EQ(sums[r], s * static_cast<float>(reps)) << "row " << r;
  }

  unsigned n = 1000, iters = 5;
  std::vector<float> data(n, 1.0f);
  DeviceBytes dd(*cuda, n * sizeof(float));
  ASSERT_TRUE(dd.ok() && dd.write(data.data(), n * sizeof(float)));
  std::uint64_t pd = dd.ptr();
  void* cargs[] = {&pd, &n, &iters};
  ASSERT_TRUE(cuda->launch(k.concurrent_step, n, cargs));
  ASSERT_TRUE(cuda->synchronize());
  float expect = 1.0f;
  for (unsigned i = 0; i < iters; ++i) expect = expect * 0.5f + 1.0f;  // exact in float
  const auto craw = dd.read();
  ASSERT_EQ(craw.size(), n * sizeof(float));
  std::memcpy(data.data(), craw.data(), craw.size());
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(data[i], expect) << i;
}

TEST(CudaKernelTest, launch_of_a_kernel_from_ptx_that_does_not_load_returns_compile_failed) {
  BATON_CUDA_OR_SKIP(cuda);
  auto sut = cuda->load_kernel("this is not PTX", "transform");
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::CompileFailed);
  EXPECT_NE(sut.error().detail.find("cuModuleLoadData"), std::string::npos) << sut.error().detail;
}

// SC copies in at begin_device and out at end_device (two counted copies); UM and ZC hand the
// kernel the very bytes the CPU wrote (no copy).
TEST(CudaKernelTest, kernel_buffer_under_each_model_gives_the_kernel_the_cpu_bytes) {
  BATON_CUDA_OR_SKIP(cuda);
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  constexpr unsigned N = 1u << 20;
  for (CommModel m : {CommModel::SC, CommModel::UM, CommModel::ZC}) {
    SCOPED_TRACE(std::string(to_string(m)));
    auto in = cuda->kernel_buffer(N, m);
    auto out = cuda->kernel_buffer(N, m);
    if (!cuda->info().supports(m)) {
      ASSERT_FALSE(in);
      EXPECT_EQ(in.error().code, DomainError::Unsupported);
      std::cout << "[ INFO     ] " << cuda->info().name << " lacks " << to_string(m) << "\n";
      continue;
    }
    ASSERT_TRUE(in && out) << (in ? out.error().detail : in.error().detail);
    std::byte* h = (*in)->begin_host(Access::Write);
    for (unsigned i = 0; i < N; ++i) h[i] = std::byte{pattern(i)};
    (*in)->end_host();
    const auto copies = cuda->stats().copies.load();
    const DeviceView iv = (*in)->begin_device(Access::Read);
    const DeviceView ov = (*out)->begin_device(Access::Write);
    ASSERT_NE(iv.device, 0u);
    ASSERT_NE(ov.device, 0u);
    ASSERT_TRUE(testing::run_transform(*cuda, k, iv.device, ov.device, N));
    (*out)->end_device(Access::Write);
    (*in)->end_device(Access::Read);
    EXPECT_EQ(cuda->stats().copies.load() - copies, m == CommModel::SC ? 2u : 0u);
    const std::byte* r = (*out)->begin_host(Access::Read);
    for (unsigned i = 0; i < N; ++i) {
      ASSERT_EQ(static_cast<unsigned char>(r[i]), kernels::transform_byte(pattern(i))) << i;
    }
    (*out)->end_host();
  }
}

// Shared memory (a POSIX shm object, as baton's chunks are) registered in place: a kernel reads
// it and writes into it, and a second mapping of the object sees the kernel's bytes.
TEST(CudaKernelTest, wrap_host_lets_a_kernel_read_and_write_shared_memory_in_place) {
  BATON_CUDA_OR_SKIP(cuda);
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  constexpr std::size_t BYTES = 1 << 20;
  constexpr unsigned N = 100000;
  constexpr std::size_t IN_AT = 100, OUT_AT = 512 * 1024 + 3;  // not page-aligned on purpose
  const std::string name = "/baton-cuda-wrap-" + std::to_string(::getpid());
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ::shm_unlink(name.c_str());
  ASSERT_EQ(::ftruncate(fd, BYTES), 0);
  auto* shm =
      static_cast<std::byte*>(::mmap(nullptr, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  auto* other = static_cast<std::byte*>(::mmap(nullptr, BYTES, PROT_READ, MAP_SHARED, fd, 0));
  ::close(fd);
  ASSERT_NE(shm, MAP_FAILED);
  ASSERT_NE(other, MAP_FAILED);
  for (unsigned i = 0; i < N; ++i) shm[IN_AT + i] = std::byte{pattern(i)};

  auto in = cuda->wrap_host(shm + IN_AT, N);
  if (!cuda->info().host_register && !cuda->info().host_unified) {
    ASSERT_FALSE(in);
    EXPECT_EQ(in.error().code, DomainError::Unsupported);
    GTEST_SKIP() << cuda->info().name << " cannot map host memory";
  }
  ASSERT_TRUE(in) << in.error().detail;
  auto out = cuda->wrap_host(shm + OUT_AT, N);  // inside the pages registered above or new ones
  ASSERT_TRUE(out) << out.error().detail;
  EXPECT_EQ(in->host, shm + IN_AT);
  const auto copies = cuda->stats().copies.load();

  ASSERT_TRUE(testing::run_transform(*cuda, k, in->device, out->device, N));

  EXPECT_EQ(cuda->stats().copies.load(), copies);  // the kernel used the shared pages in place
  for (unsigned i = 0; i < N; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(other[OUT_AT + i]), kernels::transform_byte(pattern(i)))
        << i;
  }
  EXPECT_EQ(static_cast<unsigned char>(other[OUT_AT - 1]), 0);  // nothing before the view
  EXPECT_EQ(static_cast<unsigned char>(other[OUT_AT + N]), 0);  // nor after it
  // The registration stays for the backend's lifetime (the process's): keep the mapping too.
  ::munmap(other, BYTES);
}

}  // namespace
}  // namespace baton::memory::domain
