// A data segment is as many pages as its headers, controls and chunks need: chunks follow the
// controls, aligned to their stride up to a page (issue 20, memory: a 64 B stream of depth 16
// held three pages of data segment, now one).
#include <algorithm>
#include <cstdint>

#include "baton/memory/chunk_pool.hpp"
#include "shm_allocation.hpp"
#include "test_util.hpp"

namespace baton::memory {
namespace {

// The one data segment of a pool that reserved `count` chunks of `size` bytes: its file's
// allocated bytes and size, and the payload address of a chunk allocated from it.
struct Reserved {
  std::int64_t allocated = -1;
  std::uint64_t size = 0;
  std::uintptr_t payload = 0;
};

Reserved reserve_one_class(std::uint64_t size, std::uint32_t count) {
  ChunkPool pool(testing::unique_name("layout"), PoolConfig{});
  Reserved out;
  auto r = pool.reserve(size, count);
  EXPECT_TRUE(r) << r.error().detail;
  auto segments = pool.mappings();
  EXPECT_EQ(segments.size(), 1u);
  if (segments.size() != 1) return out;
  out.allocated = testing::allocated_bytes(segments[0]->name());
  out.size = segments[0]->size();
  auto a = pool.allocate(size);
  EXPECT_TRUE(a);
  if (a) out.payload = reinterpret_cast<std::uintptr_t>(a->data);
  return out;
}

TEST(DataSegmentLayoutTest, a_64_byte_stream_of_depth_16_fits_one_page) {
  // The ring of 16, the loan being filled and a sample a reader holds (PublisherPort's
  // reservation): 128 B of headers, 18 x 128 B of controls and 18 x 64 B of chunks.
  const Reserved r = reserve_one_class(64, 18);
  EXPECT_EQ(r.size, 128u + 18 * sizeof(ChunkControl) + 18 * 64);
  EXPECT_EQ(r.allocated, 4096);
  EXPECT_EQ(r.payload % 64, 0u);
}

TEST(DataSegmentLayoutTest, chunks_keep_the_alignment_of_their_size_up_to_a_page) {
  for (const std::uint64_t size : {256ull, 1024ull, 4096ull, 65536ull}) {
    const Reserved r = reserve_one_class(size, 18);
    EXPECT_EQ(r.payload % std::min<std::uint64_t>(size, DATA_PAGE), 0u) << size << " B chunks";
    // Headers and controls (2 432 B) and the chunks, the padding between them under one stride.
    const std::uint64_t controls = 128 + 18 * sizeof(ChunkControl);
    EXPECT_LT(r.size - 18 * size - controls, std::min<std::uint64_t>(size, DATA_PAGE))
        << size << " B chunks";
  }
}

}  // namespace
}  // namespace baton::memory
