// HostRegistrations with a recording fake driver: which ranges get page-locked for copies from
// shared memory, reuse, merging, the cap, the pageable fallback and unmapping. Runs everywhere
// (no GPU); tests/accel/cuda_pinned_copy_test.cpp checks the same with the real driver.
#include "baton/memory/domain/detail/host_registrations.hpp"

#include <unistd.h>

#include <map>
#include <memory>
#include <vector>

#include "baton/shm/naming.hpp"
#include "test_util.hpp"

namespace baton::memory::domain::detail {
namespace {

struct FakeDriver {
  std::map<std::uintptr_t, std::uint64_t> locked;
  int locks = 0;
  std::string refuse;  // returned by lock() when set
  HostRegistrations::Driver driver() {
    return {[this](std::uintptr_t b, std::uint64_t n) {
              if (!refuse.empty()) return refuse;
              ++locks;
              locked[b] = n;
              return std::string();
            },
            [this](std::uintptr_t b, std::uint64_t) { locked.erase(b); }};
  }
};

const std::uint64_t PAGE = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));

shm::Segment segment(std::uint64_t pages) {
  auto s = shm::Segment::create(shm::segment_name("test", testing::unique_name("pin")),
                                pages * PAGE, shm::SegmentKind::Test);
  EXPECT_TRUE(s) << s.error().detail;
  s->unlink();  // the mapping is what matters
  return std::move(*s);
}

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

class HostRegistrationsTest : public ::testing::Test {
 protected:
  FakeDriver fake;
  std::unique_ptr<HostRegistrations> sut =
      std::make_unique<HostRegistrations>(fake.driver(), "test:0", 64 * PAGE);
  int copies = 0;
  void copy(const void* p, std::uint64_t n) {
    sut->copy(p, n, [&] { ++copies; });
  }
};

TEST_F(HostRegistrationsTest, second_copy_of_a_chunk_reuses_its_page_widened_registration) {
  shm::Segment seg = segment(16);
  copy(seg.base() + PAGE + 100, 2 * PAGE);  // pages 1..3
  copy(seg.base() + PAGE + 100, 2 * PAGE);
  EXPECT_EQ(copies, 2);
  EXPECT_EQ(fake.locks, 1);
  ASSERT_EQ(fake.locked.size(), 1u);
  EXPECT_EQ(fake.locked.begin()->first, addr(seg.base() + PAGE));
  EXPECT_EQ(fake.locked.begin()->second, 3 * PAGE);
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.registrations, 1u);
  EXPECT_EQ(s.reused, 1u);
  EXPECT_EQ(s.bytes, 3 * PAGE);
  EXPECT_EQ(s.fallbacks, 0u);
}

TEST_F(HostRegistrationsTest, memory_outside_segments_is_copied_unregistered) {
  std::vector<std::byte> heap(4 * PAGE);
  copy(heap.data(), heap.size());
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(fake.locks, 0);
  EXPECT_EQ(sut->stats().fallbacks, 0u);  // not shared memory: nothing to fall back from
}

TEST_F(HostRegistrationsTest, copy_past_the_end_of_a_segment_is_not_registered) {
  shm::Segment seg = segment(4);
  copy(seg.base() + 2 * PAGE, 4 * PAGE);
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(fake.locks, 0);
}

TEST_F(HostRegistrationsTest, longer_copy_of_a_chunk_replaces_the_overlapped_range_by_the_union) {
  shm::Segment seg = segment(16);
  copy(seg.base() + 4 * PAGE, 2 * PAGE);  // pages 4..5
  copy(seg.base() + 2 * PAGE, 8 * PAGE);  // pages 2..9
  copy(seg.base() + 5 * PAGE, PAGE);      // inside the union
  ASSERT_EQ(fake.locked.size(), 1u);
  EXPECT_EQ(fake.locked.begin()->first, addr(seg.base() + 2 * PAGE));
  EXPECT_EQ(fake.locked.begin()->second, 8 * PAGE);
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.registrations, 2u);
  EXPECT_EQ(s.unregistrations, 1u);
  EXPECT_EQ(s.reused, 1u);
  EXPECT_EQ(s.bytes, 8 * PAGE);
}

TEST_F(HostRegistrationsTest, copies_past_the_cap_run_pageable_and_are_counted) {
  sut->set_cap(4 * PAGE);
  shm::Segment seg = segment(16);
  copy(seg.base(), 3 * PAGE);
  copy(seg.base() + 8 * PAGE, 2 * PAGE);  // 5 pages in all: over the cap
  copy(seg.base() + 8 * PAGE, 2 * PAGE);
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(fake.locks, 1);
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.bytes, 3 * PAGE);
  EXPECT_EQ(s.fallbacks, 2u);
  EXPECT_NE(s.first_fallback.find("cap"), std::string::npos) << s.first_fallback;
}

TEST_F(HostRegistrationsTest, driver_refusal_falls_back_to_a_pageable_copy) {
  fake.refuse = "cuMemHostRegister: out of memory";
  shm::Segment seg = segment(4);
  copy(seg.base(), PAGE);
  EXPECT_EQ(copies, 1);
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.registrations, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.fallbacks, 1u);
  EXPECT_EQ(s.first_fallback, fake.refuse);
}

TEST_F(HostRegistrationsTest, unmapping_a_segment_unregisters_its_ranges_first) {
  shm::Segment keep = segment(4);
  copy(keep.base(), PAGE);
  {
    shm::Segment gone = segment(8);
    copy(gone.base(), 2 * PAGE);
    copy(gone.base() + 4 * PAGE, 2 * PAGE);
    EXPECT_EQ(fake.locked.size(), 3u);
  }
  ASSERT_EQ(fake.locked.size(), 1u);
  EXPECT_EQ(fake.locked.begin()->first, addr(keep.base()));
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.unregistrations, 2u);
  EXPECT_EQ(s.bytes, PAGE);
}

TEST_F(HostRegistrationsTest, destroying_the_registry_unregisters_everything) {
  shm::Segment seg = segment(8);
  copy(seg.base(), PAGE);
  copy(seg.base() + 4 * PAGE, PAGE);
  sut.reset();
  EXPECT_TRUE(fake.locked.empty());
}

TEST_F(HostRegistrationsTest, views_ignore_the_cap_and_are_never_merged_away) {
  sut->set_cap(0);
  shm::Segment seg = segment(8);
  EXPECT_EQ(sut->view(seg.base() + PAGE, PAGE), "");
  copy(seg.base() + PAGE, 10);  // inside the view: reused
  copy(seg.base(), 4 * PAGE);   // overlaps the view partly: pageable, the view stays
  EXPECT_EQ(copies, 2);
  ASSERT_EQ(fake.locked.size(), 1u);
  EXPECT_EQ(fake.locked.begin()->first, addr(seg.base() + PAGE));
  const RegistrationStats s = sut->stats();
  EXPECT_EQ(s.reused, 1u);
  EXPECT_EQ(s.fallbacks, 1u);
  EXPECT_NE(s.first_fallback.find("view"), std::string::npos) << s.first_fallback;
}

}  // namespace
}  // namespace baton::memory::domain::detail
