#include "baton/memory/chunk_pool.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "baton/memory/pool_view.hpp"
#include "test_util.hpp"

namespace baton::memory {
namespace {

std::string pool_name() { return testing::unique_name("pool"); }

TEST(ChunkPoolTest, allocate_larger_than_max_returns_too_large) {
  PoolConfig cfg;
  cfg.max_chunk_size = 1 << 20;
  ChunkPool sut(pool_name(), cfg);
  auto r = sut.allocate((1 << 20) + 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), AllocError::TooLarge);
}

TEST(ChunkPoolTest, size_classes_are_powers_of_two_from_64_bytes) {
  EXPECT_EQ(ChunkPool::size_class(1), 0u);
  EXPECT_EQ(ChunkPool::size_class(64), 0u);
  EXPECT_EQ(ChunkPool::size_class(65), 1u);
  EXPECT_EQ(ChunkPool::size_class(256), 2u);
  EXPECT_EQ(ChunkPool::size_class(24u << 20), 19u);  // 24 MiB -> 32 MiB chunks
}

TEST(ChunkPoolTest, growth_adds_segments_and_keeps_outstanding_loans_valid) {
  PoolConfig cfg;
  cfg.initial_small_chunks = 4;
  ChunkPool sut(pool_name(), cfg);
  std::vector<Allocation> loans;
  for (int i = 0; i < 20; ++i) {
    auto a = sut.allocate(100);
    ASSERT_TRUE(a);
    std::memset(a->data, i + 1, 100);
    loans.push_back(*a);
  }
  EXPECT_GT(sut.segment_count(), 1u);  // grew
  for (int i = 0; i < 20; ++i) {       // every earlier loan still addressable and intact
    EXPECT_EQ(loans[i].data[0], std::byte(i + 1));
    EXPECT_EQ(loans[i].data[99], std::byte(i + 1));
  }
  for (auto& l : loans) sut.release_publisher_ref(l.ref);
  EXPECT_EQ(sut.free_count(), sut.chunk_count());
}

TEST(ChunkPoolTest, allocate_and_free_reuse_the_same_chunk) {
  ChunkPool sut(pool_name(), {});
  auto a = sut.allocate(64);
  ASSERT_TRUE(a);
  const ChunkRef first = a->ref;
  sut.release_publisher_ref(first);
  auto b = sut.allocate(64);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->ref, first);  // LIFO: the cache-warm chunk comes back first
  EXPECT_EQ(b->control->refs.load(), PUBLISHER_REF);
  EXPECT_EQ(b->control->seq.load(), ChunkPool::NO_SEQ);
}

TEST(ChunkPoolTest, give_back_of_referenced_or_listed_chunk_is_ignored) {
  ChunkPool sut(pool_name(), {});
  auto a = sut.allocate(64);
  ASSERT_TRUE(a);
  const auto free_before = sut.free_count();
  sut.give_back(a->ref);  // still referenced by the publisher: ignored
  EXPECT_EQ(sut.free_count(), free_before);
  sut.release_publisher_ref(a->ref);
  sut.give_back(a->ref);  // already listed: ignored, never listed twice
  EXPECT_EQ(sut.free_count(), free_before + 1);
  sut.give_back(make_chunk_ref(200, 5));  // out of range (untrusted input): ignored
  EXPECT_EQ(sut.free_count(), free_before + 1);
}

TEST(ChunkPoolTest, sweep_finds_a_chunk_whose_hand_back_was_lost) {
  ChunkPool sut(pool_name(), {});
  auto a = sut.allocate(64);
  ASSERT_TRUE(a);
  a->control->refs.fetch_or(1);       // a subscriber pins it
  sut.release_publisher_ref(a->ref);  // publisher drops it: not free yet
  a->control->refs.fetch_and(~1ull);  // subscriber drops it, dies before handing back
  const auto free_before = sut.free_count();
  EXPECT_EQ(sut.sweep(), 1u);
  EXPECT_EQ(sut.free_count(), free_before + 1);
}

TEST(ChunkPoolTest, pool_is_reopened_by_name_in_another_process) {
  const std::string name = pool_name();
  ChunkPool sut(name, {});
  auto a = sut.allocate(5000);
  ASSERT_TRUE(a);
  std::memcpy(a->data, "shared bytes", 12);
  const ChunkRef ref = a->ref;
  pid_t child = fork();
  if (child == 0) {
    PoolView view(name);
    auto c = view.resolve(ref);
    _exit(c && std::memcmp(c->data, "shared bytes", 12) == 0 && c->capacity == 8192 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(PoolViewTest, resolve_out_of_range_reference_is_refused) {
  const std::string name = pool_name();
  ChunkPool owner(name, {});
  auto a = owner.allocate(64);
  ASSERT_TRUE(a);
  PoolView sut(name);
  EXPECT_FALSE(sut.resolve(make_chunk_ref(0, 1u << 20)));  // chunk index past the segment
  EXPECT_FALSE(sut.resolve(make_chunk_ref(7, 0)));         // segment that does not exist
  EXPECT_TRUE(sut.resolve(a->ref));
}

}  // namespace
}  // namespace baton::memory
