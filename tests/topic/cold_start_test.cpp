// No cold start (issue 20): a subscriber in another process pre-maps a publisher's committed
// chunks — their control words and first payload page — when it attaches and while it waits, so
// its first take of each chunk takes no page fault (memory/pool_prefault.hpp). Checked through
// /proc/self/pagemap, whose "present" bit is this process's page table (mincore would only say
// the tmpfs page exists, which the publisher's commit already made true).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "baton/memory/pool_view.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;

const TypeInfo BYTES = TypeInfo::from_name("test/msg/Bytes");
constexpr std::uint64_t KiB = 1024;
// Pre-mapping a chunk's first page may bring in more than that page: 64 KiB around it
// (fault-around, as on a first touch), or the whole 2 MiB huge page holding it where the host
// backs shared memory with transparent huge pages (shmem_enabled). A page 2 MiB past the chunk's
// start is beyond both, so it stays unmapped on any host.
constexpr std::uint64_t kChunk = 4 * 1024 * KiB;
constexpr std::uint32_t kDepth = 8;
constexpr std::uint32_t kChunks = kDepth + 2;

// Start address of this process's mapping of /dev/shm file `segment` (a shm name, "/..."), or 0.
std::uintptr_t mapping_of(const std::string& segment) {
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
bool present(std::uintptr_t address) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::uint64_t entry = 0;
  const auto n = ::pread(fd, &entry, sizeof(entry), (address / 4096) * sizeof(entry));
  ::close(fd);
  return n == sizeof(entry) && (entry >> 63) != 0;
}

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

// A publisher in a child process: created, then (after 'r' on `go`, or at once if
// `reserve_at_once`) reserve(kChunk, kChunks); says 'p' when created and 'd' when reserved, exits
// on 'q'.
pid_t start_publisher(const std::string& name, const Pipe& to_child, const Pipe& from_child,
                      bool reserve_at_once) {
  const pid_t child = ::fork();
  if (child != 0) return child;
  auto t = Topic::open_or_create(name, BYTES);
  if (!t) std::_Exit(2);
  PublisherOptions o;
  o.depth = kDepth;
  auto pub = PublisherPort::create(*t, o);
  if (!pub) std::_Exit(3);
  from_child.put('p');
  if (!reserve_at_once && to_child.get() != 'r') std::_Exit(4);
  if (!(*pub)->reserve(kChunk, kChunks)) std::_Exit(5);
  from_child.put('d');
  if (to_child.get() != 'q') std::_Exit(6);
  std::_Exit(0);
}

struct Seen {
  std::uint32_t committed = 0;  // chunks the publisher has committed (reserve() commits one)
  std::uint32_t first_pages = 0, controls = 0, deeper_pages = 0, uncommitted_pages = 0;
};

// Which pages of publisher slot 0's first data segment this process has mapped.
Seen pages_mapped(const Topic& topic) {
  const std::uint32_t gen = topic.publisher_slot(0)->generation.load();
  const std::uintptr_t base = mapping_of(memory::data_segment_name(topic.pool_name(0, gen), 0));
  EXPECT_NE(base, 0u) << "the subscriber has not mapped the data segment";
  Seen s;
  if (base == 0) return s;
  const auto* h =
      reinterpret_cast<const memory::DataSegmentHeader*>(base + memory::DATA_HEADER_OFFSET);
  EXPECT_EQ(h->chunk_count, kChunks);
  s.committed = static_cast<std::uint32_t>(h->committed_chunks.load());
  for (std::uint32_t i = 0; i < h->chunk_count; ++i) {
    const std::uintptr_t chunk = base + h->data_offset + i * h->chunk_stride;
    if (i >= s.committed) {
      s.uncommitted_pages += present(chunk);
      continue;
    }
    s.controls += present(base + h->control_offset + i * sizeof(memory::ChunkControl));
    s.first_pages += present(chunk);
    s.deeper_pages += present(chunk + kChunk / 2);
  }
  return s;
}

// Every committed chunk's control words and first page are mapped here, nothing deeper and
// nothing of chunks the reservation has not committed yet (their pages are not in /dev/shm);
// then the child publisher is told to exit and must exit cleanly.
void expect_premapped_then_stop(const Topic& topic, pid_t child, const Pipe& to_child) {
  const Seen s = pages_mapped(topic);
  EXPECT_EQ(s.committed, memory::ChunkPool::RESERVE_WARM_CHUNKS);
  EXPECT_EQ(s.controls, s.committed);
  EXPECT_EQ(s.first_pages, s.committed);
  EXPECT_EQ(s.deeper_pages, 0u) << "only the first page of a chunk is pre-mapped (memory cost)";
  EXPECT_EQ(s.uncommitted_pages, 0u) << "pre-mapped a chunk that is not committed";
  to_child.put('q');
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(ColdStartTest, a_subscriber_attaching_to_a_reserved_publisher_premaps_its_chunks) {
  const auto name = testing::unique_name("cold");
  auto topic = Topic::open_or_create(name, BYTES);
  ASSERT_TRUE(topic);
  Pipe to_child, from_child;
  const pid_t child = start_publisher(name, to_child, from_child, true);
  ASSERT_EQ(from_child.get(), 'p');
  ASSERT_EQ(from_child.get(), 'd');
  SubscriberOptions so;
  so.depth = kDepth;
  auto sub = SubscriberPort::create(*topic, so);  // attaches: nothing taken yet
  ASSERT_TRUE(sub);
  expect_premapped_then_stop(**topic, child, to_child);
}

TEST(ColdStartTest, chunks_committed_after_attaching_are_premapped_while_the_subscriber_waits) {
  const auto name = testing::unique_name("cold");
  auto topic = Topic::open_or_create(name, BYTES);
  ASSERT_TRUE(topic);
  Pipe to_child, from_child;
  const pid_t child = start_publisher(name, to_child, from_child, false);
  ASSERT_EQ(from_child.get(), 'p');
  SubscriberOptions so;
  so.depth = kDepth;
  so.wait_mode = WaitMode::Blocking;
  auto sub = SubscriberPort::create(*topic, so);  // attaches to a publisher with no pool yet
  ASSERT_TRUE(sub);
  to_child.put('r');
  ASSERT_EQ(from_child.get(), 'd');
  EXPECT_FALSE((*sub)->wait(1ms));  // nothing published: the wait is idle time
  expect_premapped_then_stop(**topic, child, to_child);
}

}  // namespace
}  // namespace baton::topic
