// CUDA pools across processes: a pool created and exported here is imported by a child process
// (VMM POSIX fd over a Unix socket; the legacy cuIpc handle with BATON_CUDA_IPC=legacy), each side
// sees the other's bytes, and a kernel in the child works on the imported pool. Export records are
// untrusted: a wrong size or a garbage blob gets a clear error. Skips without a CUDA device.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "baton/memory/domain/kernels.hpp"
#include "child_role.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace baton::memory::domain {
namespace {

constexpr std::uint64_t POOL = 1 << 20;
constexpr std::uint64_t N = 64 * 1024;           // the parent's bytes at [0, N)
constexpr std::uint64_t KERNEL_AT = 256 * 1024;  // the child's kernel writes transform(...) here
constexpr std::uint64_t REPLY_AT = 512 * 1024;   // the child's copy_from_host writes here
constexpr std::uint8_t VMM_TAG = 0xF1;           // cuda_backend.cpp's export kind tag

unsigned char pattern(std::uint64_t i) { return static_cast<unsigned char>((i * 13 + 5) & 0xFF); }
unsigned char reply(std::uint64_t i) { return static_cast<unsigned char>((i * 3 + 200) & 0xFF); }

std::string hex(const PoolExport& e) {
  std::string s;
  char b[3];
  for (std::uint8_t v : e.blob) {
    std::snprintf(b, sizeof(b), "%02x", v);
    s += b;
  }
  return s;
}

bool unhex(const char* text, PoolExport* e) {
  if (text == nullptr || std::strlen(text) != 2 * sizeof(e->blob)) return false;
  for (std::size_t i = 0; i < sizeof(e->blob); ++i) {
    e->blob[i] =
        static_cast<std::uint8_t>(std::strtoul(std::string(text + 2 * i, 2).c_str(), nullptr, 16));
  }
  return true;
}

// Child role: imports the parent's pool, checks its bytes, runs transform on them into the same
// pool and writes a reply with copy_from_host.
BATON_CHILD_TEST(cuda_pool_importer) {
  ASSERT_NE(std::getenv("BATON_CUDA_EXPORT"), nullptr) << "BATON_CUDA_EXPORT holds the export";
  BATON_CUDA_OR_SKIP(cuda);
  PoolExport e;
  ASSERT_TRUE(unhex(std::getenv("BATON_CUDA_EXPORT"), &e));
  auto pool = cuda->import_pool("ipc-test", POOL, e);
  ASSERT_TRUE(pool) << pool.error().detail;
  std::vector<unsigned char> got(N);
  ASSERT_TRUE(cuda->copy_to_host(got.data(), *pool, 0, N));
  for (std::uint64_t i = 0; i < N; ++i) ASSERT_EQ(got[i], pattern(i)) << i;
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  ASSERT_TRUE(testing::run_transform(*cuda, k, pool->device, pool->device + KERNEL_AT, N));
  std::vector<unsigned char> mine(N);
  for (std::uint64_t i = 0; i < N; ++i) mine[i] = reply(i);
  ASSERT_TRUE(cuda->copy_from_host(*pool, REPLY_AT, mine.data(), N));
}

// Creates a pool in `cuda`, exports it, has a child import it; checks both directions.
void exchange_with_child(CudaBackend& cuda, bool expect_vmm) {
  auto pool = cuda.create_pool(POOL, "ipc-test");
  ASSERT_TRUE(pool) << pool.error().detail;
  std::vector<unsigned char> mine(N);
  for (std::uint64_t i = 0; i < N; ++i) mine[i] = pattern(i);
  ASSERT_TRUE(cuda.copy_from_host(*pool, 0, mine.data(), N));
  auto exported = cuda.export_pool(*pool);
  ASSERT_TRUE(exported) << exported.error().detail;
  EXPECT_EQ(exported->blob[0] == VMM_TAG, expect_vmm);
  const pid_t child =
      testing::spawn_child_role("cuda_pool_importer", {{"BATON_CUDA_EXPORT", hex(*exported)}});
  ASSERT_EQ(testing::wait_exit(child), 0) << "the importing process failed (its output is above)";
  std::vector<unsigned char> back(N);
  ASSERT_TRUE(cuda.copy_to_host(back.data(), *pool, KERNEL_AT, N));
  for (std::uint64_t i = 0; i < N; ++i) {
    ASSERT_EQ(back[i], kernels::transform_byte(pattern(i))) << "kernel result " << i;
  }
  ASSERT_TRUE(cuda.copy_to_host(back.data(), *pool, REPLY_AT, N));
  for (std::uint64_t i = 0; i < N; ++i) ASSERT_EQ(back[i], reply(i)) << "reply " << i;
}

TEST(CudaIpcTest, vmm_pool_exported_here_is_read_and_written_by_another_process) {
  BATON_CUDA_OR_SKIP(cuda);
  if (!cuda->can_export()) GTEST_SKIP() << cuda->info().name << " cannot export pools";
  auto pool = cuda->create_pool(POOL, "ipc-probe");
  ASSERT_TRUE(pool) << pool.error().detail;
  auto probe = cuda->export_pool(*pool);
  ASSERT_TRUE(probe) << probe.error().detail;
  if (probe->blob[0] != VMM_TAG) GTEST_SKIP() << cuda->info().name << ": no VMM POSIX-fd export";
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);  // the child runs them: skip here, not there
  (void)k;
  exchange_with_child(*cuda, /*expect_vmm=*/true);
}

TEST(CudaIpcTest, legacy_ipc_pool_exported_here_is_read_and_written_by_another_process) {
  BATON_CUDA_OR_SKIP(cuda);
  if (cuda->info().host_unified) GTEST_SKIP() << "legacy cuIpc handles need a discrete GPU";
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);  // the child runs them: skip here, not there
  (void)k;
  // A backend of its own (not the registry's shared one) made while BATON_CUDA_IPC=legacy.
  ::setenv("BATON_CUDA_IPC", "legacy", 1);
  auto legacy = CudaBackend::open(cuda->spec());
  ::unsetenv("BATON_CUDA_IPC");
  ASSERT_TRUE(legacy) << legacy.error().detail;
  exchange_with_child(**legacy, /*expect_vmm=*/false);
}

TEST(CudaIpcTest, import_larger_than_the_export_returns_out_of_range) {
  BATON_CUDA_OR_SKIP(cuda);
  auto pool = cuda->create_pool(POOL, "ipc-size");
  ASSERT_TRUE(pool) << pool.error().detail;
  auto exported = cuda->export_pool(*pool);
  ASSERT_TRUE(exported) << exported.error().detail;
  if (exported->blob[0] != VMM_TAG) GTEST_SKIP() << "legacy handles carry no size to check";
  std::uint64_t size = 0;
  std::memcpy(&size, exported->blob + 8, 8);
  ASSERT_GE(size, POOL);
  auto sut = cuda->import_pool("ipc-size", size + 1, *exported);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::OutOfRange);
  EXPECT_NE(sut.error().detail.find("asked"), std::string::npos) << sut.error().detail;
}

TEST(CudaIpcTest, garbage_export_blobs_return_export_failed) {
  BATON_CUDA_OR_SKIP(cuda);
  PoolExport corrupt;  // tagged VMM, but no size and no exporting process
  corrupt.blob[0] = VMM_TAG;
  auto a = cuda->import_pool("garbage-a", POOL, corrupt);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, DomainError::OutOfRange);  // a zero size is smaller than asked

  PoolExport no_server;  // well-formed, but nobody serves the fd
  no_server.blob[0] = VMM_TAG;
  const std::uint64_t size = POOL, pid = static_cast<std::uint64_t>(::getpid()), ptr = 4096;
  std::memcpy(no_server.blob + 8, &size, 8);
  std::memcpy(no_server.blob + 16, &pid, 8);
  std::memcpy(no_server.blob + 24, &ptr, 8);
  auto b = cuda->import_pool("garbage-b", POOL, no_server);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, DomainError::ExportFailed) << b.error().detail;

  PoolExport bad_pid = no_server;
  const std::uint64_t huge = ~0ull;
  std::memcpy(bad_pid.blob + 16, &huge, 8);
  auto c = cuda->import_pool("garbage-c", POOL, bad_pid);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, DomainError::ExportFailed);
  EXPECT_NE(c.error().detail.find("corrupt"), std::string::npos) << c.error().detail;

  PoolExport random;  // untagged: read as a legacy cuIpc handle, which the driver rejects
  for (std::size_t i = 0; i < sizeof(random.blob); ++i) {
    random.blob[i] = static_cast<std::uint8_t>(i * 37 + 11);
  }
  auto d = cuda->import_pool("garbage-d", POOL, random);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, DomainError::ExportFailed);
  EXPECT_NE(d.error().detail.find("cuIpcOpenMemHandle"), std::string::npos) << d.error().detail;
}

}  // namespace
}  // namespace baton::memory::domain
