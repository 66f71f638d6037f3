// What a subscriber process has mapped of a publisher's first data segment, read from
// /proc/self/pagemap (whose "present" bit is this process's page table: mincore would only say the
// tmpfs page exists, which the publisher's commit already made true). Shared by the cold-start
// tests of the topic layer (SubscriberPort::wait) and the API (WaitSet).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "baton/memory/chunk_pool.hpp"
#include "baton/memory/pool_view.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "baton/topic/topic.hpp"

namespace baton::testing {

// Start address of this process's mapping of /dev/shm file `segment` (a shm name, "/..."), or 0.
inline std::uintptr_t mapping_of(const std::string& segment) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.size() < segment.size() ||
        line.compare(line.size() - segment.size(), segment.size(), segment) != 0) {
      continue;
    }
    return static_cast<std::uintptr_t>(std::stoull(line.substr(0, line.find('-')), nullptr, 16));
  }
  return 0;
}

// Whether the page holding `address` is present in this process's page table.
inline bool present(std::uintptr_t address) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::uint64_t entry = 0;
  const auto n = ::pread(fd, &entry, sizeof(entry), (address / 4096) * sizeof(entry));
  ::close(fd);
  return n == sizeof(entry) && (entry >> 63) != 0;
}

// A one-byte message channel between a test and its child process.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fd), 0); }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void put(char c) const { EXPECT_EQ(::write(fd[1], &c, 1), 1); }
  char get() const {
    char c = 0;
    return ::read(fd[0], &c, 1) == 1 ? c : 0;
  }
};

struct Seen {
  std::uint32_t committed = 0;  // chunks the publisher has committed (reserve() commits one)
  std::uint32_t first_pages = 0, controls = 0, deeper_pages = 0, uncommitted_pages = 0;
};

// Which pages of publisher slot 0's first data segment this process has mapped.
inline Seen pages_mapped(const topic::Topic& topic, std::uint32_t chunks,
                         std::uint64_t chunk_bytes) {
  const std::uint32_t gen = topic.publisher_slot(0)->generation.load();
  const std::uintptr_t base = mapping_of(memory::data_segment_name(topic.pool_name(0, gen), 0));
  EXPECT_NE(base, 0u) << "the subscriber has not mapped the data segment";
  Seen s;
  if (base == 0) return s;
  const auto* h =
      reinterpret_cast<const memory::DataSegmentHeader*>(base + memory::DATA_HEADER_OFFSET);
  EXPECT_EQ(h->chunk_count, chunks);
  s.committed = static_cast<std::uint32_t>(h->committed_chunks.load());
  for (std::uint32_t i = 0; i < h->chunk_count; ++i) {
    const std::uintptr_t chunk = base + h->data_offset + i * h->chunk_stride;
    if (i >= s.committed) {
      s.uncommitted_pages += present(chunk);
      continue;
    }
    s.controls += present(base + h->control_offset + i * sizeof(memory::ChunkControl));
    s.first_pages += present(chunk);
    s.deeper_pages += present(chunk + chunk_bytes / 2);
  }
  return s;
}

// A gtest parameter name for each wait mode (the cold-start tests run in all three).
inline std::string wait_mode_name(topic::WaitMode mode) {
  switch (mode) {
    case topic::WaitMode::Blocking:
      return "blocking";
    case topic::WaitMode::BusyPoll:
      return "busy_poll";
    case topic::WaitMode::Adaptive:
      return "adaptive";
  }
  return "unknown";
}

// After a reserve() and an idle wait: every committed chunk's control words and first page are
// mapped here (reserve() commits RESERVE_WARM_CHUNKS of a large class), nothing deeper and nothing
// of chunks not committed yet (their pages are not in /dev/shm).
inline void expect_reserved_chunks_premapped(const Seen& s) {
  EXPECT_EQ(s.committed, memory::ChunkPool::RESERVE_WARM_CHUNKS);
  EXPECT_EQ(s.controls, s.committed);
  EXPECT_EQ(s.first_pages, s.committed);
  EXPECT_EQ(s.deeper_pages, 0u) << "only the first page of a chunk is pre-mapped (memory cost)";
  EXPECT_EQ(s.uncommitted_pages, 0u) << "pre-mapped a chunk that is not committed";
}

}  // namespace baton::testing
