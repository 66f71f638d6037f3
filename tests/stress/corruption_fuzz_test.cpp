// Seeded random-corruption fuzzing of everything baton reads from shared memory.
//
// 1. The segment-open path: images of real topic, publisher and data segments are corrupted
//    (bit flips, random bytes and u64s, interesting values in header/geometry fields, wrong file
//    sizes) and written back under their real names; then Segment::open, validate_topic_segment,
//    validate_data_segment, Topic::open_or_create, the subscriber's publisher-segment validation
//    (connect) and take() run on them.
// 2. The row-read path: a live publisher and subscriber while rows, tail, chunk controls, data
//    segment headers, return queues and subscriber slots are corrupted under them; take(),
//    has_data(), release, publish, collect_returns() and reclaim_dead() run on the result.
//
// Nothing may crash, hang or read outside a mapping (every returned sample must lie inside its
// data segment); every refusal must come with a non-empty reason. Run under ASan+UBSan by
// scripts/sanitize.sh. BATON_FUZZ_SEED / BATON_FUZZ_CASES override the seed and case counts.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "baton/memory/pool_view.hpp"
#include "baton/shm/naming.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

using namespace std::chrono_literals;
using memory::ChunkControl;
using memory::DataSegmentHeader;
using shm::Segment;
using shm::SegmentHeader;
using shm::SegmentKind;
using topic::PublisherHeader;
using topic::PublisherSegmentLayout;
using topic::Row;
using Rng = std::mt19937_64;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

// Hang watchdog: the case being run is printed if the test stops making progress.
volatile std::uint64_t g_case = 0;
volatile int g_phase = 0;
void on_alarm(int) {
  char buf[128];
  const int n = std::snprintf(buf, sizeof(buf), "FUZZ HANG: phase %d case %llu did not finish\n",
                              g_phase, static_cast<unsigned long long>(g_case));
  (void)!::write(2, buf, static_cast<std::size_t>(n));
  std::_Exit(70);
}
struct Watchdog {
  explicit Watchdog(unsigned seconds) {
    ::signal(SIGALRM, on_alarm);
    ::alarm(seconds);
  }
  ~Watchdog() { ::alarm(0); }
};

// A field worth aiming at: offset and width in a segment image.
struct Field {
  std::uint64_t offset;
  std::uint32_t width;
};

std::uint64_t interesting(Rng& rng, std::uint64_t size) {
  static const std::uint64_t values[] = {0,          1,           2,          63,
                                         64,         4096,        0xFFFF,     0x10000,
                                         0x10001,    0x7FFFFFFF,  0xFFFFFFFF, 0x100000000ull,
                                         1ull << 24, 1ull << 40,  1ull << 63, ~0ull,
                                         ~0ull - 1,  0xFF000000u, 0x00FFFFFFu};
  switch (rng() % 4) {
    case 0:
      return size + (rng() % 3) - 1;
    case 1:
      return rng();
    default:
      return values[rng() % std::size(values)];
  }
}

void write_field(std::byte* base, const Field& f, std::uint64_t v) {
  std::memcpy(base + f.offset, &v, f.width);  // little endian: low bytes
}

// Applies 1..6 random corruptions to `img` (only the first `len` bytes).
void mutate(std::byte* img, std::uint64_t len, const std::vector<Field>& hot, Rng& rng) {
  const int n = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) {
    switch (rng() % 6) {
      case 0:
        img[rng() % len] ^= std::byte(1u << (rng() % 8));
        break;
      case 1:
        img[rng() % len] = std::byte(rng() & 0xFF);
        break;
      case 2:
        if (len >= 8) write_field(img, {(rng() % (len / 8)) * 8, 8}, rng());
        break;
      case 3:
        if (len >= 8) write_field(img, {(rng() % (len / 8)) * 8, 8}, interesting(rng, len));
        break;
      default: {
        const Field& f = hot[rng() % hot.size()];
        if (f.offset + f.width <= len) write_field(img, f, interesting(rng, len));
      }
    }
  }
}

std::vector<Field> header_fields(bool with_ready) {
  std::vector<Field> f = {{0, 8}, {8, 2}, {10, 2}, {12, 4}, {16, 8}, {24, 4}, {32, 8}};
  if (with_ready) f.push_back({28, 4});
  return f;
}

std::vector<std::byte> read_image(const std::string& name) {
  int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  std::vector<std::byte> out;
  if (fd < 0) return out;
  out.resize(static_cast<std::size_t>(::lseek(fd, 0, SEEK_END)));
  (void)!::pread(fd, out.data(), out.size(), 0);
  ::close(fd);
  return out;
}

// Replaces segment `name` by `len` bytes of `img` (a new file: no mapping caches it).
void write_image(const std::string& name, const std::byte* img, std::uint64_t len,
                 std::uint64_t file_size) {
  ::shm_unlink(name.c_str());
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0) << name;
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(file_size)), 0);
  ASSERT_EQ(::pwrite(fd, img, std::min(len, file_size), 0),
            static_cast<ssize_t>(std::min(len, file_size)));
  ::close(fd);
}

// The byte ranges of the mapped data segments of `pool`, to bounds-check samples. Ranges are
// remembered per pool: a corrupt header can make a segment unopenable later while its mapping
// (kept by the owner) is still what samples point into.
bool inside_pool(const std::string& pool, const std::byte* p, std::uint64_t size) {
  static std::map<std::string, std::map<std::uint32_t, std::pair<const std::byte*, std::uint64_t>>>
      known;
  auto& ranges = known[pool];
  for (std::uint32_t i = 0; i < memory::MAX_DATA_SEGMENTS; ++i) {
    // The current mapping if the segment still opens (it may have been replaced), else the one
    // remembered from before its header was corrupted.
    auto seg = Segment::open_shared(memory::data_segment_name(pool, i), SegmentKind::Data, 0);
    if (seg) {
      ranges[i] = {(*seg)->base(), (*seg)->size()};
    } else if (seg.error().code == shm::SegmentOpenError::DoesNotExist) {
      break;
    }
    auto it = ranges.find(i);
    if (it == ranges.end()) continue;
    const auto [b, n] = it->second;
    if (p >= b && size <= n && static_cast<std::uint64_t>(p - b) <= n - size) return true;
  }
  return false;
}

struct Tally {
  std::map<std::string, std::uint64_t> outcomes;
  std::uint64_t cases = 0;
  std::uint64_t samples = 0;
  std::uint64_t unclear = 0;  // refusals without a reason
  std::uint64_t out_of_bounds = 0;
  double slowest_ms = 0;
  void add(const std::string& what) { ++outcomes[what]; }
  void print(const char* title) const {
    std::printf("[fuzz] %s: %llu cases, %llu samples taken, slowest case %.1f ms\n", title,
                static_cast<unsigned long long>(cases), static_cast<unsigned long long>(samples),
                slowest_ms);
    for (auto& [k, v] : outcomes) {
      std::printf("[fuzz]   %-58s %llu\n", k.c_str(), static_cast<unsigned long long>(v));
    }
  }
};

// Takes up to four samples, bounds-checking each against the pool's data segments.
void take_some(topic::SubscriberPort& sub, const std::string& pool, Tally& t) {
  std::vector<topic::TakenSample> held;
  for (int i = 0; i < 4; ++i) {
    auto m = sub.take();
    if (!m) {
      t.add(std::string("take: ") + std::string(topic::to_string(m.error())));
      break;
    }
    ++t.samples;
    if (!inside_pool(pool, m->data(), m->size())) ++t.out_of_bounds;
    volatile std::byte sink{};
    if (m->size() > 0) sink = m->data()[m->size() - 1];  // touch the last byte
    (void)sink;
    held.push_back(std::move(*m));
  }
  (void)sub.has_data();
}

class CorruptionFuzzTest : public ::testing::Test {
 protected:
  ScopedNamespace ns_{"fuzz"};
  std::uint64_t seed_ = env_u64("BATON_FUZZ_SEED", 424242);
};

TEST_F(CorruptionFuzzTest, open_of_randomly_corrupted_segments_never_crashes_and_explains) {
  const std::uint64_t cases = env_u64("BATON_FUZZ_CASES", 100'000);
  Rng rng(seed_);
  const auto type = topic::TypeInfo::from_name("fuzz/msg/Bytes");
  const std::string tname = "/fuzz/open";
  auto topic = topic::Topic::open_or_create(tname, type);
  ASSERT_TRUE(topic);
  // Real images: a topic with a publisher (3 messages published) and a subscriber attached.
  std::vector<std::byte> topic_img, pub_img, data_img;
  std::uint32_t pub_slot = 0, gen = 0;
  {
    topic::PublisherOptions po;
    po.depth = 4;
    po.reliability = topic::Reliability::BestEffort;
    po.durability = topic::Durability::TransientLocal;  // late subscribers read the rows
    auto pub = topic::PublisherPort::create(*topic, po);
    auto sub = topic::SubscriberPort::create(*topic, {});
    ASSERT_TRUE(pub && sub);
    for (int i = 0; i < 3; ++i) {
      auto loan = (*pub)->loan(100);
      ASSERT_TRUE(loan);
      std::memset(loan->data, 'a' + i, 100);
      ASSERT_TRUE((*pub)->publish(*loan, 100));
    }
    pub_slot = (*pub)->slot();
    gen = (*topic)->publisher_slot(pub_slot)->generation.load();
    topic_img = read_image(shm::segment_name("t", tname));
    pub_img = read_image((*topic)->publisher_segment_name(pub_slot, gen));
    data_img = read_image(memory::data_segment_name((*topic)->pool_name(pub_slot, gen), 0));
  }
  ASSERT_FALSE(topic_img.empty() || pub_img.empty() || data_img.empty());
  // Keep a fake live publisher in that slot so subscribers connect to the images we write.
  auto* ps = (*topic)->publisher_slot(pub_slot);
  ps->generation.store(gen);
  ps->state.store(topic::slot_word(topic::SlotState::Active, static_cast<std::uint32_t>(getpid())));
  (*topic)->header()->active_pubs[topic::pub_mask_word(pub_slot)].fetch_or(
      topic::pub_mask_bit(pub_slot));
  const std::string pub_name = (*topic)->publisher_segment_name(pub_slot, gen);
  const std::string pool = (*topic)->pool_name(pub_slot, gen);
  const std::string data_name = memory::data_segment_name(pool, 0);

  std::vector<Field> topic_hot = header_fields(true);
  // ... and the slot limits (TopicHeader::pub_slot_limit / sub_slot_limit, clamped when read).
  for (std::uint64_t o :
       {64ull, 96ull, 127ull + 64, 160ull + 64, 164ull + 64, 272ull + 64, 276ull + 64})
    topic_hot.push_back({o, 4});
  for (std::uint32_t p = 0; p < 2; ++p) {
    const std::uint64_t at = topic::TopicSegmentLayout::slot_offset<topic::PublisherSlot>(p);
    topic_hot.insert(topic_hot.end(),
                     {{at, 8}, {at + 8, 8}, {at + 16, 4}, {at + 20, 4}, {at + 24, 1}});
  }
  std::vector<Field> pub_hot = header_fields(false);
  const std::uint64_t ph = PublisherSegmentLayout::header_offset;
  // ... and committed_queues' first word (ph + 32): a publisher takes a set bit only through a
  // checked commit of the queue's pages.
  pub_hot.insert(pub_hot.end(), {{ph, 4},
                                 {ph + 4, 4},
                                 {ph + 8, 8},
                                 {ph + 16, 8},
                                 {ph + 24, 4},
                                 {ph + 32, 8},
                                 {ph + 64, 8},
                                 {ph + 136, 8}});
  for (std::uint64_t r = 0; r < 4; ++r) {
    pub_hot.push_back({PublisherSegmentLayout::rows_offset + r * 16, 8});
    pub_hot.push_back({PublisherSegmentLayout::rows_offset + r * 16 + 8, 4});
  }
  std::vector<Field> data_hot = header_fields(false);
  const std::uint64_t dh = memory::DATA_HEADER_OFFSET;
  data_hot.insert(data_hot.end(),
                  {{dh, 8}, {dh + 8, 8}, {dh + 16, 8}, {dh + 24, 8}, {dh + 32, 4}, {dh + 36, 4}});
  for (std::uint64_t c = 0; c < 4; ++c) {
    const std::uint64_t at = 128 + c * sizeof(ChunkControl);
    data_hot.insert(data_hot.end(), {{at, 8}, {at + 8, 8}, {at + 16, 8}, {at + 32, 8}});
  }

  Tally tally;
  double target_ms[3] = {0, 0, 0};
  Watchdog dog(600);
  g_phase = 1;
  std::vector<std::byte> img;
  bool pub_dirty = true, data_dirty = true;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < cases; ++i) {
    g_case = i;
    const auto case_start = std::chrono::steady_clock::now();
    const int target = static_cast<int>(rng() % 3);  // 0 topic, 1 publisher, 2 data
    const auto& tmpl = target == 0 ? topic_img : target == 1 ? pub_img : data_img;
    img = tmpl;
    mutate(img.data(), img.size(), target == 0 ? topic_hot : target == 1 ? pub_hot : data_hot, rng);
    std::uint64_t file_size = img.size();
    if (rng() % 10 == 0) file_size = rng() % 3 == 0 ? rng() % 256 : rng() % (2 * img.size() + 1);
    const std::string& name = target == 0   ? shm::segment_name("t", tname)
                              : target == 1 ? pub_name
                                            : data_name;
    const SegmentKind kind = target == 0   ? SegmentKind::Topic
                             : target == 1 ? SegmentKind::Publisher
                                           : SegmentKind::Data;
    // The other two segments stay pristine for this case (rewritten only if corrupted before).
    if (target != 1 && pub_dirty)
      write_image(pub_name, pub_img.data(), pub_img.size(), pub_img.size());
    if (target != 2 && data_dirty)
      write_image(data_name, data_img.data(), data_img.size(), data_img.size());
    pub_dirty = target == 1;
    data_dirty = target == 2;
    write_image(name, img.data(), img.size(), file_size);
    // Only a segment whose creator finished can be used; open() would wait for the others.
    std::uint32_t ready_word = 0;
    if (file_size >= sizeof(SegmentHeader)) std::memcpy(&ready_word, img.data() + 28, 4);
    const bool ready_ok = ready_word == shm::SEGMENT_READY;

    auto opened = Segment::open(name, kind, 0);
    if (!opened) {
      tally.add("Segment::open refused: " + std::string(shm::to_string(opened.error().code)));
      if (opened.error().detail.find(name) == std::string::npos) ++tally.unclear;
    } else {
      std::string why;
      if (target == 0) why = topic::validate_topic_segment(*opened);
      if (target == 2) why = memory::validate_data_segment(*opened, 0);
      // Group refusals by reason (the text up to the first number it quotes).
      tally.add(why.empty()
                    ? "segment accepted"
                    : "validate refused: " + why.substr(0, why.find_first_of("0123456789")));
    }
    if (target == 0 && ready_ok) {
      // The directory as a whole: open_or_create decides, then a subscriber works on it.
      auto t = topic::Topic::open_or_create(tname, type);
      if (!t) {
        tally.add("Topic::open_or_create refused: " +
                  std::string(topic::to_string(t.error().code)));
        if (t.error().detail.empty()) ++tally.unclear;
      } else {
        topic::SubscriberOptions so;
        so.durability = topic::Durability::TransientLocal;
        auto s = topic::SubscriberPort::create(*t, so);
        if (s) {
          take_some(**s, pool, tally);
        } else {
          tally.add("subscriber refused: " + std::string(topic::to_string(s.error().code)));
          if (s.error().detail.empty()) ++tally.unclear;
        }
      }
    }
    if (target == 0) {
      // Put the pristine directory back (with our fake publisher) for the next case.
      write_image(shm::segment_name("t", tname), topic_img.data(), topic_img.size(),
                  topic_img.size());
      topic = topic::Topic::open_or_create(tname, type);
      ASSERT_TRUE(topic) << topic.error().detail;
      auto* slot = (*topic)->publisher_slot(pub_slot);
      slot->generation.store(gen);
      slot->state.store(
          topic::slot_word(topic::SlotState::Active, static_cast<std::uint32_t>(getpid())));
      for (std::uint32_t k = 0; k < topic::MAX_SUBSCRIBERS; ++k) {  // drop the template's sub
        auto* ss = (*topic)->subscriber_slot(k);
        if (topic::slot_state(ss->state.load()) != topic::SlotState::Free) {
          (*topic)->release_subscriber(k);
        }
      }
    } else if (ready_ok) {
      // The subscriber's connect() validates the publisher segment, take() reads its rows and
      // resolves chunks in the (possibly corrupt) data segment.
      topic::SubscriberOptions so;
      so.durability = topic::Durability::TransientLocal;
      auto s = topic::SubscriberPort::create(*topic, so);
      ASSERT_TRUE(s);
      take_some(**s, pool, tally);
    }
    ++tally.cases;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start)
            .count();
    tally.slowest_ms = std::max(tally.slowest_ms, ms);
    target_ms[target] += ms;
  }
  std::printf("[fuzz] time per target: topic %.0f ms, publisher %.0f ms, data %.0f ms\n",
              target_ms[0], target_ms[1], target_ms[2]);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tally.print("segment-open path");
  std::printf(
      "[fuzz] segment-open path: seed %llu, %.1f s, unclear refusals %llu, samples out "
      "of bounds %llu\n",
      static_cast<unsigned long long>(seed_), secs, static_cast<unsigned long long>(tally.unclear),
      static_cast<unsigned long long>(tally.out_of_bounds));
  EXPECT_GE(tally.cases, cases);
  EXPECT_EQ(tally.unclear, 0u);
  EXPECT_EQ(tally.out_of_bounds, 0u);
}

TEST_F(CorruptionFuzzTest, take_and_publish_over_randomly_corrupted_rows_never_crash_or_hang) {
  const std::uint64_t cases = env_u64("BATON_FUZZ_CASES", 100'000);
  Rng rng(seed_ + 1);
  const auto type = topic::TypeInfo::from_name("fuzz/msg/Bytes");
  Tally tally;
  Watchdog dog(600);
  g_phase = 2;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t c = 0;
  const std::uint32_t dead_pid = 0x3FFFFFF0u;  // above pid_max: never alive
  for (std::uint64_t round = 0; c < cases; ++round) {
    auto topic = topic::Topic::open_or_create("/fuzz/rows/" + std::to_string(round), type);
    ASSERT_TRUE(topic);
    topic::PublisherOptions po;
    po.depth = 1 + static_cast<std::uint32_t>(rng() % 6);
    po.reliability = rng() % 2 ? topic::Reliability::Reliable : topic::Reliability::BestEffort;
    po.reliable_timeout = 0ns;
    auto pub = topic::PublisherPort::create(*topic, po);
    topic::SubscriberOptions so;
    so.depth = 1 + static_cast<std::uint32_t>(rng() % 8);
    so.reliability = rng() % 2 ? topic::Reliability::Reliable : topic::Reliability::BestEffort;
    auto sub = topic::SubscriberPort::create(*topic, so);
    ASSERT_TRUE(pub && sub);
    const std::uint32_t slot = (*pub)->slot();
    const std::uint32_t gen = (*topic)->publisher_slot(slot)->generation.load();
    const std::string pool = (*topic)->pool_name(slot, gen);
    auto pseg = Segment::open((*topic)->publisher_segment_name(slot, gen), SegmentKind::Publisher);
    ASSERT_TRUE(pseg);
    auto publish_some = [&](int n) {
      for (int i = 0; i < n; ++i) {
        auto loan = (*pub)->loan(1 + rng() % 600);
        if (!loan) {
          tally.add(std::string("loan: ") + std::string(topic::to_string(loan.error())));
          continue;
        }
        std::memset(loan->data, 0x5A, std::min<std::uint64_t>(loan->capacity, 16));
        auto r = (*pub)->publish(*loan, rng() % 3 == 0 ? rng() % (loan->capacity + 2) : 16);
        if (!r) {
          tally.add(std::string("publish: ") + std::string(topic::to_string(r.error())));
          (*pub)->discard(*loan);
        }
      }
    };
    publish_some(3);
    std::vector<topic::TakenSample> held;
    auto dseg = Segment::open_shared(memory::data_segment_name(pool, 0), SegmentKind::Data, 0);
    ASSERT_TRUE(dseg);
    (void)inside_pool(pool, nullptr, 0);  // remember segment 0 before anything corrupts it
    const std::uint64_t pub_len = PublisherSegmentLayout::total_size(po.depth);
    const std::uint64_t data_len = 128 + 64 * sizeof(ChunkControl);
    std::vector<std::byte> pub_snap(pub_len), data_snap(data_len),
        sub_snap(sizeof(topic::SubscriberSlot));
    // 64 cases per publisher. A quarter of the corruptions stay (they accumulate, as under a
    // hostile peer); the rest are undone after the readers ran, so later cases still see data.
    for (int k = 0; k < 64 && c < cases; ++k, ++c) {
      g_case = c;
      const auto case_start = std::chrono::steady_clock::now();
      std::byte* base = pseg->base();
      const std::uint32_t ring = po.depth;
      std::vector<Field> hot = {{64, 4}, {72, 8}, {80, 8}, {64 + 64, 8}, {64 + 136, 8}};
      for (std::uint32_t r = 0; r < ring; ++r) {
        hot.push_back({PublisherSegmentLayout::rows_offset + r * 16, 8});
        hot.push_back({PublisherSegmentLayout::rows_offset + r * 16 + 8, 4});
      }
      const std::uint64_t q =
          PublisherSegmentLayout::queues_offset(ring) + (*sub)->slot() * sizeof(topic::ReturnQueue);
      // head, tail, overflowed, cursor, cursor_generation, entries
      hot.insert(
          hot.end(),
          {{q, 4}, {q + 64, 4}, {q + 68, 4}, {q + 72, 8}, {q + 80, 4}, {q + 128, 4}, {q + 132, 4}});
      auto* my_slot = (*topic)->subscriber_slot((*sub)->slot());
      std::memcpy(pub_snap.data(), base, pub_len);
      std::memcpy(data_snap.data(), (*dseg)->base(), data_len);
      std::memcpy(sub_snap.data(), static_cast<void*>(my_slot), sub_snap.size());
      switch (rng() % 6) {
        case 5: {  // plausible lies: a row naming another chunk or a nearby sequence number
          Row* rows = pseg->at<Row>(PublisherSegmentLayout::rows_offset);
          Row& row = rows[rng() % ring];
          const std::uint64_t tail = pseg->at<PublisherHeader>(64)->tail.load();
          if (rng() % 2) {
            row.chunk.store(memory::make_chunk_ref(static_cast<std::uint32_t>(rng() % 2),
                                                   static_cast<std::uint32_t>(rng() % 70)));
          } else {
            row.seq.store(tail + (rng() % 5) - 2);
          }
          if (rng() % 3 == 0) pseg->at<PublisherHeader>(64)->tail.store(tail + rng() % 3);
          break;
        }
        case 0:
        case 1: {  // publisher segment: rows, tail, queues — everything except the header
          const std::uint64_t lo = PublisherSegmentLayout::header_offset;
          mutate(base + lo, PublisherSegmentLayout::queues_offset(ring) + 2 * 1152 - lo, hot, rng);
          // hot offsets are absolute: aim one directly as well
          const Field& f = hot[rng() % hot.size()];
          write_field(base, f, interesting(rng, 4096));
          break;
        }
        case 2: {  // data segment: header and chunk controls
          auto d = Segment::open_shared(memory::data_segment_name(pool, 0), SegmentKind::Data, 0);
          if (d) {
            std::vector<Field> dhot = {{64, 8}, {72, 8}, {80, 8}, {88, 8}, {96, 4}, {100, 4}};
            for (std::uint64_t i = 0; i < 8; ++i) {
              dhot.insert(dhot.end(), {{128 + i * 64, 8}, {136 + i * 64, 8}, {144 + i * 64, 8}});
            }
            const Field& f = dhot[rng() % dhot.size()];
            write_field((*d)->base(), f, interesting(rng, (*d)->size()));
          }
          break;
        }
        case 3: {  // what the publisher reads of a subscriber: its slot's depth and reliability
                   // and the topic's wake pair it sleeps on (its cursor is in the publisher
                   // segment's return queue, cases 0 and 1)
          if (rng() % 2 == 0) {
            auto* ss = (*topic)->subscriber_slot((*sub)->slot());
            std::byte* sb = reinterpret_cast<std::byte*>(ss);
            mutate(sb + 16, 128 - 16, {{20, 4}, {24, 1}}, rng);
          } else {
            std::byte* wake = reinterpret_cast<std::byte*>(&(*topic)->header()->wake_seq);
            mutate(wake, 64, {{0, 4}, {4, 4}}, rng);
          }
          break;
        }
        default: {  // a dead subscriber with garbage loan records for reclaim_dead()
          const std::uint32_t k =
              topic::MAX_SUBSCRIBERS - 1 - static_cast<std::uint32_t>(rng() % 4);
          auto* ss = (*topic)->subscriber_slot(k);
          if (topic::slot_state(ss->state.load()) == topic::SlotState::Free) {
            for (auto& h : ss->held) {
              h.store(rng() % 2
                          ? rng()
                          : topic::held_entry(slot, gen, static_cast<std::uint32_t>(rng() % 80)));
            }
            ss->state.store(topic::slot_word(topic::SlotState::Active, dead_pid));
            // As its claim would have: reclaim_dead() scans only below the slot limit (the
            // image was written whole, so the slot's page is committed).
            (*topic)->header()->sub_slot_limit.store(topic::MAX_SUBSCRIBERS);
          }
        }
      }
      // Readers and the publisher over the corrupt state.
      for (int t = 0; t < 3; ++t) {
        auto m = (*sub)->take();
        if (!m) {
          tally.add(std::string("take: ") + std::string(topic::to_string(m.error())));
          break;
        }
        ++tally.samples;
        if (!inside_pool(pool, m->data(), m->size())) {
          ++tally.out_of_bounds;
          std::printf("[fuzz] case %llu: sample of %llu bytes at %p outside the pool's segments\n",
                      static_cast<unsigned long long>(c),
                      static_cast<unsigned long long>(m->size()),
                      static_cast<const void*>(m->data()));
          if (std::getenv("BATON_FUZZ_DEBUG")) {
            char cmd[128];
            std::snprintf(cmd, sizeof(cmd), "grep -i baton /proc/%d/maps", getpid());
            (void)!std::system(cmd);
            for (std::uint32_t i = 0; i < 4; ++i) {
              auto seg =
                  Segment::open_shared(memory::data_segment_name(pool, i), SegmentKind::Data, 0);
              std::printf("  data %u: %s %p\n", i, seg ? "ok" : seg.error().detail.c_str(),
                          seg ? static_cast<void*>((*seg)->base()) : nullptr);
            }
          }
        }
        held.push_back(std::move(*m));
      }
      (void)(*sub)->has_data();
      (void)(*sub)->wait(0ns);
      (*pub)->collect_returns();
      if (rng() % 16 == 0) (*topic)->reclaim_dead();
      if (rng() % 4 != 0) {
        std::memcpy(base, pub_snap.data(), pub_len);
        std::memcpy((*dseg)->base(), data_snap.data(), data_len);
        // The slot's state word stays as it is now: a reclaim may have freed it meanwhile.
        std::memcpy(reinterpret_cast<std::byte*>(my_slot) + 16, sub_snap.data() + 16,
                    sub_snap.size() - 16);
      }
      while (held.size() > rng() % 5)
        held.erase(held.begin() + static_cast<long>(rng() % held.size()));
      publish_some(1 + static_cast<int>(rng() % 3));
      ++tally.cases;
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start)
              .count();
      tally.slowest_ms = std::max(tally.slowest_ms, ms);
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tally.print("row-read path");
  std::printf("[fuzz] row-read path: seed %llu, %.1f s, samples out of bounds %llu\n",
              static_cast<unsigned long long>(seed_ + 1), secs,
              static_cast<unsigned long long>(tally.out_of_bounds));
  EXPECT_GE(tally.cases, cases);
  EXPECT_EQ(tally.out_of_bounds, 0u);
}

}  // namespace
}  // namespace baton::stress
