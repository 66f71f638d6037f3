// What the graph registry holds in /dev/shm (registry layout 5, issue 20's memory target): its
// header at creation, and each row's pages when a claim moves its table's mark past the row. It
// used to be fallocated whole (2.3 MiB per namespace), and a process's first read of a row mapped
// up to 64 KiB of its neighbours. The allocation is read from the tmpfs file (st_blocks); a full
// /dev/shm must be a clear error, never a SIGBUS.
#include <vector>

#include "baton/graph/registry.hpp"
#include "baton/shm/naming.hpp"
#include "private_dev_shm.hpp"
#include "shm_allocation.hpp"
#include "test_util.hpp"

namespace baton::graph {
namespace {

const topic::TypeInfo STRING = topic::TypeInfo::from_name("std_msgs/msg/String", "8");
const EndpointQos QOS{10, topic::Reliability::Reliable, topic::Durability::Volatile};

// The pages of the header and of rows [0, n) of each table.
std::int64_t expected_bytes(std::uint32_t participants, std::uint32_t nodes,
                            std::uint32_t endpoints) {
  using L = RegistrySegmentLayout;
  return testing::PageSet()
      .add(0, L::participants_offset)
      .add(L::participants_offset, L::participants_offset + participants * sizeof(ParticipantEntry))
      .add(L::nodes_offset, L::nodes_offset + nodes * sizeof(NodeEntry))
      .add(L::endpoints_offset, L::endpoints_offset + endpoints * sizeof(EndpointEntry))
      .bytes();
}

RegistryOptions options_named(const std::string& name) {
  RegistryOptions options;
  options.name = name;
  options.ready_timeout_ms = 50;
  return options;
}

TEST(RegistryAllocationTest, a_registry_holds_its_header_and_the_rows_its_marks_passed) {
  const RegistryOptions options = options_named(testing::unique_name("alloc"));
  auto reg = Registry::open_or_create(options);
  ASSERT_TRUE(reg) << reg.error().detail;
  const shm::Segment& seg = (*reg)->segment();
  EXPECT_EQ(testing::allocated_bytes(seg.name()), expected_bytes(0, 0, 0));

  auto me = (*reg)->register_participant();
  ASSERT_TRUE(me) << me.error().detail;
  auto node = (*reg)->register_node(*me, "n", "/");
  ASSERT_TRUE(node) << node.error().detail;
  std::vector<std::shared_ptr<EndpointHandle>> eps;
  for (int i = 0; i < 10; ++i) {
    auto e = (*reg)->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, QOS);
    ASSERT_TRUE(e) << e.error().detail;
    eps.push_back(std::move(*e));
  }
  EXPECT_EQ((*reg)->snapshot().endpoints.size(), 10u);
  EXPECT_EQ(testing::allocated_bytes(seg.name()), expected_bytes(1, 1, 10));
  EXPECT_LT(testing::allocated_bytes(seg.name()), static_cast<std::int64_t>(seg.size()) / 50);
  const auto* h = seg.at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  EXPECT_EQ(h->participants_used.load(), 1u);
  eps.clear();
  node->reset();
  me->reset();
  shm::Segment::unlink(seg.name());
}

enum Outcome : int {
  Passed = 0,
  SetupFailed = 3,
  NeverFull = 4,
  WrongError = 5,
  NoRowWithRoom = 6
};

int register_on_a_full_dev_shm(const std::string& name) {
  auto reg = Registry::open_or_create(options_named(name));
  if (!reg) return SetupFailed;
  auto me = (*reg)->register_participant();
  if (!me) return SetupFailed;
  auto node = (*reg)->register_node(*me, "n", "/");
  if (!node) return SetupFailed;
  if (!testing::fill_dev_shm()) return NeverFull;
  // The first endpoint row lies on a page of its own, not committed yet.
  auto refused = (*reg)->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, QOS);
  if (refused || refused.error().code != RegisterError::NoSpace ||
      refused.error().detail.find("/dev/shm") == std::string::npos) {
    return WrongError;
  }
  testing::unfill_dev_shm();
  auto ep = (*reg)->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, QOS);
  if (!ep || (*reg)->snapshot().endpoints.size() != 1) return NoRowWithRoom;
  return Passed;
}

TEST(RegistryAllocationTest,
     a_row_on_a_full_dev_shm_is_a_clear_error_and_registers_once_there_is_room) {
  const std::string name = testing::unique_name("fullreg");
  testing::expect_passes_on_private_dev_shm(
      "1m", [&] { return register_on_a_full_dev_shm(name); },
      "3: setup failed, 4: /dev/shm never filled, 5: not NoSpace naming /dev/shm, 6: no row once "
      "there was room");
}

}  // namespace
}  // namespace baton::graph
