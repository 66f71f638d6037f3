// Crash safety of the domain copy table: a copier or reader that dies never blocks or leaks.
#include "baton/memory/domain/domain_table.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "test_util.hpp"

namespace baton::memory::domain {
namespace {

// The table's rows and slots as raw shared memory, the way a crashed peer left them.
struct RawTable {
  shm::Segment seg;
  DomainTableHeader* header() {
    return seg.at<DomainTableHeader>(DomainTableLayout::header_offset);
  }
  TableRow* rows() { return seg.at<TableRow>(header()->rows_offset); }
  CopySlot* slots(std::uint32_t d) {
    return seg.at<CopySlot>(header()->slots_offset) + std::uint64_t{d} * header()->slots_per_domain;
  }
};

RawTable raw(const std::string& name) {
  auto s = shm::Segment::open(shm::segment_name("x", name), shm::SegmentKind::DomainTable);
  EXPECT_TRUE(s);
  return RawTable{std::move(*s)};
}

void run_child(const std::function<void()>& fn) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    fn();
    ::_exit(0);  // dies holding whatever fn took
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
}

// A table name that is removed from /dev/shm (with its staging pools) when the test ends: no
// publisher owns these tables, and the owner is who removes them otherwise.
struct TableName {
  std::string name = testing::unique_name("tbl");
  ~TableName() { DomainTable::unlink(name); }
  operator const std::string&() const { return name; }
};

std::shared_ptr<DomainTable> make_table(const std::string& name, std::uint32_t* staging) {
  auto t = DomainTable::open_or_create(name, 4);
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  auto b = open_domain("staging");
  EXPECT_TRUE(b);
  auto d = (*t)->register_domain(*b);
  EXPECT_TRUE(d);
  *staging = *d;
  return *t;
}

TEST(DomainTableTest, acquire_with_bad_domain_returns_out_of_range) {
  std::uint32_t d = 0;
  const TableName name;
  auto sut = make_table(name, &d);
  const std::byte bytes[16] = {};
  auto r = sut->acquire(d + 5, 0, 0, bytes, sizeof(bytes));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DomainError::OutOfRange);
  EXPECT_FALSE(sut->acquire(d, 99, 0, bytes, sizeof(bytes)));  // reader index out of range
}

TEST(DomainTableTest, copy_lock_of_dead_copier_is_broken_and_copy_made_once) {
  const TableName name;
  std::uint32_t d = 0;
  auto sut = make_table(name, &d);
  sut->register_reader(0);
  run_child([&] {
    RawTable t = raw(name);
    const shm::ParticipantId me = shm::self();
    t.rows()[0].seq.store(0);  // the row describes message 0 ...
    t.rows()[0].copy_lock[d].store(owner_word(me.pid, me.start_time));  // ... and we copy it
  });
  std::vector<std::byte> msg(1000, std::byte{0x5A});
  auto pin = sut->acquire(d, 0, 0, msg.data(), msg.size());
  ASSERT_TRUE(pin) << pin.error().detail;
  EXPECT_TRUE(pin->made_copy);
  EXPECT_EQ(pin->pool.host[pin->offset + 999], std::byte{0x5A});
  EXPECT_EQ(sut->copies(d), 1u);
  sut->release(*pin, 0);
}

TEST(DomainTableTest, references_of_dead_reader_are_dropped_by_sweep) {
  const TableName name;
  std::uint32_t d = 0;
  auto sut = make_table(name, &d);
  std::vector<std::byte> msg(512, std::byte{1});
  std::uint32_t slot = INVALID_COPY;
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  run_child([&] {
    sut->register_reader(5);
    auto pin = sut->acquire(d, 5, 1, msg.data(), msg.size());  // pinned, never released
    const std::uint32_t s = pin ? pin->slot : INVALID_COPY;
    (void)!::write(pipe_fd[1], &s, sizeof(s));
  });
  ASSERT_EQ(::read(pipe_fd[0], &slot, sizeof(slot)), static_cast<ssize_t>(sizeof(slot)));
  ::close(pipe_fd[0]);
  ::close(pipe_fd[1]);
  ASSERT_NE(slot, INVALID_COPY);
  RawTable t = raw(name);
  EXPECT_EQ(t.slots(d)[slot].refs.load(), ROW_REF | (1ull << 5));
  sut->sweep(d);
  EXPECT_EQ(t.slots(d)[slot].refs.load(), ROW_REF);  // only the row holds the copy now
  // A live reader still shares the dead reader's copy.
  sut->register_reader(1);
  auto pin = sut->acquire(d, 1, 1, msg.data(), msg.size());
  ASSERT_TRUE(pin);
  EXPECT_FALSE(pin->made_copy);
  EXPECT_EQ(sut->copies(d), 1u);
  sut->release(*pin, 1);
}

TEST(DomainTableTest, private_copy_when_row_moved_on_is_never_shared) {
  std::uint32_t d = 0;
  const TableName name;
  auto sut = make_table(name, &d);
  sut->register_reader(0);
  std::vector<std::byte> msg(64, std::byte{2});
  auto newer = sut->acquire(d, 0, 4, msg.data(), msg.size());  // row 0 now holds message 4
  ASSERT_TRUE(newer);
  auto older = sut->acquire(d, 0, 0, msg.data(), msg.size());  // message 0 left the table
  ASSERT_TRUE(older) << older.error().detail;
  EXPECT_TRUE(older->made_copy);
  EXPECT_NE(older->slot, newer->slot);
  sut->release(*older, 0);
  sut->release(*newer, 0);
}

}  // namespace
}  // namespace baton::memory::domain
