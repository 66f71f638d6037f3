// Regression tests for bugs the stress work found in the topic layer (one test per bug; the
// bug is described above each test).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#include "baton/memory/pool_view.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<Topic> make_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

void publish_bytes(PublisherPort& pub, const std::string& text) {
  auto loan = pub.loan(text.size());
  ASSERT_TRUE(loan);
  std::memcpy(loan->data, text.data(), text.size());
  ASSERT_TRUE(pub.publish(*loan, text.size()));
}

// Runs `fn` in a forked child and returns its exit status, or -1 if it had to be killed after
// `limit` (a hang).
template <typename F>
int run_with_deadline(F fn, std::chrono::milliseconds limit) {
  pid_t pid = ::fork();
  if (pid == 0) {
    fn();
    std::_Exit(0);
  }
  const auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(1ms);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(RegressionTest, publisher_with_invalid_loan_returns_invalid_loan) {
  auto topic = make_topic(testing::unique_name("bad"));
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  auto sut = (*pub)->publish(ChunkLoan{}, 1);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error(), PublishError::InvalidLoan);
}

// Bug: a slot's start_time survived its release, so in the window between a new claimer's CAS
// (Free -> Claimed with its pid) and its start_time store, reclaim_dead() compared the new pid
// with the previous owner's start time, judged the live claimer dead and reclaimed its slot.
TEST(RegressionTest, reclaim_during_claim_after_clean_release_keeps_live_claimer) {
  const auto name = testing::unique_name("claim");
  auto topic = make_topic(name);
  std::this_thread::sleep_for(30ms);  // the child's start time (10 ms ticks) differs from ours
  const int rc = run_with_deadline(
      [&] {
        auto t = make_topic(name);
        auto sub = SubscriberPort::create(t, {});
        auto pub = PublisherPort::create(t, {});
        if (!sub || !pub) std::_Exit(2);
      },
      5s);
  ASSERT_EQ(rc, 0);
  const std::uint32_t me = static_cast<std::uint32_t>(::getpid());
  SubscriberSlot* s = topic->subscriber_slot(0);
  PublisherSlot* p = topic->publisher_slot(0);
  // Simulate claim_in() right after its CAS, before it records its start time.
  std::uint64_t free_word = slot_word(SlotState::Free, 0);
  ASSERT_TRUE(s->state.compare_exchange_strong(free_word, slot_word(SlotState::Claimed, me)));
  free_word = slot_word(SlotState::Free, 0);
  ASSERT_TRUE(p->state.compare_exchange_strong(free_word, slot_word(SlotState::Claimed, me)));

  const std::uint32_t sut = topic->reclaim_dead();

  EXPECT_EQ(sut, 0u);
  EXPECT_EQ(s->state.load(), slot_word(SlotState::Claimed, me));
  EXPECT_EQ(p->state.load(), slot_word(SlotState::Claimed, me));
  topic->release_subscriber(0);
  topic->release_publisher(0);
}

// Bug: wait_for_space() reclaimed dead subscribers only after 100 ms of waiting, so a reliable
// publisher with a shorter reliable_timeout never reclaimed a reliable subscriber that died with
// a full queue: every later publish timed out, forever.
TEST(RegressionTest, reliable_publish_with_short_timeout_after_subscriber_killed_succeeds) {
  const auto name = testing::unique_name("dead_reliable");
  auto topic = make_topic(name);
  PublisherOptions po;
  po.depth = 2;
  po.reliable_timeout = 20ms;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto t = make_topic(name);
    SubscriberOptions so;
    so.depth = 2;
    auto sub = SubscriberPort::create(t, so);
    if (!sub) std::_Exit(2);
    (void)::write(ready[1], "R", 1);
    while (true) ::pause();  // never takes
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  publish_bytes(**pub, "a");
  publish_bytes(**pub, "b");  // the child's queue is full now
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);

  auto loan = (*pub)->loan(1);
  ASSERT_TRUE(loan);
  auto sut = (*pub)->publish(*loan, 1);

  EXPECT_TRUE(sut) << "publish still blocked by a dead subscriber";
  EXPECT_EQ((*pub)->subscriber_count(), 0u);
}

// Bug: samples may be released from any thread, but the return queue was single-producer:
// two threads dropping the last reference of different chunks at once could claim the same
// entry, and one chunk never came back to the publisher (a leak until the next overflow sweep).
TEST(RegressionTest, release_from_many_threads_returns_every_chunk) {
  auto topic = make_topic(testing::unique_name("mt_release"));
  PublisherOptions po;
  po.depth = 1;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  SubscriberOptions so;
  so.depth = 1;
  so.reliability = Reliability::BestEffort;
  auto sub = SubscriberPort::create(topic, so);
  ASSERT_TRUE(pub && sub);
  constexpr int THREADS = 4;
  for (int round = 0; round < 300; ++round) {
    std::vector<TakenSample> held;
    for (std::uint32_t i = 0; i < MAX_LOANS_PER_SUBSCRIBER; ++i) {
      publish_bytes(**pub, "m");
      auto m = (*sub)->take();
      ASSERT_TRUE(m);
      held.push_back(std::move(*m));
    }
    publish_bytes(**pub, "evict");  // now every held chunk's last reference is the sample's
    (void)(*sub)->take();
    std::barrier sync(THREADS);
    std::vector<std::thread> threads;
    for (int t = 0; t < THREADS; ++t) {
      threads.emplace_back([&, t] {
        sync.arrive_and_wait();
        for (std::size_t i = t; i < held.size(); i += THREADS) held[i].release();
      });
    }
    for (auto& t : threads) t.join();
    (*pub)->collect_returns();
  }
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
  EXPECT_EQ(pool.segment_count(), 1u);
}

// Bug: a row whose sequence number is newer than the cursor but does not belong at that index
// (corrupt shared memory) made take() spin forever: the "lapped" branch never advanced.
TEST(RegressionTest, take_with_row_seq_not_matching_its_index_skips_it_without_hanging) {
  auto topic = make_topic(testing::unique_name("torn_row"));
  PublisherOptions po;
  po.depth = 4;
  po.reliability = Reliability::BestEffort;
  auto pub = PublisherPort::create(topic, po);
  auto sub = SubscriberPort::create(topic, {});
  ASSERT_TRUE(pub && sub);
  publish_bytes(**pub, "x");
  const std::uint32_t gen = topic->publisher_slot((*pub)->slot())->generation.load();
  auto seg = shm::Segment::open(topic->publisher_segment_name((*pub)->slot(), gen),
                                shm::SegmentKind::Publisher);
  ASSERT_TRUE(seg);
  seg->at<Row>(PublisherSegmentLayout::rows_offset)[0].seq.store(1);  // seq 1 belongs at row 1

  const int sut = run_with_deadline(
      [&] {
        auto m = (*sub)->take();
        std::_Exit(m ? 1 : 0);
      },
      3s);

  EXPECT_EQ(sut, 0) << (sut == -1 ? "take() hung on a corrupt row" : "corrupt row delivered");
}

// Bug: publish() accepted a loan that was already published; the chunk then sat in the ring
// twice and its publisher reference was dropped twice, freeing it while a row still named it.
TEST(RegressionTest, publish_same_loan_twice_returns_invalid_loan) {
  auto topic = make_topic(testing::unique_name("twice"));
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  auto loan = (*pub)->loan(8);
  ASSERT_TRUE(loan);
  ASSERT_TRUE((*pub)->publish(*loan, 8));

  auto sut = (*pub)->publish(*loan, 8);

  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error(), PublishError::InvalidLoan);
  (*pub)->discard(*loan);  // also refused: the chunk belongs to the ring now
  EXPECT_EQ((*pub)->ring_occupancy(), 1u);
  const auto& pool = (*pub)->pool();
  EXPECT_EQ(pool.free_count() + (*pub)->ring_occupancy(), pool.chunk_count());
}

// Bug: open_or_create() retried a directory that was not ready 50 times, each after open() had
// waited 1 s for it, so a live creator that never finished (or a corrupt ready word) stalled the
// caller for 50 s. Now it is refused after the one wait, with the segment named.
TEST(RegressionTest, open_or_create_with_never_ready_directory_of_live_creator_fails_fast) {
  const auto name = testing::unique_name("unready");
  auto seg = shm::Segment::create(shm::segment_name("t", name), TopicSegmentLayout::total_size,
                                  shm::SegmentKind::Topic);  // we are its live creator
  ASSERT_TRUE(seg);
  std::string detail;
  const int sut = run_with_deadline(
      [&] {
        auto t = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
        std::_Exit(!t && t.error().code == TopicError::SegmentFailure &&
                           t.error().detail.find("not finished") != std::string::npos
                       ? 0
                       : 1);
      },
      10s);
  seg->unlink();
  EXPECT_EQ(sut, 0) << (sut == -1 ? "open_or_create stalled" : "wrong error");
}

// Bug: a subscriber waited up to 100 ms for a publisher segment to become ready, and refresh()
// retries a failed connection on every take()/has_data(), so one publisher segment with a
// corrupt ready word stalled each call by 100 ms. The publisher readies its segment before it
// activates its slot, so the subscriber no longer waits.
TEST(RegressionTest, take_with_unready_publisher_segment_returns_at_once) {
  const auto name = testing::unique_name("unready_pub");
  auto topic = make_topic(name);
  // The publisher lives in another process, so this one maps its segment afresh.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto t = make_topic(name);
    auto pub = PublisherPort::create(t, {});
    if (!pub) std::_Exit(2);
    auto loan = (*pub)->loan(1);
    if (!loan || !(*pub)->publish(*loan, 1)) std::_Exit(3);
    (void)::write(ready[1], "R", 1);
    while (true) ::pause();
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const std::uint32_t gen = topic->publisher_slot(0)->generation.load();
  auto seg = shm::Segment::open(topic->publisher_segment_name(0, gen), shm::SegmentKind::Publisher);
  ASSERT_TRUE(seg);
  seg->header()->ready.store(0);
  auto sub = SubscriberPort::create(topic, {});
  ASSERT_TRUE(sub);

  const int sut = run_with_deadline(
      [&] {
        for (int i = 0; i < 200; ++i) {
          if ((*sub)->take()) std::_Exit(1);
        }
      },
      5s);

  EXPECT_EQ(sut, 0) << (sut == -1 ? "take() stalled on an unready segment" : "took a message");
  seg->header()->ready.store(shm::SEGMENT_READY);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  topic->reclaim_dead();
}

// Bug: a data segment header whose control array started inside the headers passed validation,
// so chunk control words (refs, seq, payload size) were written over the segment header —
// first by the owner's own allocate() — turning one corrupt field into a destroyed segment.
TEST(RegressionTest, loan_with_control_offset_inside_headers_never_writes_the_header) {
  auto topic = make_topic(testing::unique_name("ctl_alias"));
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  publish_bytes(**pub, "grow");  // creates data segment 0
  const std::uint32_t gen = topic->publisher_slot((*pub)->slot())->generation.load();
  auto seg = shm::Segment::open(memory::data_segment_name(topic->pool_name((*pub)->slot(), gen), 0),
                                shm::SegmentKind::Data);
  ASSERT_TRUE(seg);
  seg->at<memory::DataSegmentHeader>(memory::DATA_HEADER_OFFSET)->control_offset = 0;

  for (int i = 0; i < 80; ++i) {  // every chunk of the segment passes through allocate()
    auto loan = (*pub)->loan(8);
    if (loan) (*pub)->discard(*loan);
  }

  EXPECT_EQ(seg->header()->magic, shm::SEGMENT_MAGIC);
  EXPECT_EQ(seg->header()->ready.load(), shm::SEGMENT_READY);
  EXPECT_EQ(memory::validate_data_segment(*seg, 0), "control array overlaps the segment headers");
}

// Bug: a subscriber that left while a reliable publisher waited for room in its queue did not
// wake that publisher; it slept out its 10 ms slice before seeing the room. Here the waiting
// publisher is stood in for by arming its space_waiters word as wait_for_space does, so the test
// sees the wake itself (space_seq bumped, ARMED consumed) rather than a time.
TEST(RegressionTest, subscriber_leaving_wakes_a_publisher_waiting_for_room) {
  auto topic = make_topic(testing::unique_name("leave"));
  PublisherOptions po;
  po.depth = 1;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  SubscriberOptions so;
  so.depth = 1;
  auto sub = SubscriberPort::create(topic, so);
  ASSERT_TRUE(sub);
  publish_bytes(**pub, "a");
  ASSERT_TRUE((*sub)->take());  // connects the subscriber to the publisher's segment
  auto pseg =
      shm::Segment::open(topic->publisher_segment_name((*pub)->slot(), (*pub)->generation()),
                         shm::SegmentKind::Publisher);
  ASSERT_TRUE(pseg);
  auto* header = pseg->at<PublisherHeader>(PublisherSegmentLayout::header_offset);
  const std::uint32_t before = shm::announce_sleeper(&header->space_waiters, &header->space_seq);
  (*sub).reset();  // the subscriber leaves
  EXPECT_NE(header->space_seq.load(), before);
  EXPECT_EQ(header->space_waiters.load() & shm::SLEEPER_ARMED, 0u);
  shm::retract_sleeper(&header->space_waiters);
}

}  // namespace
}  // namespace baton::topic
