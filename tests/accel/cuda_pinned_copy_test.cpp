// Copies between shared-memory segments and a cuda:0 pool through page-locked chunk ranges
// (HostRegistrations on the real driver): the bytes, reuse of a chunk's registration, the cap,
// the pageable fallback, and a segment unmapped while registered. Skips without a GPU.
#include <unistd.h>

#include <cstring>
#include <vector>

#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace baton::memory::domain {
namespace {

constexpr std::uint64_t MIB = 1ull << 20;

shm::Segment segment(std::uint64_t bytes) {
  auto s = shm::Segment::create(shm::segment_name("test", testing::unique_name("pin")), bytes,
                                shm::SegmentKind::Test);
  EXPECT_TRUE(s) << s.error().detail;
  s->unlink();
  return std::move(*s);
}

void fill(std::byte* p, std::uint64_t n, unsigned seed) {
  for (std::uint64_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
}

std::vector<unsigned char> bytes_of(const std::byte* p, std::uint64_t n) {
  const auto* c = reinterpret_cast<const unsigned char*>(p);
  return {c, c + n};
}

class CudaPinnedCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_CUDA_OR_SKIP(b);
    backend = b;
    // A backend of our own state: cuda:0 is shared by the process, so measure deltas.
    auto p = backend->create_pool(8 * MIB, "pinned-copy-test");
    ASSERT_TRUE(p) << p.error().detail;
    pool = *p;
  }
  std::shared_ptr<CudaBackend> backend;
  DomainPool pool;
};

TEST_F(CudaPinnedCopyTest, chunk_copy_registers_once_and_reuses_the_registration) {
  shm::Segment seg = segment(16 * MIB);
  std::byte* chunk = seg.base() + 4 * MIB + 64;  // not page-aligned: widened to pages
  fill(chunk, 3 * MIB, 1);
  const auto before = backend->registrations();
  ASSERT_TRUE(backend->copy_from_host(pool, 0, chunk, 3 * MIB));
  auto mid = backend->registrations();
  EXPECT_EQ(mid.registrations, before.registrations + 1);
  EXPECT_GE(mid.bytes, before.bytes + 3 * MIB);
  EXPECT_EQ(testing::DeviceBytes::read_at(*backend, pool.device, 3 * MIB),
            bytes_of(chunk, 3 * MIB));

  fill(chunk, 3 * MIB, 2);  // the pool reuses the chunk for the next message
  ASSERT_TRUE(backend->copy_from_host(pool, 0, chunk, 3 * MIB));
  auto after = backend->registrations();
  EXPECT_EQ(after.registrations, mid.registrations);
  EXPECT_EQ(after.reused, mid.reused + 1);
  EXPECT_EQ(testing::DeviceBytes::read_at(*backend, pool.device, 3 * MIB),
            bytes_of(chunk, 3 * MIB));

  // Device -> the same registered chunk.
  std::byte* out = seg.base() + 8 * MIB;
  ASSERT_TRUE(backend->copy_to_host(out, pool, 0, 3 * MIB));
  EXPECT_EQ(bytes_of(out, 3 * MIB), bytes_of(chunk, 3 * MIB));
  EXPECT_EQ(backend->registrations().fallbacks, before.fallbacks);
}

TEST_F(CudaPinnedCopyTest, cap_is_honoured_and_copies_past_it_still_move_the_bytes) {
  const auto before = backend->registrations();
  backend->set_registration_cap(before.bytes + 2 * MIB);
  shm::Segment seg = segment(8 * MIB);
  fill(seg.base(), 4 * MIB, 3);
  ASSERT_TRUE(backend->copy_from_host(pool, 0, seg.base(), 4 * MIB));  // over the cap
  const auto after = backend->registrations();
  backend->set_registration_cap(before.cap);
  EXPECT_EQ(after.registrations, before.registrations);
  EXPECT_LE(after.bytes, before.bytes + 2 * MIB);
  EXPECT_EQ(after.fallbacks, before.fallbacks + 1);
  EXPECT_EQ(testing::DeviceBytes::read_at(*backend, pool.device, 4 * MIB),
            bytes_of(seg.base(), 4 * MIB));
}

TEST_F(CudaPinnedCopyTest, unmapped_segment_is_unregistered_and_its_address_reusable) {
  std::uintptr_t first_base = 0;
  const auto before = backend->registrations();
  {
    shm::Segment seg = segment(4 * MIB);
    first_base = reinterpret_cast<std::uintptr_t>(seg.base());
    fill(seg.base(), 4 * MIB, 4);
    ASSERT_TRUE(backend->copy_from_host(pool, 0, seg.base(), 4 * MIB));
    EXPECT_EQ(backend->registrations().registrations, before.registrations + 1);
  }  // unmapped while registered
  const auto gone = backend->registrations();
  EXPECT_EQ(gone.bytes, before.bytes);
  EXPECT_EQ(gone.unregistrations, before.unregistrations + 1);
  // A new mapping (often at the same address): its own bytes reach the device, not stale pages.
  shm::Segment next = segment(4 * MIB);
  fill(next.base(), 4 * MIB, 5);
  ASSERT_TRUE(backend->copy_from_host(pool, 0, next.base(), 4 * MIB));
  EXPECT_EQ(testing::DeviceBytes::read_at(*backend, pool.device, 4 * MIB),
            bytes_of(next.base(), 4 * MIB));
  EXPECT_EQ(backend->registrations().registrations, before.registrations + 2);
  RecordProperty("same_address", reinterpret_cast<std::uintptr_t>(next.base()) == first_base);
}

TEST_F(CudaPinnedCopyTest, heap_memory_is_copied_without_registering) {
  std::vector<std::byte> heap(MIB);
  fill(heap.data(), heap.size(), 6);
  const auto before = backend->registrations();
  ASSERT_TRUE(backend->copy_from_host(pool, 0, heap.data(), heap.size()));
  EXPECT_EQ(backend->registrations().registrations, before.registrations);
  EXPECT_EQ(testing::DeviceBytes::read_at(*backend, pool.device, MIB), bytes_of(heap.data(), MIB));
}

}  // namespace
}  // namespace baton::memory::domain
