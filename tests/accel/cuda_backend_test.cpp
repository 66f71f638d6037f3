#include "baton/memory/domain/cuda_backend.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/fd_passing.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/nvrtc_compiler.hpp"
#include "child_role.hpp"
#include "test_util.hpp"

namespace baton::memory::domain {
namespace {

TEST(FdPassingTest, fetch_fd_without_server_returns_export_failed) {
  auto sut = fetch_fd("nobody-serves-this-" + std::to_string(::getpid()), 10);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::ExportFailed);
}

// Child role: fetches the fd served as BATON_FD_NAME, checks the exporter's bytes and writes its
// own into the same memory.
BATON_CHILD_ROLE(fd_importer) {
  auto fd = fetch_fd(std::getenv("BATON_FD_NAME"));
  if (!fd) return testing::child_role_failed("fetch_fd: " + fd.error().detail);
  auto* theirs =
      static_cast<char*>(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0));
  if (theirs == MAP_FAILED) return testing::child_role_failed("mmap the fetched fd");
  if (std::strcmp(theirs, "from the exporter") != 0) {
    return testing::child_role_failed("the fd shows other bytes than the exporter's");
  }
  std::strcpy(theirs, "written by the importer");
  return 0;
}

TEST(FdPassingTest, memfd_passed_to_another_process_shows_same_bytes) {
  const int memfd = ::memfd_create("baton-test", MFD_CLOEXEC);
  ASSERT_GE(memfd, 0);
  ASSERT_EQ(::ftruncate(memfd, 4096), 0);
  auto* mine =
      static_cast<char*>(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0));
  ASSERT_NE(mine, MAP_FAILED);
  std::strcpy(mine, "from the exporter");
  const std::string name = "memfd-test-" + std::to_string(::getpid());
  auto server = FdServer::serve(name, memfd);
  ASSERT_TRUE(server) << server.error().detail;
  // The importer is this binary re-run (fork + exec): the server's thread, and any driver threads
  // of earlier tests, rule out a child that only forks (fork_guard.hpp).
  const pid_t child = testing::spawn_child_role("fd_importer", {{"BATON_FD_NAME", name}});
  ASSERT_EQ(testing::wait_exit(child), 0) << "the importing process failed (its output is above)";
  EXPECT_STREQ(mine, "written by the importer");  // the very same memory, not a copy
  ::munmap(mine, 4096);
  ::close(memfd);
}

TEST(NvrtcTest, bundled_cuda_kernels_compile_to_ptx) {
  auto nvrtc = NvrtcCompiler::load({BATON_SOURCE_DIR});
  if (!nvrtc) GTEST_SKIP() << "NVRTC not available: " << nvrtc.error().detail;
  auto sut = (*nvrtc)->compile_to_ptx(kernels::CUDA_SOURCE, "baton_kernels.cu");
  ASSERT_TRUE(sut) << sut.error().detail;
  EXPECT_NE(sut->find(".entry transform"), std::string::npos);
  EXPECT_NE(sut->find(".entry cache_reduce"), std::string::npos);
  EXPECT_NE(sut->find(".entry concurrent_step"), std::string::npos);
  std::cout << "[ INFO     ] NVRTC " << (*nvrtc)->library_path() << " produced " << sut->size()
            << " bytes of PTX (CudaKernelTest runs them where there is a GPU)\n";
}

TEST(NvrtcTest, broken_kernel_returns_compile_failed_with_log) {
  auto nvrtc = NvrtcCompiler::load({BATON_SOURCE_DIR});
  if (!nvrtc) GTEST_SKIP() << "NVRTC not available: " << nvrtc.error().detail;
  auto sut = (*nvrtc)->compile_to_ptx("__global__ void k() { undefined_thing(); }", "bad.cu");
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainError::CompileFailed);
  EXPECT_NE(sut.error().detail.find("undefined_thing"), std::string::npos);
}

TEST(CudaBackendTest, open_without_driver_reports_unavailable_or_runs_on_device) {
  const CudaProbe probe = CudaBackend::probe();
  auto sut = open_domain("cuda:0");
  if (!probe.problem.empty()) {
    ASSERT_FALSE(sut);
    EXPECT_EQ(sut.error().code, DomainError::Unavailable);
    GTEST_SKIP() << "no CUDA driver / device found: " << probe.problem;
  }
  // Only reached on a machine with a CUDA GPU.
  ASSERT_TRUE(sut) << sut.error().detail;
  auto pool = (*sut)->create_pool(1 << 20, "cuda-test");
  ASSERT_TRUE(pool) << pool.error().detail;
  const char text[] = "device bytes";
  ASSERT_TRUE((*sut)->copy_from_host(*pool, 0, text, sizeof(text)));
  char back[sizeof(text)] = {};
  ASSERT_TRUE((*sut)->copy_to_host(back, *pool, 0, sizeof(text)));
  EXPECT_STREQ(back, text);
}

}  // namespace
}  // namespace baton::memory::domain
