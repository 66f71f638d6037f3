// DdsGraphReader on real CycloneDDS participants in this process: a rogue DDS application writes
// ros_discovery_info samples that do not decode (dropped, counted, logged: never a crash), then
// a good one, whose node is listed with the rogue's writer under it; a participant that leaves
// takes its node and endpoints along. DDS domain 75 (+ BATON_TEST_DOMAIN_SHIFT).
#include "../../src/ros2/dds_graph_reader.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <random>
#include <thread>

#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/shm/domain_tag.hpp"
#include "ros2_test_env.hpp"

#if BATON_HAVE_CYCLONEDDS  // the wire (and these classes) exist only with CycloneDDS
namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const uint32_t DOMAIN_ID = test::domain_id(75);

// Refreshes `sut` every 20 ms until `cond(snapshot)` holds, for up to 30 s.
template <typename F>
bool eventually(DdsGraphReader& sut, F cond) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!cond(sut.snapshot(shm::domain_tag()))) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

bool lists_node(const DdsGraph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.node_name == name) return true;
  return false;
}

class DdsGraphReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    BATON_REQUIRE_CYCLONEDDS();
    registry_.add_share_root(test::ros_venv() / "share");
    auto type = registry_.message(DISCOVERY_INFO_TYPE);
    ASSERT_TRUE(type.has_value()) << type.error().detail;
    type_ = *type;
    auto p = Participant::create(registry_, DOMAIN_ID, /*localhost_only=*/true);
    ASSERT_TRUE(p.has_value()) << p.error().detail;
    participant_ = std::move(*p);
    auto sut = DdsGraphReader::create(*participant_);
    ASSERT_TRUE(sut.has_value()) << sut.error().detail;
    sut_ = std::move(*sut);
  }
  TypeRegistry registry_;
  const MessageDescription* type_ = nullptr;
  std::unique_ptr<Participant> participant_;
  std::unique_ptr<DdsGraphReader> sut_;
};

TEST_F(DdsGraphReaderTest, malformed_discovery_info_is_dropped_then_a_good_sample_is_listed) {
  // The rogue: a plain DDS participant (no baton tag) writing ros_discovery_info by hand.
  auto made = DdsParticipant::create(DOMAIN_ID, /*localhost_only=*/true);
  ASSERT_TRUE(made.has_value()) << made.error().detail;
  std::optional<DdsParticipant> rogue(std::move(*made));
  WireQos qos;
  qos.reliable = true;
  qos.transient_local = true;
  qos.keep_all = true;  // every sample reaches the reader, none replaced in the writer
  auto made_writer = rogue->create_writer(DISCOVERY_INFO_TOPIC, type_->dds_type_name(), qos);
  ASSERT_TRUE(made_writer.has_value()) << made_writer.error().detail;
  std::optional<DdsRawWriter> writer(std::move(*made_writer));
  ASSERT_TRUE(eventually(*sut_, [&](const DdsGraph&) { return writer->matched_readers() > 0; }));

  ParticipantEntities good;
  good.gid = rogue->guid();
  good.node("/rogue_ns", "rogue").writers.push_back(writer->guid());
  auto cdr = encode_discovery_info(*type_, good);
  ASSERT_TRUE(cdr.has_value());
  std::vector<std::vector<uint8_t>> bad = {
      {0x00, 0x01, 0x00, 0x00},                            // header only
      {0x00, 0x01, 0x00, 0x00, 1, 2, 3},                   // truncated gid
      std::vector<uint8_t>(cdr->begin(), cdr->end() - 3),  // truncated
  };
  auto huge = *cdr;  // node sequence count 0x7fffffff in a sample of a few dozen bytes
  huge[4 + 16] = 0xff, huge[4 + 17] = 0xff, huge[4 + 18] = 0xff, huge[4 + 19] = 0x7f;
  bad.push_back(huge);
  std::mt19937 rng(75);
  for (int i = 0; i < 50; ++i) {  // seeded random corruption; some may still decode
    auto b = *cdr;
    b[4 + rng() % (b.size() - 4)] = static_cast<uint8_t>(rng());
    b.resize(4 + rng() % (b.size() - 3));
    bad.push_back(std::move(b));
  }
  for (const auto& b : bad) ASSERT_TRUE(writer->write(b).has_value());
  ASSERT_TRUE(writer->write(*cdr).has_value());

  ASSERT_TRUE(eventually(*sut_, [](const DdsGraph& g) { return lists_node(g, "rogue"); }));
  EXPECT_GE(sut_->malformed(), 4u);  // the four hand-made ones at least
  // The rogue's writer is listed under its node, with the demangled ros_discovery_info type.
  const DdsGraph g = sut_->snapshot(shm::domain_tag());
  bool writer_under_node = false;
  for (const auto& e : g.endpoints)
    if (e.dds.guid == writer->guid()) {
      ASSERT_GE(e.node, 0);
      EXPECT_EQ(g.nodes[e.node].node_name, "rogue");
      EXPECT_EQ(g.nodes[e.node].node_namespace, "/rogue_ns");
      EXPECT_EQ(e.ros.kind, DdsTopicKind::NotRos);
      EXPECT_EQ(e.ros_type, DISCOVERY_INFO_TYPE);
      writer_under_node = true;
    }
  EXPECT_TRUE(writer_under_node);

  // Our own participant (baton tag) is never listed.
  for (const auto& e : g.endpoints) EXPECT_NE(e.dds.participant, participant_->gid());

  // The rogue leaves: its node and endpoints go, and the generation moves.
  const uint64_t before = sut_->generation();
  const Guid rogue_writer = writer->guid();
  writer.reset();
  rogue.reset();
  ASSERT_TRUE(eventually(*sut_, [&](const DdsGraph& g) {
    for (const auto& e : g.endpoints)
      if (e.dds.guid == rogue_writer) return false;
    return !lists_node(g, "rogue");
  }));
  EXPECT_GT(sut_->generation(), before);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_CYCLONEDDS
