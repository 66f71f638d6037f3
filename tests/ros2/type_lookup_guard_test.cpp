// CycloneDDS 0.10 stores the type objects of every TypeLookup reply it receives, asked for or
// not, and crashed doing so (SIGSEGV in ddsi_tl_add_types, about 1 run in 15 under ASan with two
// rclpy processes on the domain). The DDS wire drops every reply
// (src/ros2/cyclone_type_lookup_guard.hpp). Here an rclpy (Fast DDS) process with an Image writer
// asks another one, with a String writer, for the String type's object, and the answer goes to
// every matched reply reader, this process's too: the reply reaches the wire's handler (its count
// grows; it stays 0 when libddsc calls its own), and Cyclone's type library has neither type
// afterwards (with libddsc's handler it held the String type: checked by renaming the guard).
#include <dds/dds.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/ros2/cyclone_type_lookup_guard.hpp"
#include "../../src/ros2/dds_wire.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"

// Declared by dds.h only under DDS_HAS_TYPE_DISCOVERY, which Debian's cyclonedds-dev does not
// define in its headers although its libddsc is built with type discovery (and exports these).
extern "C" {
dds_return_t dds_builtintopic_get_endpoint_type_info(
    dds_builtintopic_endpoint_t* builtintopic_endpoint, const dds_typeinfo_t** type_info);
dds_return_t dds_free_typeinfo(dds_typeinfo_t* type_info);
// dds/ddsi/ddsi_typelib.h, which does not compile without that definition.
dds_typeinfo_t* ddsi_typeinfo_dup(const dds_typeinfo_t* src);
const dds_typeid_t* ddsi_typeinfo_complete_typeid(const dds_typeinfo_t* type_info);
}

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;
using baton::testing::eventually;

const uint32_t DOMAIN_ID = test::domain_id(89);  // this suite's own ROS_DOMAIN_ID

// The type information of the first writer discovered on DDS topic `dds_topic` (a copy, freed
// with dds_free_typeinfo); nullptr while there is none.
dds_typeinfo_t* writer_type_info(dds_entity_t publications, const std::string& dds_topic) {
  constexpr int kMax = 256;  // every writer of the domain's processes (an rclpy node has ~10)
  std::vector<void*> samples(kMax, nullptr);
  std::vector<dds_sample_info_t> infos(kMax);
  // dds_read: every sample, read before or not (a later call looks for another topic).
  const int32_t n = dds_read(publications, samples.data(), infos.data(), kMax, kMax);
  dds_typeinfo_t* found = nullptr;
  for (int32_t i = 0; i < n; ++i) {
    auto* ep = static_cast<dds_builtintopic_endpoint_t*>(samples[i]);
    const dds_typeinfo_t* info = nullptr;
    if (found == nullptr && infos[i].valid_data && ep->topic_name != nullptr &&
        ep->topic_name == dds_topic &&
        dds_builtintopic_get_endpoint_type_info(ep, &info) == DDS_RETCODE_OK && info != nullptr)
      found = ddsi_typeinfo_dup(info);
  }
  if (n > 0) dds_return_loan(publications, samples.data(), n);
  return found;
}

// writer_type_info once the writer was discovered (up to 60 s); nullptr if it never was.
dds_typeinfo_t* discovered_writer_type(dds_entity_t publications, const std::string& dds_topic) {
  dds_typeinfo_t* info = nullptr;
  eventually(
      [&] {
        if (info == nullptr) info = writer_type_info(publications, dds_topic);
        return info != nullptr;
      },
      60s);
  return info;
}

// Whether Cyclone's type library holds the type object of `type_info`'s complete type (asked
// without waiting: Cyclone may send a request of its own, which Fast DDS ignores).
bool cyclone_has_type(dds_entity_t participant, const dds_typeinfo_t* type_info) {
  dds_typeobj_t* obj = nullptr;
  if (dds_get_typeobj(participant, ddsi_typeinfo_complete_typeid(type_info), 0, &obj) !=
      DDS_RETCODE_OK)
    return false;
  dds_free_typeobj(obj);
  return true;
}

TEST(CycloneTypeLookupGuard, replies_between_fast_dds_peers_reach_the_wire_handler_only) {
  BATON_REQUIRE_CYCLONEDDS();
  BATON_REQUIRE_ROS_VENV();
  // The wire's Cyclone domain (its configuration, its handler), and a participant of it for
  // this test's builtin reader.
  auto wire = DdsParticipant::create(DOMAIN_ID, /*localhost_only=*/true);
  ASSERT_TRUE(wire.has_value()) << wire.error().detail;
  const dds_entity_t pp = dds_create_participant(DOMAIN_ID, nullptr, nullptr);
  ASSERT_GT(pp, 0);
  const dds_entity_t publications =
      dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, nullptr, nullptr);
  ASSERT_GT(publications, 0);

  // A std_msgs/String writer in one rclpy process, then a sensor_msgs/Image writer in another;
  // both wait for a subscriber that never comes. The second asks the first for the String type
  // (Fast DDS asks for the type of every discovered endpoint whose type it has not registered),
  // and the first answers every reply reader it matched: this process's too, as this process
  // discovered its writer before the second started (volatile: a reply written before the match
  // would never come).
  const test::Env env{{"ROS_DOMAIN_ID", std::to_string(DOMAIN_ID)},
                      {"ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"}};
  const std::string topic = "/tl/chatter_" + std::to_string(::getpid());
  const std::string image_topic = "/tl/image_" + std::to_string(::getpid());
  test::RclpyProcess talker("rclpy_native_peer.py", {"talk", topic, "1", "90"}, env);
  dds_typeinfo_t* string_type = discovered_writer_type(publications, "rt" + topic);
  ASSERT_NE(string_type, nullptr) << "the rclpy String writer was not discovered with its type\n"
                                  << talker.output();
  const uint64_t dropped_before = type_lookup_replies_dropped();
  test::RclpyProcess images("rclpy_native_peer.py", {"image-talk", image_topic, "90"}, env);
  dds_typeinfo_t* image_type = discovered_writer_type(publications, "rt" + image_topic);
  ASSERT_NE(image_type, nullptr) << "the rclpy Image writer was not discovered with its type\n"
                                 << images.output();

  EXPECT_TRUE(eventually([&] { return type_lookup_replies_dropped() > dropped_before; }, 60s))
      << "no TypeLookup reply reached the wire's handler\n"
      << talker.output() << images.output();
  EXPECT_FALSE(cyclone_has_type(pp, string_type));
  EXPECT_FALSE(cyclone_has_type(pp, image_type));
  dds_free_typeinfo(string_type);
  dds_free_typeinfo(image_type);
  dds_delete(pp);
}

}  // namespace
}  // namespace baton::ros2
