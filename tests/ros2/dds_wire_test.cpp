// DdsParticipant's endpoints without a peer process: what one participant may hold at once.
#include "../../src/ros2/dds_wire.hpp"

#include <gtest/gtest.h>

#include "ros2_test_env.hpp"

#if BATON_HAVE_CYCLONEDDS  // the wire (and these classes) exist only with CycloneDDS
namespace baton::ros2 {
namespace {

const uint32_t DOMAIN_ID = test::domain_id(76);

// rclpy may publish and subscribe one topic with different QoS in one node (one participant per
// rmw context): CycloneDDS 0.10 refuses a second topic entity of the same name whose topic QoS
// differs ("Inconsistent Policy"), so topics are made without QoS, as rmw_cyclonedds_cpp does.
TEST(DdsWire, one_participant_holds_endpoints_of_one_topic_with_different_qos) {
  BATON_REQUIRE_CYCLONEDDS();
  auto sut = DdsParticipant::create(DOMAIN_ID, /*localhost_only=*/true);
  ASSERT_TRUE(sut.has_value()) << sut.error().detail;
  WireQos deep, shallow;
  deep.depth = 256;
  deep.transient_local = true;
  shallow.depth = 1;
  shallow.reliable = false;
  shallow.user_data = "typehash=x;";
  const std::string type = "std_msgs::msg::dds_::String_";
  auto w = sut->create_writer("rt/dds_wire_qos", type, shallow);
  ASSERT_TRUE(w.has_value()) << w.error().detail;
  auto r = sut->create_reader("rt/dds_wire_qos", type, deep);
  ASSERT_TRUE(r.has_value()) << r.error().detail;
  auto w2 = sut->create_writer("rt/dds_wire_qos", type, deep);
  ASSERT_TRUE(w2.has_value()) << w2.error().detail;
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_CYCLONEDDS
