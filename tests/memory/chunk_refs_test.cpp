#include "baton/memory/chunk_refs.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace baton::memory {
namespace {

// Slots at the edges of every reference word: 0 and 62 in refs, then the first and last slot of
// each refs_ext word that 256 subscribers use.
const std::vector<std::uint32_t> kEdgeSlots = {0, 1, 62, 63, 64, 126, 127, 190, 191, 254, 255};

TEST(ChunkRefsTest, every_slot_up_to_the_limit_has_its_own_bit) {
  ChunkControl c{};
  for (std::uint32_t k = 0; k < MAX_SUBSCRIBER_BITS; ++k) {
    auto& word = ref_word(&c, k);
    ASSERT_EQ(word.load() & ref_bit(k), 0u) << "slot " << k << " shares a bit";
    word.fetch_or(ref_bit(k));
  }
  EXPECT_EQ(c.refs.load(), ~PUBLISHER_REF);  // slots 0..62, the publisher's bit untouched
  for (const auto& w : c.refs_ext) EXPECT_EQ(w.load(), ~0ull);
}

TEST(ChunkRefsTest, a_pin_holds_only_while_the_publisher_holds_the_chunk) {
  for (std::uint32_t k : kEdgeSlots) {
    ChunkControl c{};
    c.refs.store(PUBLISHER_REF);  // published: in the ring
    const PinResult pin = pin_ref(&c, k);
    EXPECT_TRUE(pin.pinned) << "slot " << k;
    EXPECT_FALSE(pin.ours_already);
    EXPECT_TRUE(holds_ref(&c, k));
    EXPECT_FALSE(drop_publisher_ref(&c)) << "freed while slot " << k << " holds it";
    EXPECT_TRUE(drop_ref(&c, k)) << "slot " << k << " was the last reference";
    EXPECT_TRUE(refs_clear(&c));
  }
}

TEST(ChunkRefsTest, a_pin_after_the_publisher_let_go_is_refused_and_hands_the_chunk_back) {
  for (std::uint32_t k : kEdgeSlots) {
    ChunkControl c{};  // free: the publisher dropped it
    const PinResult pin = pin_ref(&c, k);
    EXPECT_FALSE(pin.pinned) << "slot " << k;
    EXPECT_FALSE(pin.ours_already);
    EXPECT_FALSE(refs_clear(&c));  // the stray bit is visible until dropped
    EXPECT_TRUE(drop_ref(&c, k));  // dropping it again: free, hand back (the owner dedups)
    EXPECT_TRUE(refs_clear(&c));
  }
}

TEST(ChunkRefsTest, a_second_pin_by_the_same_slot_is_reported_as_ours_already) {
  for (std::uint32_t k : kEdgeSlots) {
    ChunkControl c{};
    c.refs.store(PUBLISHER_REF);  // published: in the ring
    ASSERT_TRUE(pin_ref(&c, k).pinned);
    const PinResult again = pin_ref(&c, k);
    EXPECT_TRUE(again.ours_already) << "slot " << k;
    EXPECT_FALSE(again.pinned);
  }
}

TEST(ChunkRefsTest, only_the_last_reference_in_any_word_frees_the_chunk) {
  ChunkControl c{};
  c.refs.store(PUBLISHER_REF);  // published: in the ring
  for (std::uint32_t k : kEdgeSlots) ASSERT_TRUE(pin_ref(&c, k).pinned);
  EXPECT_FALSE(drop_publisher_ref(&c));
  // Drop from the highest word down, so every word but the last dropper's is already clear.
  for (std::size_t i = kEdgeSlots.size(); i-- > 1;) {
    EXPECT_FALSE(drop_ref(&c, kEdgeSlots[i])) << "slot " << kEdgeSlots[i] << " is not last";
  }
  EXPECT_TRUE(drop_ref(&c, kEdgeSlots[0]));
  EXPECT_TRUE(refs_clear(&c));
}

TEST(ChunkRefsTest, the_publisher_frees_the_chunk_once_refs_ext_holders_are_gone) {
  ChunkControl c{};
  c.refs.store(PUBLISHER_REF);  // published: in the ring
  ASSERT_TRUE(pin_ref(&c, 200).pinned);
  ASSERT_TRUE(pin_ref(&c, 201).pinned);
  EXPECT_FALSE(drop_ref(&c, 200));
  EXPECT_FALSE(drop_ref(&c, 201));  // the publisher's bit is still set
  EXPECT_TRUE(drop_publisher_ref(&c));
}

TEST(ChunkRefsTest, dropping_a_reference_twice_is_harmless) {
  // A reclaimer drops a dead subscriber's bit whether or not it got to it before dying.
  for (std::uint32_t k : kEdgeSlots) {
    ChunkControl c{};
    c.refs.store(PUBLISHER_REF);                      // published: in the ring
    ASSERT_TRUE(pin_ref(&c, 5 == k ? 6 : 5).pinned);  // another subscriber
    ASSERT_TRUE(pin_ref(&c, k).pinned);
    EXPECT_FALSE(drop_ref(&c, k));
    EXPECT_FALSE(drop_ref(&c, k));
    EXPECT_EQ(c.refs.load() & PUBLISHER_REF, PUBLISHER_REF);
    EXPECT_TRUE(holds_ref(&c, 5 == k ? 6 : 5));
  }
}

}  // namespace
}  // namespace baton::memory
