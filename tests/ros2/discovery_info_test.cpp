// rmw_dds_common/msg/ParticipantEntitiesInfo (ros_discovery_info) through baton's CDR codec.
#include "baton/ros2/discovery_info.hpp"

#include <gtest/gtest.h>

#include <random>

#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

class DiscoveryInfo : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    registry_.add_share_root(test::ros_venv() / "share");
    auto t = registry_.message(DISCOVERY_INFO_TYPE);
    ASSERT_TRUE(t.has_value()) << t.error().detail;
    type_ = *t;
  }
  static Guid guid(uint8_t seed) {
    Guid g{};
    for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<uint8_t>(seed + i);
    return g;
  }
  TypeRegistry registry_;
  const MessageDescription* type_ = nullptr;
};

TEST_F(DiscoveryInfo, decode_of_truncated_or_random_bytes_returns_an_error) {
  EXPECT_FALSE(decode_discovery_info(*type_, {}).has_value());
  ParticipantEntities p;
  p.gid = guid(1);
  p.node("/", "n").readers.push_back(guid(2));
  auto good = encode_discovery_info(*type_, p);
  ASSERT_TRUE(good.has_value());
  for (size_t n = 0; n < good->size() - 1; ++n)  // every truncation
    EXPECT_FALSE(decode_discovery_info(*type_, std::span(good->data(), n)).has_value()) << n;
  std::mt19937 rng(11);
  for (int i = 0; i < 5000; ++i) {  // random corruption: an error or a value, never a crash
    auto bad = *good;
    bad[4 + rng() % (bad.size() - 4)] = static_cast<uint8_t>(rng());
    (void)decode_discovery_info(*type_, bad);
  }
  // A type of another shape is refused rather than misread.
  auto other = registry_.message("std_msgs/msg/String");
  ASSERT_TRUE(other.has_value());
  auto wrong = decode_discovery_info(**other, *good);
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().code, CdrError::TypeMismatch);
}

TEST_F(DiscoveryInfo, empty_participant_is_header_gid_and_empty_sequence) {
  ParticipantEntities p;
  p.gid = guid(0x10);
  auto cdr = encode_discovery_info(*type_, p);
  ASSERT_TRUE(cdr.has_value()) << cdr.error().detail;
  ASSERT_EQ(cdr->size(), 4u + 16u + 4u);  // char[16] has no count; the node sequence is empty
  EXPECT_EQ((*cdr)[1], 0x01);             // CDR little-endian
  EXPECT_TRUE(std::equal(p.gid.begin(), p.gid.end(), cdr->begin() + 4));
}

TEST_F(DiscoveryInfo, encode_then_decode_gives_the_same_nodes_and_gids) {
  ParticipantEntities p;
  p.gid = guid(1);
  p.add_endpoint("/", "talker", guid(2), /*reader=*/false);
  p.add_endpoint("/robot1", "listener", guid(3), /*reader=*/true);
  p.add_endpoint("/robot1", "listener", guid(4), /*reader=*/true);
  p.add_endpoint("/robot1", "listener", guid(4), /*reader=*/true);  // listed once
  p.node("/", "idle");
  auto cdr = encode_discovery_info(*type_, p);
  ASSERT_TRUE(cdr.has_value()) << cdr.error().detail;
  auto back = decode_discovery_info(*type_, *cdr);
  ASSERT_TRUE(back.has_value()) << back.error().detail;
  EXPECT_EQ(*back, p);
  EXPECT_EQ(back->nodes.size(), 3u);
  EXPECT_EQ(back->node("/robot1", "listener").readers.size(), 2u);

  EXPECT_TRUE(p.remove_endpoint("/robot1", "listener", guid(3), true));
  EXPECT_FALSE(p.remove_endpoint("/robot1", "listener", guid(3), true));
  EXPECT_TRUE(p.remove_node("/", "idle"));
  EXPECT_FALSE(p.remove_node("/", "idle"));
  EXPECT_EQ(p.nodes.size(), 2u);
}

TEST_F(DiscoveryInfo, node_name_over_256_characters_is_refused_by_its_bound) {
  ParticipantEntities p;
  p.node("/", std::string(257, 'n'));
  auto cdr = encode_discovery_info(*type_, p);
  ASSERT_FALSE(cdr.has_value());
  EXPECT_EQ(cdr.error().code, CdrError::OversizeString) << cdr.error().detail;
}

}  // namespace
}  // namespace baton::ros2
