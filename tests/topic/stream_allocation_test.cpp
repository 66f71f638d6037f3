// What a stream holds in /dev/shm (segment layout 10, issue 20's memory target): a topic
// directory commits its header at creation and each slot's page when a claim first reaches it;
// a publisher segment its head (header and rows) and each return queue when a subscriber of
// that slot attaches. Both used to commit everything up front: 80 KiB of slots and 288 KiB of
// queues for a topic with one reader, 19x iceoryx2's allocation for a 64 B stream.
// The allocation is read from the tmpfs files themselves (st_blocks), and a full /dev/shm must
// be a clear error or a wait, never a SIGBUS.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "baton/shm/naming.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "private_dev_shm.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

constexpr std::uint32_t RING = 4;

// Bytes the tmpfs file behind a segment holds in pages, or -1 if it cannot be read.
std::int64_t allocated_bytes(const std::string& shm_name) {
  struct stat st {};
  if (::stat(("/dev/shm" + shm_name).c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.st_blocks) * 512;
}

// The bytes of the pages that [begin, end) ranges touch.
class PageSet {
 public:
  PageSet& add(std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t p = begin / page_; p < (end + page_ - 1) / page_; ++p) pages_.insert(p);
    return *this;
  }
  std::int64_t bytes() const { return static_cast<std::int64_t>(pages_.size() * page_); }

 private:
  std::uint64_t page_ = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::set<std::uint64_t> pages_;
};

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
  pages.add(0, TopicSegmentLayout::pub_slots_offset);
  for (std::uint32_t p : pub_slots) {
    const std::uint64_t at = TopicSegmentLayout::pub_slots_offset + p * sizeof(PublisherSlot);
    pages.add(at, at + sizeof(PublisherSlot));
  }
  for (std::uint32_t k : sub_slots) {
    const std::uint64_t at = TopicSegmentLayout::sub_slots_offset + k * sizeof(SubscriberSlot);
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

// Child exit codes, so the parent can say what went wrong.
enum Outcome : int {
  Passed = 0,
  SetupFailed = 3,
  NeverFull = 4,
  AttachedWithoutRoom = 5,
  NotAttachedWithRoom = 6,
};

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
  // Fill /dev/shm to the last page.
  const std::string filler = "/dev/shm/baton-test-filler";
  const int fd = ::open(filler.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return SetupFailed;
  std::uint64_t filled = 0;
  while (::posix_fallocate(fd, static_cast<off_t>(filled), 4096) == 0) filled += 4096;
  ::close(fd);
  if (filled == 0) return NeverFull;

  SubscriberOptions so;
  so.depth = RING;
  auto late = SubscriberPort::create(topic, so);
  if (!late || (*late)->slot() != 3) return SetupFailed;
  if (!publish_one(**pub, 2)) return SetupFailed;
  // No room for its queue: it stays unattached, and neither it nor the publisher faults.
  if ((*late)->take()) return AttachedWithoutRoom;
  ::unlink(filler.c_str());
  // Room again: the next look attaches, and what is published from then on arrives.
  (void)(*late)->take();
  if (!publish_one(**pub, 3)) return SetupFailed;
  auto m = (*late)->take();
  if (!m || m->size() != 64 || m->data()[0] != std::byte{3}) return NotAttachedWithRoom;
  return Passed;
}

TEST(ReturnQueueCommitTest,
     a_reader_attaching_on_a_full_dev_shm_waits_unattached_until_there_is_room) {
  const std::string name = testing::unique_name("fullqueue");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return attach_on_a_full_dev_shm(name); },
      "3: setup failed, 4: /dev/shm never filled, 5: took a message with no room for its queue, "
      "6: did not attach once there was room");
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

enum SlotOutcome : int {
  SlotPassed = 0,
  SlotSetupFailed = 3,
  SlotNeverFull = 4,
  SlotWrongError = 5,
  SlotNotClaimedWithRoom = 6,
};

int claim_on_a_full_dev_shm(const std::string& name) {
  auto topic = make_topic(name);
  if (!topic) return SlotSetupFailed;
  const std::string filler = "/dev/shm/baton-test-filler";
  const int fd = ::open(filler.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return SlotSetupFailed;
  std::uint64_t filled = 0;
  while (::posix_fallocate(fd, static_cast<off_t>(filled), 4096) == 0) filled += 4096;
  ::close(fd);
  if (filled == 0) return SlotNeverFull;
  // No page for the first subscriber slot (the header's page holds no subscriber slot).
  auto refused = SubscriberPort::create(topic, SubscriberOptions{});
  if (refused || refused.error().code != SubscriberCreateError::SegmentFailure ||
      refused.error().detail.find("/dev/shm") == std::string::npos) {
    return SlotWrongError;
  }
  if (topic->subscriber_slot_limit() != 0) return SlotWrongError;
  ::unlink(filler.c_str());
  auto sub = SubscriberPort::create(topic, SubscriberOptions{});
  if (!sub || (*sub)->slot() != 0) return SlotNotClaimedWithRoom;
  return SlotPassed;
}

TEST(TopicSlotCommitTest,
     a_claim_on_a_full_dev_shm_is_a_clear_error_and_succeeds_once_there_is_room) {
  const std::string name = testing::unique_name("fullslot");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return claim_on_a_full_dev_shm(name); },
      "3: setup failed, 4: /dev/shm never filled, 5: not a SegmentFailure naming /dev/shm, 6: "
      "no slot once there was room");
}

}  // namespace
}  // namespace baton::topic
