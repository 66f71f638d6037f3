// How a chunk pool grows and how reserve() pays for growth up front (docs/design/core.md,
// "Chunk pools"; the stalls this removes are measured by bench/pool_growth).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "baton/memory/chunk_pool.hpp"
#include "test_util.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;

std::string pool_name() { return testing::unique_name("pool"); }

// Bytes /dev/shm has really allocated for data segment `index` of pool `name`.
std::uint64_t allocated_bytes(const std::string& name, std::uint32_t index) {
  const int fd = ::shm_open(data_segment_name(name, index).c_str(), O_RDONLY, 0);
  if (fd < 0) return 0;
  struct stat st {};
  ::fstat(fd, &st);
  ::close(fd);
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

// Bytes of /dev/shm file `shm_name` (a segment name) mapped in this process's page tables:
// what `Rss` counts for it in /proc/self/smaps.
std::uint64_t resident_bytes(const std::string& shm_name) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_it = false;
  std::uint64_t kib = 0;
  while (std::getline(smaps, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || line.find(' ') < colon) {  // a mapping's header line
      in_it = line.size() >= shm_name.size() + 8 &&
              line.compare(line.size() - shm_name.size() - 8, std::string::npos,
                           "/dev/shm" + shm_name) == 0;
      continue;
    }
    if (in_it && line.compare(0, 4, "Rss:") == 0) kib += std::stoull(line.substr(4));
  }
  return kib << 10;
}

long minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_minflt;
}

TEST(ChunkPoolGrowthTest, reserve_larger_than_max_chunk_size_is_refused_naming_the_limit) {
  PoolConfig cfg;
  cfg.max_chunk_size = 64 * MiB;
  ChunkPool sut(pool_name(), cfg);
  auto r = sut.reserve(64 * MiB + 1, 2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ReserveError::TooLarge);
  EXPECT_NE(r.error().detail.find("max_message_size"), std::string::npos) << r.error().detail;
  EXPECT_EQ(sut.segment_count(), 0u);
}

TEST(ChunkPoolGrowthTest, reserve_of_zero_or_too_many_chunks_is_refused) {
  ChunkPool sut(pool_name(), {});
  auto zero = sut.reserve(4096, 0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, ReserveError::InvalidCount);
  auto too_many = sut.reserve(256, MAX_CHUNKS_PER_SEGMENT + 1);
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().code, ReserveError::InvalidCount);
  EXPECT_EQ(sut.segment_count(), 0u);
}

TEST(ChunkPoolGrowthTest, reserve_beyond_max_total_bytes_is_refused_and_leaves_the_pool_usable) {
  PoolConfig cfg;
  cfg.max_total_bytes = 16 * MiB;
  ChunkPool sut(pool_name(), cfg);
  auto r = sut.reserve(2 * MiB, 16);  // 32 MiB of chunks
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ReserveError::OverBudget);
  EXPECT_NE(r.error().detail.find("max_pool_bytes"), std::string::npos) << r.error().detail;
  EXPECT_EQ(sut.segment_count(), 0u);
  EXPECT_EQ(sut.address_bytes(), 0u);
  auto fits = sut.reserve(2 * MiB, 4);
  ASSERT_TRUE(fits) << fits.error().detail;
  EXPECT_EQ(*fits, 4u);
}

TEST(ChunkPoolGrowthTest,
     after_reserve_n_allocations_in_a_row_create_no_segment_and_commit_one_chunk_each) {
  const std::string name = pool_name();
  ChunkPool sut(name, {});
  auto r = sut.reserve(2 * MiB, 8);
  ASSERT_TRUE(r) << r.error().detail;
  EXPECT_EQ(*r, 8u);
  EXPECT_EQ(sut.segment_count(), 1u);
  EXPECT_GE(sut.address_bytes(), 8 * 2 * MiB);  // room for all eight...
  EXPECT_EQ(sut.chunk_count(), 1u);             // ...one committed
  std::vector<Allocation> loans;
  for (std::uint64_t i = 0; i < 8; ++i) {
    auto a = sut.allocate(2 * MiB - 100);
    ASSERT_TRUE(a);
    loans.push_back(*a);
    EXPECT_EQ(sut.chunk_count(), i + 1);  // committed when first handed out
  }
  EXPECT_EQ(sut.segment_count(), 1u);
  EXPECT_EQ(sut.free_count(), 0u);
  auto ninth = sut.allocate(2 * MiB);  // beyond the reservation: grows on demand
  ASSERT_TRUE(ninth);
  EXPECT_GT(sut.chunk_count(), 8u);
}

// Issue 20, memory: /dev/shm gives a reserved pool pages only for the chunks loans have needed,
// not for the whole reservation (18 x 4 MiB = 72 MiB for a depth-16 stream that writes one).
TEST(ChunkPoolGrowthTest, a_reserved_pools_dev_shm_allocation_grows_only_with_what_is_loaned) {
  const std::string name = pool_name();
  ChunkPool sut(name, {});
  ASSERT_TRUE(sut.reserve(MiB, 18));
  const std::uint64_t head = 64 * 1024;  // segment header and 18 control words, page-rounded
  EXPECT_GE(allocated_bytes(name, 0), MiB);
  EXPECT_LT(allocated_bytes(name, 0), MiB + head) << "committed more than one chunk";
  std::vector<Allocation> held;
  for (std::uint64_t k = 1; k <= 5; ++k) {
    auto a = sut.allocate(MiB);
    ASSERT_TRUE(a);
    std::memset(a->data, 0x5a, MiB);
    held.push_back(*a);
    EXPECT_GE(allocated_bytes(name, 0), k * MiB);
    EXPECT_LT(allocated_bytes(name, 0), k * MiB + head) << k << " chunks on loan";
  }
  // A chunk given back is handed out again before a new one is committed.
  sut.release_publisher_ref(held.back().ref);
  const std::uint64_t five = allocated_bytes(name, 0);
  ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_EQ(allocated_bytes(name, 0), five);
  EXPECT_EQ(sut.segment_count(), 1u);
}

TEST(ChunkPoolGrowthTest, commit_reservations_commits_the_whole_reservation_at_once) {
  PoolConfig cfg;
  cfg.commit_reservations = true;
  const std::string name = pool_name();
  ChunkPool sut(name, cfg);
  ASSERT_TRUE(sut.reserve(MiB, 6));
  EXPECT_EQ(sut.chunk_count(), 6u);
  EXPECT_GE(allocated_bytes(name, 0), 6 * MiB);
  EXPECT_LT(resident_bytes(data_segment_name(name, 0)), 2 * MiB);  // still pre-faults one
  const std::uint64_t committed = sut.committed_bytes();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_EQ(sut.committed_bytes(), committed);  // no loan committed anything
}

TEST(ChunkPoolGrowthTest, prepare_ahead_commits_a_reserved_chunk_before_the_loan_needs_it) {
  ChunkPool sut(pool_name(), {});  // expected_outstanding 0: only the reservation commits ahead
  ASSERT_TRUE(sut.reserve(MiB, 3));
  ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_FALSE(sut.has_free(MiB));
  sut.prepare_ahead(MiB);
  EXPECT_EQ(sut.chunk_count(), 2u);
  const std::uint64_t committed = sut.committed_bytes();
  ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_EQ(sut.committed_bytes(), committed);  // the loan found it committed
  sut.prepare_ahead(MiB);
  ASSERT_TRUE(sut.allocate(MiB));
  sut.prepare_ahead(MiB);  // the reservation is used up: further growth waits for a real need
  EXPECT_EQ(sut.chunk_count(), 3u);
}

TEST(ChunkPoolGrowthTest, reserve_counts_chunks_already_free_or_promised) {
  ChunkPool sut(pool_name(), {});
  ASSERT_TRUE(sut.reserve(MiB, 4));
  auto again = sut.reserve(MiB, 3);  // 4 reserved already (1 committed, 3 promised)
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(sut.segment_count(), 1u);
  auto more = sut.reserve(MiB, 6);
  ASSERT_TRUE(more);
  EXPECT_EQ(*more, 2u);
  const auto segments = sut.segment_count();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_EQ(sut.segment_count(), segments);  // all six were room already
  EXPECT_EQ(sut.chunk_count(), 6u);
}

TEST(ChunkPoolGrowthTest, smaller_loans_use_reserved_chunks_before_growing_their_own_class) {
  ChunkPool sut(pool_name(), {});
  ASSERT_TRUE(sut.reserve(2 * MiB, 4));
  for (std::uint64_t size : {300u << 10, 1000u, 1500u << 10, 64u}) {
    auto a = sut.allocate(size);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->capacity, 2 * MiB);
  }
  EXPECT_EQ(sut.segment_count(), 1u);  // no class of its own was created
  auto fifth = sut.allocate(1000);     // reservation used up: the 1 KiB class grows
  ASSERT_TRUE(fifth);
  EXPECT_EQ(fifth->capacity, 1024u);
  EXPECT_EQ(sut.segment_count(), 2u);
}

TEST(ChunkPoolGrowthTest, reserved_chunks_are_prefaulted_so_the_first_write_takes_no_page_faults) {
  ChunkPool sut(pool_name(), {});
  ASSERT_TRUE(sut.reserve(4 * MiB, 1));
  auto a = sut.allocate(4 * MiB);
  ASSERT_TRUE(a);
  const long before = minor_faults();
  std::memset(a->data, 0x5a, 4 * MiB);
  const long taken = minor_faults() - before;
  // Without pre-faulting this is 1024 (one per 4 KiB page of the chunk). Allow the stack / libc
  // a few, and a sanitizer its shadow memory: under ASan the memset also writes 512 KiB of
  // shadow (128 pages) that no pool can pre-fault.
  EXPECT_LT(taken, 256) << "writing 4 MiB into a reserved chunk faulted " << taken << " pages";
}

// Issue 20, memory: a pre-faulted chunk is resident in the owner's page tables whether it is
// ever written or not, and a publisher whose subscribers keep up writes only one. reserve()
// commits and pre-faults that one; a further one is committed and pre-faulted by its first loan.
TEST(ChunkPoolGrowthTest, reserve_prefaults_one_large_chunk_and_a_further_one_in_its_first_loan) {
  const std::string name = pool_name();
  ChunkPool sut(name, {});
  ASSERT_TRUE(sut.reserve(MiB, 6));
  const std::string seg = data_segment_name(name, 0);
  const std::uint64_t resident = resident_bytes(seg);
  EXPECT_GE(resident, MiB);
  EXPECT_LT(resident, 2 * MiB) << "pre-faulted more than one chunk";
  EXPECT_FALSE(sut.next_is_cold(MiB));
  ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_TRUE(sut.next_is_cold(MiB));  // the second is neither committed nor pre-faulted
  EXPECT_LT(resident_bytes(seg), 2 * MiB);
  for (int i = 0; i < 5; ++i) {
    auto a = sut.allocate(MiB);
    ASSERT_TRUE(a);
    const long before = minor_faults();
    std::memset(a->data, 0x5a, MiB);
    const long taken = minor_faults() - before;
    EXPECT_LT(taken, 64) << "writing 1 MiB into reserved chunk " << i + 2 << " faulted " << taken
                         << " pages (256 without pre-faulting)";
  }
  // A small loan of a cold reserved chunk maps what it asked for, not the whole chunk.
  ChunkPool small_loans(pool_name(), {});
  ASSERT_TRUE(small_loans.reserve(MiB, 3));
  ASSERT_TRUE(small_loans.allocate(MiB));
  const std::uint64_t one = resident_bytes(data_segment_name(small_loans.name(), 0));
  ASSERT_TRUE(small_loans.allocate(1000));
  EXPECT_LT(resident_bytes(data_segment_name(small_loans.name(), 0)), one + 128 * 1024);
}

TEST(ChunkPoolGrowthTest, small_reserved_chunks_are_all_prefaulted_and_never_cold) {
  ChunkPool sut(pool_name(), {});
  ASSERT_TRUE(sut.reserve(1024, 40));
  for (int i = 0; i < 40; ++i) {
    EXPECT_FALSE(sut.next_is_cold(1024)) << "chunk " << i;
    ASSERT_TRUE(sut.allocate(1024));
  }
  EXPECT_TRUE(sut.next_is_cold(1024));  // none free: the next loan would grow the pool
}

TEST(ChunkPoolGrowthTest, on_demand_growth_commits_one_chunk_of_a_segment_sized_for_the_ring) {
  PoolConfig cfg;
  cfg.expected_outstanding = 66;  // a keep-last-64 publisher
  const std::string name = pool_name();
  ChunkPool sut(name, cfg);
  auto a = sut.allocate(2 * MiB);
  ASSERT_TRUE(a);
  EXPECT_EQ(sut.segment_count(), 1u);
  EXPECT_EQ(sut.chunk_count(), 1u);
  EXPECT_GE(sut.address_bytes(), 66 * 2 * MiB);  // room for the whole ring...
  EXPECT_LT(sut.committed_bytes(), 3 * MiB);     // ...but only one chunk paid for
  EXPECT_LT(allocated_bytes(name, 0), 3 * MiB);  // as /dev/shm sees it
  for (int i = 1; i < 66; ++i) ASSERT_TRUE(sut.allocate(2 * MiB));
  EXPECT_EQ(sut.segment_count(), 1u);
  EXPECT_EQ(sut.chunk_count(), 66u);
  EXPECT_GE(allocated_bytes(name, 0), 66 * 2 * MiB);
}

TEST(ChunkPoolGrowthTest, a_large_class_takes_at_most_max_segment_bytes_of_address_space_per_step) {
  PoolConfig cfg;
  cfg.expected_outstanding = 66;
  cfg.max_segment_bytes = 16 * MiB;
  ChunkPool sut(pool_name(), cfg);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(sut.allocate(2 * MiB));
  EXPECT_EQ(sut.segment_count(), 1u);
  EXPECT_LE(sut.address_bytes(), 16 * MiB + 64 * 1024);  // 8 chunks + head
  ASSERT_TRUE(sut.allocate(2 * MiB));
  EXPECT_EQ(sut.segment_count(), 2u);
}

TEST(ChunkPoolGrowthTest, on_demand_growth_stops_at_max_total_bytes) {
  PoolConfig cfg;
  cfg.expected_outstanding = 66;
  cfg.max_total_bytes = 8 * MiB;
  ChunkPool sut(pool_name(), cfg);
  int granted = 0;
  while (sut.allocate(MiB) && granted < 100) ++granted;
  EXPECT_GT(granted, 0);
  EXPECT_LT(granted, 8);  // the segment head needs a little of the budget too
  EXPECT_LE(sut.address_bytes(), 8 * MiB);
  auto r = sut.allocate(MiB);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), AllocError::OutOfMemory);
}

TEST(ChunkPoolGrowthTest, prepare_ahead_commits_one_chunk_only_below_expected_outstanding) {
  PoolConfig cfg;
  cfg.expected_outstanding = 3;
  ChunkPool sut(pool_name(), cfg);
  ASSERT_TRUE(sut.allocate(MiB));
  EXPECT_EQ(sut.chunk_count(), 1u);
  EXPECT_FALSE(sut.has_free(MiB));
  sut.prepare_ahead(MiB);
  EXPECT_EQ(sut.chunk_count(), 2u);
  EXPECT_TRUE(sut.has_free(MiB));
  sut.prepare_ahead(MiB);  // one is free already: nothing to do
  EXPECT_EQ(sut.chunk_count(), 2u);
  ASSERT_TRUE(sut.allocate(MiB));
  sut.prepare_ahead(MiB);
  EXPECT_EQ(sut.chunk_count(), 3u);
  ASSERT_TRUE(sut.allocate(MiB));
  sut.prepare_ahead(MiB);  // at expected_outstanding: further growth waits for a real need
  EXPECT_EQ(sut.chunk_count(), 3u);
  EXPECT_EQ(sut.free_count(), 0u);
}

TEST(ChunkPoolGrowthTest, uncommitted_chunks_are_never_listed_by_give_back_or_sweep) {
  PoolConfig cfg;
  cfg.expected_outstanding = 16;
  ChunkPool sut(pool_name(), cfg);
  auto a = sut.allocate(MiB);
  ASSERT_TRUE(a);
  const auto free_before = sut.free_count();
  sut.give_back(make_chunk_ref(0, 5));  // inside the segment, not committed (untrusted input)
  EXPECT_EQ(sut.free_count(), free_before);
  EXPECT_EQ(sut.sweep(), 0u);
  sut.release_publisher_ref(a->ref);
  EXPECT_EQ(sut.free_count(), sut.chunk_count());
}

}  // namespace
}  // namespace baton::memory
