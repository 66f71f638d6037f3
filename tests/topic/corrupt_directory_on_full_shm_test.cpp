// A topic directory whose slot limits and active masks a peer corrupted upward, on a full
// /dev/shm. The slots past the header's page were never claimed, so their pages are holes in the
// directory file, and a read of a hole where /dev/shm is full raises SIGBUS. Every scan must stop
// before them (readable_slots.hpp) and the stream must go on: shared memory is never trusted.
#include <cstring>
#include <memory>

#include "baton/shm/naming.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "private_dev_shm.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

// Exit codes of the child on its private /dev/shm.
enum Outcome : int {
  Passed = 0,
  SetupFailed = 3,
  NeverFull = 4,
  LimitNotCut = 5,   // a slot limit past the readable slots was not cut to them
  ScanWrong = 6,     // a scan counted or reclaimed what it should not have
  MessageLost = 7,   // the stream stopped
  ClaimNotSeen = 8,  // the closer's scan missed the live claims
};
constexpr const char* OUTCOMES =
    "3: setup failed, 4: /dev/shm never filled, 5: a corrupted limit was not cut, 6: a scan "
    "counted or reclaimed what it should not, 7: the stream lost its message, 8: the closer's "
    "scan missed the live claims";

bool publish(PublisherPort& pub, ChunkLoan& loan, std::uint8_t value) {
  std::memset(loan.data, value, 64);
  return static_cast<bool>(pub.publish(loan, 64));
}

bool took(SubscriberPort& sub, std::uint8_t value) {
  auto m = sub.take();
  return m && m->size() == 64 && static_cast<std::uint8_t>(m->data()[63]) == value;
}

int scans_stop_before_the_holes(const std::string& name) {
  auto opened = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
  if (!opened) return SetupFailed;
  std::shared_ptr<Topic> topic = *opened;
  auto pub = PublisherPort::create(topic, {});
  auto sub = SubscriberPort::create(topic, {});
  if (!pub || !sub) return SetupFailed;
  // The subscriber attached (its return queue committed) and both hold chunks while there is
  // room; the second loan is committed too, to be published once /dev/shm is full.
  auto first = (*pub)->loan(64);
  if (!first || !publish(**pub, *first, 1) || !took(**sub, 1)) return SetupFailed;
  auto second = (*pub)->loan(64);
  if (!second) return SetupFailed;

  // The corrupting peer: limits at the slot counts, every slot past the header's page marked
  // active (real ones are raised and set only once a claimer committed the slot's page).
  TopicHeader* h = topic->header();
  h->pub_slot_limit.store(MAX_PUBLISHERS);
  h->sub_slot_limit.store(MAX_SUBSCRIBERS);
  for (std::uint32_t p = TopicSegmentLayout::head_publisher_slots; p < MAX_PUBLISHERS; ++p)
    h->active_pubs[pub_mask_word(p)].fetch_or(pub_mask_bit(p));
  for (std::uint32_t k = TopicSegmentLayout::head_subscriber_slots; k < MAX_SUBSCRIBERS; ++k)
    h->active_subs[sub_mask_word(k)].fetch_or(sub_mask_bit(k));
  h->epoch.fetch_add(1);  // makes the subscriber look at the masks again
  if (!testing::fill_dev_shm()) return NeverFull;

  if (topic->publisher_slot_limit() != TopicSegmentLayout::head_publisher_slots ||
      topic->subscriber_slot_limit() != TopicSegmentLayout::head_subscriber_slots) {
    return LimitNotCut;
  }
  if (topic->reclaim_dead() != 0 || topic->subscriber_count() != 1) return ScanWrong;
  if (!publish(**pub, *second, 2) || !took(**sub, 2)) return MessageLost;
  auto directory = shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 0);
  if (!directory || !topic_has_live_claim(*directory)) return ClaimNotSeen;
  // Leaving scans too (a departing publisher looks at every active subscriber, the last one
  // out closes the directory): still on the full /dev/shm.
  sub->reset();
  pub->reset();
  topic.reset();
  testing::unfill_dev_shm();
  return Passed;
}

TEST(CorruptDirectoryOnFullShmTest, scans_stop_before_slot_pages_never_committed) {
  const std::string name = testing::unique_name("corruptlimit");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return scans_stop_before_the_holes(name); }, OUTCOMES);
}

}  // namespace
}  // namespace baton::topic
