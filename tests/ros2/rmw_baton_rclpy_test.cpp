// rmw_baton_cpp under the real rclpy of the PyPI wheels: unmodified rclpy programs
// (rclpy_rmw_peer.py) loaded with LD_PRELOAD=librmw_baton_cpp.so RMW_IMPLEMENTATION=rmw_baton_cpp
// talk to each other through baton's shared memory. Each test runs in its own BATON_NAMESPACE
// and removes its segments afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "baton/baton.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const std::string DOMAIN_ID =
    test::domain_id_str(58);  // this suite's ROS_DOMAIN_ID (for Fast DDS peers)

using test::rmw_library;

// The `T` (text) symbols starting with "rmw_" that `library` exports, or every exported defined
// symbol when `all`.
std::set<std::string> exported_symbols(const std::filesystem::path& library, bool all) {
  std::set<std::string> out;
  const std::string cmd = "nm -D --defined-only '" + library.string() + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char line[1024];
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::istringstream in(line);
    std::string addr, kind, name;
    if (!(in >> addr >> kind >> name)) continue;
    if (all || (kind == "T" && name.rfind("rmw_", 0) == 0)) out.insert(name);
  }
  ::pclose(p);
  return out;
}

TEST(RmwBatonSymbols, defines_every_rmw_symbol_that_rmw_fastrtps_cpp_defines) {
  BATON_REQUIRE_RMW_BATON();
  const auto theirs = exported_symbols(test::ros_venv() / "lib" / "librmw_fastrtps_cpp.so", false);
  const auto ours = exported_symbols(rmw_library(), false);
  ASSERT_GE(theirs.size(), 90u) << "nm found too few symbols in librmw_fastrtps_cpp.so";
  for (const auto& s : theirs)
    EXPECT_TRUE(ours.count(s)) << s << " is missing: under LD_PRELOAD it would reach Fast DDS";
  // Nothing but rmw_* is exported: baton's own symbols must not clash with another baton copy.
  // The one exception replaces CycloneDDS's TypeLookup reply handler, which libddsc binds to
  // only if it is exported (src/ros2/cyclone_type_lookup_guard.hpp).
  for (const auto& s : exported_symbols(rmw_library(), true))
    if (s != "ddsi_tl_handle_reply") EXPECT_EQ(s.rfind("rmw_", 0), 0u) << s << " is exported";
  // include/baton/ros2/rmw_symbols.txt lists exactly the Fast DDS set.
  std::ifstream list(std::string(BATON_SOURCE_DIR) + "/include/baton/ros2/rmw_symbols.txt");
  std::set<std::string> listed;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    listed.insert(line.substr(line.find_last_of(' ') + 1));
  }
  EXPECT_EQ(listed, theirs);
}

class RmwBatonRclpy : public test::RmwPeers {
 protected:
  RmwBatonRclpy() : RmwPeers(DOMAIN_ID) {}
};

TEST_F(RmwBatonRclpy, string_messages_reach_another_rclpy_process) {
  auto& listener = on_baton({"listen", "/rmw_chatter", "5", "60"});
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"talk", "/rmw_chatter", "60"});
  int code = -1;
  ASSERT_TRUE(listener.wait_exit(90s, &code)) << listener.output() << talker.output();
  EXPECT_EQ(code, 0) << listener.output();
  // In order, none lost (keep_last 10, the listener keeps up): "got msg k" .. "got msg k+4".
  const std::string out = listener.output();
  const auto first = out.find("got msg ");
  ASSERT_NE(first, std::string::npos) << out;
  const int k = std::stoi(out.substr(first + 8));
  for (int i = 0; i < 5; ++i)
    EXPECT_NE(out.find("got msg " + std::to_string(k + i) + "\n"), std::string::npos) << out;
}

TEST_F(RmwBatonRclpy, image_4k_arrives_with_every_byte_equal) {
  auto& listener = on_baton({"image_listen", "/rmw_image", "3", "120"});
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"image_talk", "/rmw_image", "120"});
  int code = -1;
  ASSERT_TRUE(listener.wait_exit(150s, &code)) << listener.output() << talker.output();
  const std::string out = listener.output();
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out.find("DIFFERENT"), std::string::npos) << out;
  size_t equal = 0;
  for (size_t at = out.find(" equal "); at != std::string::npos; at = out.find(" equal ", at + 1))
    ++equal;
  EXPECT_EQ(equal, 3u) << out;
}

// rmw_serialize of rmw_baton_cpp against rmw_fastrtps_cpp's (Fast CDR), for the same messages:
// the values are equal, and baton's bytes are exactly baton's own Value codec's (zero padding).
TEST_F(RmwBatonRclpy, serialize_message_matches_rmw_fastrtps_cpp) {
  auto& fast = on_fast_dds({"serialize"});
  auto& baton_side = on_baton({"serialize"});
  int code = -1;
  ASSERT_TRUE(fast.wait_exit(60s, &code)) << fast.output();
  ASSERT_EQ(code, 0) << fast.output();
  ASSERT_TRUE(baton_side.wait_exit(60s, &code)) << baton_side.output();
  ASSERT_EQ(code, 0) << baton_side.output();
  const auto theirs = test::serialized_lines(fast.output());
  const auto ours = test::serialized_lines(baton_side.output());
  ASSERT_EQ(theirs.size(), 5u) << fast.output();
  ASSERT_EQ(ours.size(), theirs.size()) << baton_side.output();
  TypeRegistry registry;
  registry.add_share_root(test::ros_venv() / "share");
  for (size_t i = 0; i < ours.size(); ++i) {
    SCOPED_TRACE(ours[i].first + " #" + std::to_string(i));
    ASSERT_EQ(ours[i].first, theirs[i].first);
    auto type = registry.message(ours[i].first);
    ASSERT_TRUE(type.has_value()) << type.error().detail;
    auto their_value = decode(**type, theirs[i].second);
    ASSERT_TRUE(their_value.has_value()) << their_value.error().detail;
    auto our_value = decode(**type, ours[i].second);
    ASSERT_TRUE(our_value.has_value()) << our_value.error().detail;
    EXPECT_EQ(*our_value, *their_value);
    auto reencoded = encode(**type, *their_value);
    ASSERT_TRUE(reencoded.has_value());
    EXPECT_EQ(ours[i].second, *reencoded);
  }
}

TEST_F(RmwBatonRclpy, graph_api_lists_the_other_process) {
  auto& target = on_baton({"graph_target", "90"});
  ASSERT_TRUE(target.wait_for_output("ready", 60s)) << target.output();
  auto& query = on_baton({"graph_query", "60"});
  int code = -1;
  ASSERT_TRUE(query.wait_exit(90s, &code)) << query.output();
  const std::string out = query.output();
  ASSERT_EQ(code, 0) << out;
  TypeRegistry registry;
  registry.add_share_root(test::ros_venv() / "share");
  auto string_t = registry.message("std_msgs/msg/String");
  ASSERT_TRUE(string_t.has_value());
  for (const std::string& expected : {
           std::string("\"/graph_ns|target\""),
           std::string("\"/graph_pub\": [\"std_msgs/msg/String\"]"),
           std::string("\"/graph_sub\": [\"sensor_msgs/msg/Image\"]"),
           std::string("\"pub_count\": 1"),
           std::string("\"sub_count\": 1"),
           std::string("\"pubs_by_node\": {\"/graph_pub\": [\"std_msgs/msg/String\"]"),
           std::string("\"subs_by_node\": {\"/graph_sub\": [\"sensor_msgs/msg/Image\"]}"),
           std::string("\"/graph_ns/target/get_parameters\""),
           std::string("\"depth\": 7"),
           std::string("\"node\": \"target\""),
           std::string("\"ns\": \"/graph_ns\""),
           std::string("\"hash\": \"") + type_hash(**string_t) + "\"",
       })
    EXPECT_NE(out.find(expected), std::string::npos) << expected << " not in\n" << out;
  // The service plumbing stays out of the ROS graph.
  EXPECT_EQ(out.find("/_request"), std::string::npos) << out;
}

TEST_F(RmwBatonRclpy, parameter_service_call_between_processes) {
  auto& server = on_baton({"param_server", "90"});
  ASSERT_TRUE(server.wait_for_output("ready", 60s)) << server.output();
  auto& client = on_baton({"param_call", "60"});
  int code = -1;
  ASSERT_TRUE(client.wait_exit(90s, &code)) << client.output();
  EXPECT_EQ(code, 0) << client.output() << server.output();
  EXPECT_NE(client.output().find("available"), std::string::npos) << client.output();
  EXPECT_NE(client.output().find("answer 42"), std::string::npos) << client.output();
}

// A native baton publisher on the same topic (same TypeInfo: name + RIHS01) puts garbage in
// shared memory: the rclpy subscriber drops it with a warning and gets the valid samples after.
TEST_F(RmwBatonRclpy, malformed_sample_is_dropped_and_the_next_one_taken) {
  auto& listener = on_baton({"listen", "/rmw_hostile", "2", "60"});
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  TypeRegistry registry;
  registry.add_share_root(test::ros_venv() / "share");
  auto string_t = registry.message("std_msgs/msg/String");
  ASSERT_TRUE(string_t.has_value());
  const char* previous = std::getenv("BATON_NAMESPACE");
  const std::string saved = previous != nullptr ? previous : "";
  // rclpy on domain 58 lives in baton namespace "<BATON_NAMESPACE>-d58" (domain.hpp).
  ::setenv("BATON_NAMESPACE", (namespace_ + "-d" + DOMAIN_ID).c_str(), 1);
  {
    auto ctx = Context::create();
    baton::Node node(ctx, "hostile");
    auto pub = node.raw_publisher("/rmw_hostile", type_info(**string_t))
                   .qos(QoS(10).best_effort())
                   .create();
    ASSERT_TRUE(pub.has_value()) << pub.error().detail;
    // A string claiming 1000 bytes in a 12-byte sample.
    const uint8_t garbage[] = {0x00, 0x01, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00, 'a', 'b', 'c', 0};
    ASSERT_TRUE(pub->publish_copy(garbage, sizeof garbage).has_value());
    for (int i = 1; i <= 2; ++i) {
      Value v = default_value(**string_t);
      v.items[0].str = "valid " + std::to_string(i);
      auto bytes = encode(**string_t, v);
      ASSERT_TRUE(bytes.has_value());
      ASSERT_TRUE(pub->publish_copy(bytes->data(), bytes->size()).has_value());
    }
    int code = -1;
    EXPECT_TRUE(listener.wait_exit(60s, &code)) << listener.output();
    EXPECT_EQ(code, 0) << listener.output();
  }
  if (previous != nullptr) {
    ::setenv("BATON_NAMESPACE", saved.c_str(), 1);
  } else {
    ::unsetenv("BATON_NAMESPACE");
  }
  const std::string out = listener.output();
  EXPECT_NE(out.find("dropped a sample on '/rmw_hostile'"), std::string::npos) << out;
  EXPECT_NE(out.find("got valid 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("got valid 2\n"), std::string::npos) << out;
}

// ROS_DOMAIN_ID keeps rmw_baton processes apart as it does on DDS, although they share
// BATON_NAMESPACE: a talker on domain 58 reaches a watcher on 58 (the positive control, running
// in the same window) but not one on domain 59, nor one on 58 with discovery OFF; neither of
// those lists the talker's node. Domain 58 is the baton namespace "<ns>-d58".
TEST_F(RmwBatonRclpy, domain_id_separates_processes_in_one_baton_namespace) {
  auto& talker = on_baton({"talk", "/rmw_domain", "90"});
  ASSERT_TRUE(talker.wait_for_output("ready", 60s)) << talker.output();
  auto& same = on_baton({"watch", "/rmw_domain", "6"});
  auto& other = on_baton({"watch", "/rmw_domain", "6"}, "rclpy_rmw_peer.py",
                         {{"ROS_DOMAIN_ID", test::domain_id_str(59)}});
  auto& off = on_baton({"watch", "/rmw_domain", "6"}, "rclpy_rmw_peer.py",
                       {{"ROS_AUTOMATIC_DISCOVERY_RANGE", "OFF"}});
  for (auto* p : {&same, &other, &off}) {
    int code = -1;
    ASSERT_TRUE(p->wait_exit(90s, &code)) << p->output();
    ASSERT_EQ(code, 0) << p->output();
  }
  const std::string talker_node = "\"/|rmw_peer_talk\"";
  EXPECT_EQ(same.output().find("received 0\n"), std::string::npos) << same.output();
  EXPECT_NE(same.output().find(talker_node), std::string::npos) << same.output();
  for (auto* p : {&other, &off}) {
    EXPECT_NE(p->output().find("received 0\n"), std::string::npos) << p->output();
    EXPECT_EQ(p->output().find(talker_node), std::string::npos) << p->output();
  }
  // The documented mapping: domain 58's topic directory is in namespace "<ns>-d58".
  const std::string topic_segment = "baton." + std::to_string(::getuid()) + "." +
                                    shm::escape_name(namespace_) + "-d" + DOMAIN_ID + ".t." +
                                    shm::escape_name("/rmw_domain");
  const auto names = segments();
  EXPECT_NE(std::find(names.begin(), names.end(), topic_segment), names.end()) << topic_segment;
}

// rclpy nodes create topics of their own (/rosout, /parameter_events, seven parameter services):
// once every process has destroyed its node and shut down, none of their directories, publisher
// or data segments is left in /dev/shm — only the graph registry. (They used to linger until
// `baton clean`; a program starting many short-lived nodes filled /dev/shm.)
TEST_F(RmwBatonRclpy, no_topic_segment_outlives_the_processes_that_used_it) {
  auto& listener = on_baton({"listen", "/rmw_gone", "3", "60"});
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"talk", "/rmw_gone", "10"});
  int code = -1;
  ASSERT_TRUE(listener.wait_exit(90s, &code)) << listener.output() << talker.output();
  EXPECT_EQ(code, 0) << listener.output();
  ASSERT_TRUE(talker.wait_exit(90s, &code)) << talker.output();
  EXPECT_EQ(code, 0) << talker.output();
  std::vector<std::string> left;
  for (const auto& name : segments())
    if (name.find(".g.registry") == std::string::npos) left.push_back(name);
  EXPECT_TRUE(left.empty()) << left.size() << " segments left, e.g. " << left.front();
}

// What a message info says about its publisher agrees with the graph, and its time stamps with
// the talker's clock: the publisher gid equals the one get_publishers_info_by_topic reports (one
// identity for both, gid.hpp), and talker time <= source_timestamp <= received_timestamp.
TEST_F(RmwBatonRclpy, message_info_gid_matches_the_graph_and_source_timestamp_is_the_publish_time) {
  auto& listener = on_baton({"info_listen", "/rmw_info", "60"});
  ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
  auto& talker = on_baton({"stamped_talk", "/rmw_info", "60"});
  int code = -1;
  ASSERT_TRUE(listener.wait_exit(90s, &code)) << listener.output() << talker.output();
  ASSERT_EQ(code, 0) << listener.output();
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream in(listener.output());
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    if (space != std::string::npos) lines[line.substr(0, space)].push_back(line.substr(space + 1));
  }
  ASSERT_EQ(lines["gid"].size(), 1u) << listener.output();
  ASSERT_EQ(lines["info_gid"].size(), 1u) << listener.output();
  EXPECT_EQ(lines["gid"][0], lines["info_gid"][0]);
  EXPECT_NE(lines["gid"][0], std::string(32, '0'));
  ASSERT_EQ(lines["source"].size(), 1u) << listener.output();
  const int64_t sent = std::stoll(lines["sent"].at(0));
  const int64_t source = std::stoll(lines["source"][0]);
  const int64_t received = std::stoll(lines["received"].at(0));
  EXPECT_LE(sent, source);
  EXPECT_LE(source, received);
}

}  // namespace
}  // namespace baton::ros2
