// What a stream holds in /dev/shm (segment layout 10, issue 20's memory target): a topic
// directory commits its header at creation and each slot's page when a claim first reaches it;
// a publisher segment its head (header and rows) and each return queue when a subscriber of
// that slot attaches. Both used to commit everything up front: 80 KiB of slots and 288 KiB of
// queues for a topic with one reader, 19x iceoryx2's allocation for a 64 B stream.
// The allocation is read from the tmpfs files themselves (st_blocks), and a full /dev/shm must
// be a clear error or a wait, never a SIGBUS.
#include <cstring>
#include <memory>
#include <vector>

#include "baton/shm/naming.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "private_dev_shm.hpp"
#include "shm_allocation.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

constexpr std::uint32_t RING = 4;

using testing::allocated_bytes;
using testing::PageSet;

// What the layout says a publisher segment should hold: the pages of its head and of the return
// queues of `slots`.
std::int64_t expected_publisher_bytes(const std::vector<std::uint32_t>& slots) {
  PageSet pages;
  pages.add(0, PublisherSegmentLayout::queues_offset(RING));
  for (std::uint32_t k : slots) {
    const std::uint64_t at = PublisherSegmentLayout::queue_offset(RING, k);
    pages.add(at, at + sizeof(ReturnQueue));
  }
  return pages.bytes();
}

// What a topic directory should hold: the header's pages and those of the slots claimed.
std::int64_t expected_directory_bytes(const std::vector<std::uint32_t>& pub_slots,
                                      const std::vector<std::uint32_t>& sub_slots) {
  PageSet pages;
  pages.add(0, TopicSegmentLayout::head_end);
  for (std::uint32_t p : pub_slots) {
    const std::uint64_t at = TopicSegmentLayout::slot_offset<PublisherSlot>(p);
    pages.add(at, at + sizeof(PublisherSlot));
  }
  for (std::uint32_t k : sub_slots) {
    const std::uint64_t at = TopicSegmentLayout::slot_offset<SubscriberSlot>(k);
    pages.add(at, at + sizeof(SubscriberSlot));
  }
  return pages.bytes();
}

std::string directory_name(const std::string& topic) { return shm::segment_name("t", topic); }

std::shared_ptr<Topic> make_topic(const std::string& name) {
  auto topic = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
  return topic ? *topic : nullptr;
}

bool publish_one(PublisherPort& pub, std::uint8_t value) {
  auto loan = pub.loan(64);
  if (!loan) return false;
  std::memset(loan->data, value, 64);
  return static_cast<bool>(pub.publish(*loan, 64));
}

TEST(ReturnQueueCommitTest, a_publisher_segment_holds_its_head_and_each_attached_readers_queue) {
  auto topic = make_topic(testing::unique_name("queues"));
  ASSERT_TRUE(topic);
  PublisherOptions po;
  po.depth = RING;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  const std::string seg = topic->publisher_segment_name((*pub)->slot(), (*pub)->generation());
  EXPECT_EQ(allocated_bytes(seg), expected_publisher_bytes({}));

  // Five readers (slots 0-4): the last queues cross into the segment's second page.
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  std::vector<std::uint32_t> slots;
  for (int i = 0; i < 5; ++i) {
    SubscriberOptions so;
    so.depth = RING;
    auto sub = SubscriberPort::create(topic, so);
    ASSERT_TRUE(sub);
    slots.push_back((*sub)->slot());
    subs.push_back(std::move(*sub));
  }
  ASSERT_TRUE(publish_one(**pub, 1));
  for (auto& sub : subs) {
    auto m = sub->take();
    ASSERT_TRUE(m) << "slot " << sub->slot() << " got nothing";
  }
  EXPECT_EQ(allocated_bytes(seg), expected_publisher_bytes(slots));
  EXPECT_LT(allocated_bytes(seg),
            static_cast<std::int64_t>(PublisherSegmentLayout::total_size(RING)) / 16);

  // Matched at creation: a second publisher commits the queues of the readers already there.
  auto pub2 = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub2);
  EXPECT_EQ(allocated_bytes(topic->publisher_segment_name((*pub2)->slot(), (*pub2)->generation())),
            expected_publisher_bytes(slots));
}

// Exit codes of the children on a full /dev/shm, so the parent can say what went wrong.
enum Outcome : int {
  Passed = 0,
  SetupFailed = 3,
  NeverFull = 4,
  WrongWithoutRoom = 5,  // attached or claimed with no room, or not the error expected
  WrongWithRoom = 6,     // not attached or claimed once there was room
};
constexpr const char* OUTCOMES =
    "3: setup failed, 4: /dev/shm never filled, 5: wrong while /dev/shm was full, 6: not "
    "attached or claimed once there was room";

int attach_on_a_full_dev_shm(const std::string& name) {
  auto topic = make_topic(name);
  if (!topic) return SetupFailed;
  PublisherOptions po;
  po.depth = RING;
  auto pub = PublisherPort::create(topic, po);
  if (!pub || !(*pub)->reserve(64, RING + 2)) return SetupFailed;
  // Slots 0-2 take the queues that share the head's page; slot 3's needs a page of its own.
  std::vector<std::unique_ptr<SubscriberPort>> early;
  for (int i = 0; i < 3; ++i) {
    auto sub = SubscriberPort::create(topic, SubscriberOptions{});
    if (!sub) return SetupFailed;
    early.push_back(std::move(*sub));
  }
  if (!testing::fill_dev_shm()) return NeverFull;
  SubscriberOptions so;
  so.depth = RING;
  auto late = SubscriberPort::create(topic, so);
  if (!late || (*late)->slot() != 3) return SetupFailed;
  if (!publish_one(**pub, 2)) return SetupFailed;
  // No room for its queue: it stays unattached, and neither it nor the publisher faults.
  if ((*late)->take()) return WrongWithoutRoom;
  testing::unfill_dev_shm();
  // Room again: the next look attaches, and what is published from then on arrives.
  (void)(*late)->take();
  if (!publish_one(**pub, 3)) return SetupFailed;
  auto m = (*late)->take();
  if (!m || m->size() != 64 || m->data()[0] != std::byte{3}) return WrongWithRoom;
  return Passed;
}

TEST(ReturnQueueCommitTest,
     a_reader_attaching_on_a_full_dev_shm_waits_unattached_until_there_is_room) {
  const std::string name = testing::unique_name("fullqueue");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return attach_on_a_full_dev_shm(name); }, OUTCOMES);
}

TEST(TopicSlotCommitTest, a_directory_holds_its_header_and_the_pages_of_the_slots_claimed) {
  const std::string name = testing::unique_name("slots");
  auto topic = make_topic(name);
  ASSERT_TRUE(topic);
  EXPECT_EQ(allocated_bytes(directory_name(name)), expected_directory_bytes({}, {}));
  EXPECT_EQ(topic->publisher_slot_limit(), 0u);
  EXPECT_EQ(topic->subscriber_slot_limit(), 0u);

  PublisherOptions po;
  po.depth = RING;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  std::vector<std::uint32_t> sub_slots;
  for (int i = 0; i < 20; ++i) {  // 20 slots of 256 bytes: across a page boundary
    auto sub = SubscriberPort::create(topic, SubscriberOptions{});
    ASSERT_TRUE(sub);
    sub_slots.push_back((*sub)->slot());
    subs.push_back(std::move(*sub));
  }
  EXPECT_EQ(allocated_bytes(directory_name(name)),
            expected_directory_bytes({(*pub)->slot()}, sub_slots));
  EXPECT_EQ(topic->publisher_slot_limit(), 1u);
  EXPECT_EQ(topic->subscriber_slot_limit(), 20u);
  EXPECT_LT(allocated_bytes(directory_name(name)),
            static_cast<std::int64_t>(TopicSegmentLayout::total_size) / 4);

  // A slot given back is claimed again before the limit grows.
  subs[3].reset();
  auto again = SubscriberPort::create(topic, SubscriberOptions{});
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->slot(), sub_slots[3]);
  EXPECT_EQ(topic->subscriber_slot_limit(), 20u);
}

TEST(TopicSlotCommitTest, a_topic_with_few_endpoints_holds_one_page_of_directory) {
  const std::string name = testing::unique_name("onepage");
  auto topic = make_topic(name);
  ASSERT_TRUE(topic);
  const auto page = static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
  PublisherOptions po;
  po.depth = RING;
  auto pub = PublisherPort::create(topic, po);
  ASSERT_TRUE(pub);
  std::vector<std::unique_ptr<SubscriberPort>> subs;
  for (std::uint32_t k = 0; k < TopicSegmentLayout::head_subscriber_slots; ++k) {
    auto sub = SubscriberPort::create(topic, SubscriberOptions{});
    ASSERT_TRUE(sub);
    subs.push_back(std::move(*sub));
  }
  EXPECT_EQ(allocated_bytes(directory_name(name)), page);
  // The next subscriber's slot is past the header's page.
  auto next = SubscriberPort::create(topic, SubscriberOptions{});
  ASSERT_TRUE(next);
  EXPECT_EQ(allocated_bytes(directory_name(name)), 2 * page);
}

int claim_on_a_full_dev_shm(const std::string& name) {
  auto topic = make_topic(name);
  if (!topic) return SetupFailed;
  // The head slots share the header's page, committed with it: take them while there is room.
  std::vector<std::unique_ptr<SubscriberPort>> head;
  for (std::uint32_t k = 0; k < TopicSegmentLayout::head_subscriber_slots; ++k) {
    auto sub = SubscriberPort::create(topic, SubscriberOptions{});
    if (!sub) return SetupFailed;
    head.push_back(std::move(*sub));
  }
  if (!testing::fill_dev_shm()) return NeverFull;
  // No page for the first slot past them.
  auto refused = SubscriberPort::create(topic, SubscriberOptions{});
  if (refused || refused.error().code != SubscriberCreateError::SegmentFailure ||
      refused.error().detail.find("/dev/shm") == std::string::npos ||
      topic->subscriber_slot_limit() != TopicSegmentLayout::head_subscriber_slots) {
    return WrongWithoutRoom;
  }
  testing::unfill_dev_shm();
  auto sub = SubscriberPort::create(topic, SubscriberOptions{});
  if (!sub || (*sub)->slot() != TopicSegmentLayout::head_subscriber_slots) return WrongWithRoom;
  return Passed;
}

TEST(TopicSlotCommitTest,
     a_claim_on_a_full_dev_shm_is_a_clear_error_and_succeeds_once_there_is_room) {
  const std::string name = testing::unique_name("fullslot");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return claim_on_a_full_dev_shm(name); }, OUTCOMES);
}

}  // namespace
}  // namespace baton::topic
