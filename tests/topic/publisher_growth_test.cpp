// A publisher's pool growth as the topic layer drives it: sized for the ring, one chunk
// committed ahead after each publish, or everything paid up front with reserve().
#include <cstring>
#include <set>
#include <vector>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;

std::shared_ptr<Topic> make_topic() {
  auto t =
      Topic::open_or_create(testing::unique_name("growth"), TypeInfo::from_name("test/msg/Bytes"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

void publish(PublisherPort& pub, std::uint64_t size, std::uint64_t seq) {
  auto loan = pub.loan(size);
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, &seq, sizeof(seq));
  ASSERT_TRUE(pub.publish(*loan, size));
}

TEST(PublisherGrowthTest, reserve_larger_than_max_message_size_is_refused) {
  PublisherOptions o;
  o.pool.max_chunk_size = MiB;
  auto pub = PublisherPort::create(make_topic(), o);
  ASSERT_TRUE(pub);
  auto r = (*pub)->reserve(2 * MiB, 4);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, memory::ReserveError::TooLarge);
  EXPECT_EQ((*pub)->pool().segment_count(), 0u);
}

TEST(PublisherGrowthTest, reserved_publisher_streams_through_its_ring_without_growing) {
  auto topic = make_topic();
  PublisherOptions o;
  o.depth = 8;
  auto pub = PublisherPort::create(topic, o);
  SubscriberOptions so;
  so.depth = 8;
  so.reliability = Reliability::BestEffort;
  auto sub = SubscriberPort::create(topic, so);
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE((*pub)->reserve(MiB, o.depth + 2));
  const auto& pool = (*pub)->pool();
  ASSERT_EQ(pool.segment_count(), 1u);
  const auto committed = pool.committed_bytes();
  for (std::uint64_t seq = 0; seq < 40; ++seq) {
    publish(**pub, MiB - 64, seq);
    auto m = (*sub)->take();  // read and released at once, as a quick reader does
    ASSERT_TRUE(m);
    std::uint64_t got = 0;
    std::memcpy(&got, m->data(), sizeof(got));
    EXPECT_EQ(got, seq);
    EXPECT_EQ(pool.segment_count(), 1u) << "grew at message " << seq;
    // A reader that keeps up: the reserve()d chunk again and again, and the one committed
    // ahead after the first publish in case it had not.
    EXPECT_LE(pool.committed_bytes(), committed + MiB) << "committed memory at message " << seq;
  }
  (*pub)->collect_returns();
  EXPECT_EQ(pool.chunk_count(), 2u);
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

TEST(PublisherGrowthTest, unreserved_publisher_has_the_next_chunk_ready_after_each_publish) {
  PublisherOptions o;
  o.depth = 6;
  auto pub = PublisherPort::create(make_topic(), o);
  ASSERT_TRUE(pub);
  const auto& pool = (*pub)->pool();
  for (std::uint64_t seq = 0; seq < 30; ++seq) {
    publish(**pub, 2 * MiB, seq);
    // The loan of the next message will not have to commit memory.
    EXPECT_TRUE(pool.has_free(2 * MiB)) << "after message " << seq;
  }
  // Sized for the ring: one segment, never more chunks than the publisher can hold at once.
  EXPECT_EQ(pool.segment_count(), 1u);
  EXPECT_LE(pool.chunk_count(), o.depth + 2u);
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

// Issue 20, memory: once every subscriber has taken a message, a volatile publisher lets the
// ring's chunk go, so a stream whose reader keeps up writes one chunk, not depth + 2 (each one
// it writes is resident in its page tables: 18 x 4 MiB = 72 MiB at depth 16).
std::uint64_t read_seq(const TakenSample& m) {
  std::uint64_t got = 0;
  std::memcpy(&got, m.data(), sizeof(got));
  return got;
}

// Publishes message `seq` (its number in the first bytes) and returns the chunk it used.
const std::byte* publish_at(PublisherPort& pub, std::uint64_t seq) {
  auto loan = pub.loan(MiB);
  EXPECT_TRUE(loan);
  if (!loan) return nullptr;
  std::memcpy(loan->data, &seq, sizeof(seq));
  EXPECT_TRUE(pub.publish(*loan, MiB));
  return loan->data;
}

struct Stream {
  std::shared_ptr<Topic> topic = make_topic();
  std::unique_ptr<PublisherPort> pub;
  std::unique_ptr<SubscriberPort> sub;

  explicit Stream(Durability durability) {
    PublisherOptions o;
    o.depth = 8;
    o.durability = durability;
    auto p = PublisherPort::create(topic, o);
    SubscriberOptions so;
    so.depth = 8;
    so.durability = durability;
    auto s = SubscriberPort::create(topic, so);
    EXPECT_TRUE(p && s);
    if (!p || !s) return;
    pub = std::move(*p);
    sub = std::move(*s);
    EXPECT_TRUE(pub->reserve(MiB, o.depth + 2));
  }
};

TEST(PublisherGrowthTest, volatile_publisher_whose_reader_keeps_up_writes_one_chunk) {
  Stream st(Durability::Volatile);
  ASSERT_TRUE(st.pub);
  std::set<const std::byte*> written;
  for (std::uint64_t seq = 0; seq < 40; ++seq) {
    written.insert(publish_at(*st.pub, seq));
    auto m = st.sub->take();  // read and released at once, as a quick reader does
    ASSERT_TRUE(m);
    EXPECT_EQ(read_seq(*m), seq);
  }
  EXPECT_EQ(written.size(), 1u);
  EXPECT_EQ(st.sub->lost(), 0u);
  st.pub->collect_returns();
  const auto& pool = st.pub->pool();
  // Committed in /dev/shm: that chunk and the one committed ahead after the first publish
  // (the reader had not taken it yet), not the reservation's ten.
  EXPECT_EQ(pool.chunk_count(), 2u);
  EXPECT_EQ(pool.free_count() + st.pub->ring_occupancy(), pool.chunk_count());
}

TEST(PublisherGrowthTest, a_reader_that_falls_behind_still_gets_the_whole_ring) {
  Stream st(Durability::Volatile);
  ASSERT_TRUE(st.pub);
  for (std::uint64_t seq = 0; seq < 8; ++seq) publish_at(*st.pub, seq);  // nothing taken yet
  for (std::uint64_t seq = 0; seq < 8; ++seq) {
    auto m = st.sub->take();
    ASSERT_TRUE(m) << "message " << seq;
    EXPECT_EQ(read_seq(*m), seq);
  }
  EXPECT_FALSE(st.sub->take());
  EXPECT_EQ(st.sub->lost(), 0u);
}

TEST(PublisherGrowthTest, a_held_message_stays_intact_while_its_ring_reference_is_let_go) {
  Stream st(Durability::Volatile);
  ASSERT_TRUE(st.pub);
  const std::byte* held_chunk = publish_at(*st.pub, 0);
  auto held = st.sub->take();
  ASSERT_TRUE(held);
  for (std::uint64_t seq = 1; seq < 20; ++seq) {
    EXPECT_NE(publish_at(*st.pub, seq), held_chunk) << "reused at message " << seq;
    auto m = st.sub->take();
    ASSERT_TRUE(m);
    EXPECT_EQ(read_seq(*m), seq);
  }
  EXPECT_EQ(read_seq(*held), 0u);
  held->release();
  st.pub->collect_returns();
  const auto& pool = st.pub->pool();
  EXPECT_EQ(pool.free_count() + st.pub->ring_occupancy(), pool.chunk_count());
}

TEST(PublisherGrowthTest, transient_local_publisher_keeps_its_history_for_a_late_reader) {
  Stream st(Durability::TransientLocal);
  ASSERT_TRUE(st.pub);
  for (std::uint64_t seq = 0; seq < 12; ++seq) {
    publish_at(*st.pub, seq);
    ASSERT_TRUE(st.sub->take());
  }
  SubscriberOptions so;
  so.depth = 8;
  so.durability = Durability::TransientLocal;
  auto late = SubscriberPort::create(st.topic, so);
  ASSERT_TRUE(late);
  for (std::uint64_t seq = 4; seq < 12; ++seq) {
    auto m = (*late)->take();
    ASSERT_TRUE(m) << "message " << seq;
    EXPECT_EQ(read_seq(*m), seq);
  }
  EXPECT_EQ((*late)->lost(), 0u);
}

}  // namespace
}  // namespace baton::topic
