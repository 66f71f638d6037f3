// Crash safety of the domain copy table: a copier or reader that dies never blocks or leaks.
#include "baton/memory/domain/domain_table.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "child_role.hpp"
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

// The peers that die holding something are this binary re-run in a child role (fork + exec,
// child_roles.hpp): the test process may have threads by now (an OpenCL or CUDA driver's, from
// earlier tests), so a child that only forked could block for good on a lock one of them held
// (fork_guard.hpp). BATON_TABLE and BATON_DOMAIN name the table and the parent's domain index.
std::uint32_t role_domain() {
  return static_cast<std::uint32_t>(std::strtoul(std::getenv("BATON_DOMAIN"), nullptr, 10));
}

// Runs child role `role` against table `name`, domain d (plus `env`); expects a clean exit.
void run_role(const std::string& role, const std::string& name, std::uint32_t d,
              test::Env env = {}) {
  env["BATON_TABLE"] = name;
  env["BATON_DOMAIN"] = std::to_string(d);
  const pid_t child = testing::spawn_child_role(role, env);
  ASSERT_EQ(testing::wait_exit(child), 0) << "the child role failed (its output is above)";
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

// Child role: takes message 0's copy lock in domain BATON_DOMAIN and dies holding it.
BATON_CHILD_ROLE(domain_table_dead_copier) {
  auto seg = shm::Segment::open(shm::segment_name("x", std::getenv("BATON_TABLE")),
                                shm::SegmentKind::DomainTable);
  if (!seg) return testing::child_role_failed("open the table: " + seg.error().detail);
  RawTable t{std::move(*seg)};
  const shm::ParticipantId me = shm::self();
  t.rows()[0].seq.store(0);  // the row describes message 0 ...
  t.rows()[0].copy_lock[role_domain()].store(owner_word(me.pid, me.start_time));  // ... we copy it
  ::_exit(0);  // dies holding the lock: no destructor or exit handler runs
}

// Child role: registers as reader 5, pins a copy of message 1 and dies without releasing it;
// writes the copy's slot to the pipe whose write end is BATON_SLOT_FD.
BATON_CHILD_ROLE(domain_table_dead_reader) {
  auto table = DomainTable::open_or_create(std::getenv("BATON_TABLE"), 4);
  if (!table) return testing::child_role_failed("open the table: " + table.error().detail);
  auto staging = open_domain("staging");
  if (!staging) return testing::child_role_failed("open the staging domain");
  auto d = (*table)->register_domain(*staging);
  if (!d || *d != role_domain()) {
    return testing::child_role_failed("the staging domain has not the parent's index");
  }
  (*table)->register_reader(5);
  const std::vector<std::byte> msg(512, std::byte{1});
  auto pin = (*table)->acquire(*d, 5, 1, msg.data(), msg.size());  // pinned, never released
  if (!pin) return testing::child_role_failed("acquire: " + pin.error().detail);
  const int out = std::atoi(std::getenv("BATON_SLOT_FD"));
  if (::write(out, &pin->slot, sizeof(pin->slot)) != static_cast<ssize_t>(sizeof(pin->slot))) {
    return testing::child_role_failed("write the slot");
  }
  ::_exit(0);  // dies holding the pin: no destructor or exit handler runs
}

TEST(DomainTableTest, copy_lock_of_dead_copier_is_broken_and_copy_made_once) {
  const TableName name;
  std::uint32_t d = 0;
  auto sut = make_table(name, &d);
  sut->register_reader(0);
  run_role("domain_table_dead_copier", name, d);
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
  ASSERT_EQ(::pipe(pipe_fd), 0);  // no O_CLOEXEC: the write end survives the child's exec
  run_role("domain_table_dead_reader", name, d, {{"BATON_SLOT_FD", std::to_string(pipe_fd[1])}});
  ::close(pipe_fd[1]);
  ASSERT_EQ(::read(pipe_fd[0], &slot, sizeof(slot)), static_cast<ssize_t>(sizeof(slot)));
  ::close(pipe_fd[0]);
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
