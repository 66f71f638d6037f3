// Native baton ROS 2 endpoints (Participant, Node, Publisher, Subscription)
// against real rclpy on rmw_fastrtps_cpp (tests/ros2/rclpy_native_peer.py): the graph rclpy sees,
// exactly-once delivery with a baton subscriber in another process, both directions, a 4K image,
// QoS, and malformed CDR from a DDS writer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "../../src/ros2/dds_wire.hpp"
#include "baton/baton.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "child_roles.hpp"
#include "image_4k.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const uint32_t DOMAIN_ID = test::domain_id(67);  // this suite's own ROS_DOMAIN_ID

// The first line of `text` that starts with `prefix` ("" if none).
std::string line_with(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return {};
}

Value string_value(const MessageDescription& t, const std::string& s) {
  Value v = default_value(t);
  v.items[0].str = s;
  return v;
}

using baton::testing::eventually;

class WireNative : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_CYCLONEDDS();
    BATON_REQUIRE_ROS_VENV();
    registry_.add_share_root(test::ros_venv() / "share");
    string_t_ = *registry_.message("std_msgs/msg/String");
    auto wire = Participant::create(registry_, DOMAIN_ID, /*localhost_only=*/true);
    ASSERT_TRUE(wire.has_value()) << wire.error().detail;
    wire_ = std::move(*wire);
    ctx_ = Context::create();
    suffix_ = std::to_string(::getpid()) + "_" + baton::testing::current_test_name();
  }

  std::unique_ptr<test::RclpyProcess> peer(const std::vector<std::string>& args) {
    return std::make_unique<test::RclpyProcess>(
        "rclpy_native_peer.py", args,
        test::Env{{"ROS_DOMAIN_ID", std::to_string(DOMAIN_ID)},
                  {"ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"}});
  }

  TypeRegistry registry_;
  const MessageDescription* string_t_ = nullptr;
  std::unique_ptr<Participant> wire_;
  std::shared_ptr<Context> ctx_;
  std::string suffix_;
};

TEST_F(WireNative, endpoint_on_invalid_topic_name_returns_endpoint_error) {
  auto node = Node::create(ctx_, *wire_, "bad_topic_" + std::to_string(::getpid()));
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  auto pub = Publisher::create(**node, *string_t_, "no spaces allowed");
  ASSERT_FALSE(pub.has_value());
  EXPECT_EQ(pub.error().code, WireError::Endpoint);
  auto sub = Subscription::create(**node, *string_t_, "");
  ASSERT_FALSE(sub.has_value());
  EXPECT_EQ(sub.error().code, WireError::Endpoint);
}

TEST_F(WireNative, ros_discovery_info_lists_nodes_and_endpoint_gids_while_they_live) {
  const auto before = wire_->discovery_samples();
  auto node = Node::create(ctx_, *wire_, "lister", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  Guid pub_gid{}, sub_gid{};
  {
    auto pub = Publisher::create(**node, *string_t_, "listed_" + suffix_);
    ASSERT_TRUE(pub.has_value()) << pub.error().detail;
    auto sub = Subscription::create(**node, *string_t_, "listed_" + suffix_);
    ASSERT_TRUE(sub.has_value()) << sub.error().detail;
    pub_gid = pub->gid();
    sub_gid = (*sub)->gid();
    EXPECT_NE(pub_gid, Guid{});
    EXPECT_NE(pub_gid, sub_gid);
    auto e = wire_->entities();
    EXPECT_EQ(e.gid, wire_->gid());
    EXPECT_EQ(e.node("/wi", "lister").writers, std::vector<Guid>{pub_gid});
    EXPECT_EQ(e.node("/wi", "lister").readers, std::vector<Guid>{sub_gid});
    // The GUID prefix (first 12 bytes) is the participant's.
    EXPECT_TRUE(std::equal(pub_gid.begin(), pub_gid.begin() + 12, e.gid.begin()));
  }
  auto e = wire_->entities();
  EXPECT_TRUE(e.node("/wi", "lister").writers.empty());
  EXPECT_TRUE(e.node("/wi", "lister").readers.empty());
  EXPECT_GE(wire_->discovery_samples(), before + 5);  // node, 2 endpoints added and removed
  node->reset();
  EXPECT_TRUE(wire_->entities().nodes.empty());
}

// rclpy on Fast DDS sees the baton node, its topics with types, counts, which topics the node
// publishes / subscribes (ros_discovery_info), and the endpoints with RIHS01 type hash, gid and QoS
// (reliability, durability, deadline, lifespan, liveliness).
// Not asserted: the node name *inside* get_*_info_by_topic. Fast DDS (Kilted) takes an endpoint's
// participant from PID_PARTICIPANT_GUID, which CycloneDDS 0.10 does not send, so it files every
// Cyclone endpoint under participant 0 and reports "_CREATED_BY_BARE_DDS_APP_" (rmw_cyclonedds_cpp
// nodes seen from rmw_fastrtps_cpp alike; README "Graph on the wire").
TEST_F(WireNative, rclpy_graph_lists_baton_node_topics_counts_hash_and_qos) {
  const std::string name = "baton_graph_" + std::to_string(::getpid());
  auto node = Node::create(ctx_, *wire_, name, "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos pq;
  pq.deadline = 1500ms;
  pq.lifespan = 2s;
  pq.liveliness_lease = 3s;
  auto pub = Publisher::create(**node, *string_t_, "chatter_" + suffix_, pq);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  WireQos sq;
  sq.reliable = false;
  auto sub = Subscription::create(**node, *string_t_, "heard_" + suffix_, sq);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  const std::string pub_topic = "/wi/chatter_" + suffix_, sub_topic = "/wi/heard_" + suffix_;
  ASSERT_EQ(pub->topic(), pub_topic);

  auto p = peer({"graph", "/wi", name, pub_topic, sub_topic, "40"});
  int code = -1;
  ASSERT_TRUE(p->wait_exit(60s, &code)) << p->output();
  const std::string out = p->output();
  ASSERT_EQ(code, 0) << "rclpy never saw the baton node and both endpoints:\n" << out;
  EXPECT_NE(out.find("node /wi " + name + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("topic " + pub_topic + " std_msgs/msg/String\n"), std::string::npos) << out;
  EXPECT_NE(out.find("topic " + sub_topic + " std_msgs/msg/String\n"), std::string::npos) << out;
  EXPECT_NE(out.find("count_publishers " + pub_topic + " 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("count_subscribers " + sub_topic + " 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("by_node_publishers " + pub_topic + " std_msgs/msg/String"), std::string::npos)
      << out;
  EXPECT_NE(out.find("by_node_subscribers " + sub_topic + " std_msgs/msg/String"),
            std::string::npos)
      << out;

  const std::string pi = line_with(out, "pubinfo " + pub_topic + " ");
  ASSERT_FALSE(pi.empty()) << out;
  EXPECT_NE(pi.find("type=std_msgs/msg/String "), std::string::npos) << pi;
  EXPECT_NE(pi.find("hash=" + type_hash(*string_t_) + " "), std::string::npos) << pi;
  EXPECT_NE(pi.find("gid=" + test::hex(pub->gid()) + " "), std::string::npos) << pi;
  EXPECT_NE(pi.find("reliability=RELIABLE "), std::string::npos) << pi;
  EXPECT_NE(pi.find("durability=VOLATILE "), std::string::npos) << pi;
  EXPECT_NE(pi.find("deadline=1500000000 "), std::string::npos) << pi;
  EXPECT_NE(pi.find("lifespan=2000000000 "), std::string::npos) << pi;
  EXPECT_NE(pi.find("liveliness=AUTOMATIC lease=3000000000"), std::string::npos) << pi;

  const std::string si = line_with(out, "subinfo " + sub_topic + " ");
  ASSERT_FALSE(si.empty()) << out;
  EXPECT_NE(si.find("hash=" + type_hash(*string_t_) + " "), std::string::npos) << si;
  EXPECT_NE(si.find("gid=" + test::hex((*sub)->gid()) + " "), std::string::npos) << si;
  EXPECT_NE(si.find("reliability=BEST_EFFORT "), std::string::npos) << si;
}

}  // namespace
}  // namespace baton::ros2

namespace baton::ros2 {
namespace {

// ---- a baton process of the same shared-memory domain: this binary re-run as a child ---------

constexpr int EXACTLY_ONCE_N = 50;

// This binary re-run as child role `role`.
std::unique_ptr<test::RclpyProcess> baton_child(const std::string& role, const test::Env& env) {
  return std::make_unique<test::RclpyProcess>(test::RclpyProcess::ChildRole{role}, env);
}

// What a subscription received: each String once in `seen`, every take counted.
struct Received {
  std::set<std::string> seen;
  size_t count = 0;
  // Waits up to 50 ms, then takes everything waiting.
  void drain(Subscription& sub) {
    sub.wait(50ms);
    while (auto s = sub.take()) {
      ++count;
      seen.insert(s->value.items[0].str);
    }
  }
  // Keeps draining for `d` (duplicates would arrive now).
  void linger(Subscription& sub, std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) drain(sub);
  }
};

// Child role: a Subscription on BATON_WIRE_CHILD_TOPIC that counts what arrives, then waits for
// BATON_WIRE_CHILD_DROPS DDS samples of same-tag writers to be dropped, and prints a summary.
BATON_CHILD_TEST_F(WireNative, wire_subscriber) {
  const std::string topic = test::getenv_or("BATON_WIRE_CHILD_TOPIC", "");
  ASSERT_FALSE(topic.empty()) << "BATON_WIRE_CHILD_TOPIC names the topic";
  const size_t want = std::stoul(test::getenv_or("BATON_WIRE_CHILD_COUNT", "0"));
  const uint64_t drops = std::stoull(test::getenv_or("BATON_WIRE_CHILD_DROPS", "0"));
  auto node = Node::create(ctx_, *wire_, "baton_child_sub", "/wi");
  ASSERT_TRUE(node.has_value());
  WireQos q;
  q.depth = 100;
  auto sub = Subscription::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  std::printf("ready\n");
  std::fflush(stdout);
  Received r;
  eventually([&] { return r.drain(**sub), r.seen.size() >= want; }, 60s);
  eventually([&] { return r.drain(**sub), (*sub)->dropped_same_tag() >= drops; }, 20s);
  r.linger(**sub, 1000ms);
  std::printf("summary shm=%llu wire=%llu unique=%zu received=%zu dropped_same_tag=%llu\n",
              static_cast<unsigned long long>((*sub)->from_shm()),
              static_cast<unsigned long long>((*sub)->from_wire()), r.seen.size(), r.count,
              static_cast<unsigned long long>((*sub)->dropped_same_tag()));
  std::fflush(stdout);
}

// Child role: a Publisher on BATON_WIRE_CHILD_TOPIC; once a baton subscription is there, publishes
// "baton <i>" for i < BATON_WIRE_CHILD_COUNT and prints how many went on the wire.
BATON_CHILD_TEST_F(WireNative, wire_publisher) {
  const std::string topic = test::getenv_or("BATON_WIRE_CHILD_TOPIC", "");
  ASSERT_FALSE(topic.empty()) << "BATON_WIRE_CHILD_TOPIC names the topic";
  const int n = std::stoi(test::getenv_or("BATON_WIRE_CHILD_COUNT", "0"));
  auto node = Node::create(ctx_, *wire_, "baton_child_pub", "/wi");
  ASSERT_TRUE(node.has_value());
  WireQos q;
  q.depth = 100;
  auto pub = Publisher::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  ASSERT_TRUE(
      eventually([&] { return pub->shm_subscribers() > 0 && pub->wire_readers() > 0; }, 30s));
  for (int i = 0; i < n; ++i)
    ASSERT_TRUE(pub->publish(string_value(*string_t_, "baton " + std::to_string(i))).has_value());
  std::printf("sent %d wire=%llu foreign=%u\n", n,
              static_cast<unsigned long long>(pub->wire_samples()), pub->wire_foreign_readers());
  std::fflush(stdout);
  std::string line;
  std::getline(std::cin, line);  // the test's "done": until then this publisher stays matched
}

// One baton publisher (this process), one baton subscriber (another process, same shared-memory
// domain, with its own DDS reader), one rclpy subscriber on Fast DDS: every message arrives
// exactly once at each — the baton one through shared memory only (the DDS copies meant for
// rclpy are dropped by tag), rclpy through DDS.
TEST_F(WireNative, baton_to_baton_and_rclpy_each_message_arrives_exactly_once) {
  auto node = Node::create(ctx_, *wire_, "exactly_once", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos q;
  q.depth = 100;
  const std::string topic = "/wi/once_" + suffix_;
  auto pub = Publisher::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  const std::string n = std::to_string(EXACTLY_ONCE_N);
  auto child = baton_child("wire_subscriber", {{"BATON_WIRE_CHILD_TOPIC", topic},
                                               {"BATON_WIRE_CHILD_COUNT", n},
                                               {"BATON_WIRE_CHILD_DROPS", n}});
  auto rclpy = peer({"count", topic, n, "90"});
  ASSERT_TRUE(child->wait_for_output("ready", 30s)) << child->output();
  ASSERT_TRUE(rclpy->wait_for_output("ready", 60s)) << rclpy->output();
  // Two DDS readers matched, of which only rclpy's is foreign; one baton subscriber in shm.
  ASSERT_TRUE(eventually(
      [&] {
        return pub->wire_readers() == 2 && pub->wire_foreign_readers() == 1 &&
               pub->shm_subscribers() == 1;
      },
      30s))
      << "readers " << pub->wire_readers() << " foreign " << pub->wire_foreign_readers() << " shm "
      << pub->shm_subscribers();
  // rclpy's side of the match (its matched event): a volatile reader that matches after the first
  // samples went out never gets them.
  ASSERT_TRUE(rclpy->wait_for_output("matched", 60s)) << rclpy->output();
  for (int i = 0; i < EXACTLY_ONCE_N; ++i)
    ASSERT_TRUE(pub->publish(string_value(*string_t_, "msg " + std::to_string(i))).has_value());
  EXPECT_EQ(pub->wire_samples(), static_cast<uint64_t>(EXACTLY_ONCE_N));  // one write each

  int code = -1;
  ASSERT_TRUE(rclpy->wait_exit(60s, &code)) << rclpy->output();
  EXPECT_EQ(code, 0) << rclpy->output();
  EXPECT_NE(rclpy->output().find("summary received=" + n + " unique=" + n), std::string::npos)
      << rclpy->output();
  ASSERT_TRUE(child->wait_exit(60s, &code)) << child->output();
  EXPECT_EQ(code, 0) << child->output();
  EXPECT_NE(child->output().find("summary shm=" + n + " wire=0 unique=" + n + " received=" + n +
                                 " dropped_same_tag=" + n),
            std::string::npos)
      << child->output();
}

// rclpy publisher -> baton subscription through DDS, while a same-tag baton publisher in another
// process feeds the same subscription through shared memory: each message once, by its path.
TEST_F(WireNative, rclpy_and_baton_publishers_to_baton_subscription_each_message_once) {
  auto node = Node::create(ctx_, *wire_, "once_in", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos q;
  q.depth = 200;
  const std::string topic = "/wi/once_in_" + suffix_;
  auto sub = Subscription::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  const std::string n = std::to_string(EXACTLY_ONCE_N);
  auto child = baton_child("wire_publisher",
                           {{"BATON_WIRE_CHILD_TOPIC", topic}, {"BATON_WIRE_CHILD_COUNT", n}});
  auto rclpy = peer({"talk", topic, n, "60", "gated"});
  // The rclpy writer matched our reader, and our reader the writer (rclpy's and the child's):
  // only then does a volatile reader get the first samples.
  ASSERT_TRUE(rclpy->wait_for_output("matched", 60s)) << rclpy->output();
  ASSERT_TRUE(eventually([&] { return (*sub)->wire_writers() >= 2; }, 60s))
      << (*sub)->wire_writers() << "\n"
      << child->output() << rclpy->output();
  ASSERT_TRUE(rclpy->send_line("go"));
  Received r;
  eventually([&] { return r.drain(**sub), r.seen.size() >= 2 * EXACTLY_ONCE_N; }, 60s);
  r.linger(**sub, 1000ms);
  ASSERT_TRUE(child->send_line("done"));
  EXPECT_EQ(r.seen.size(), 2u * EXACTLY_ONCE_N) << child->output() << rclpy->output();
  EXPECT_EQ(r.count, r.seen.size());
  EXPECT_EQ((*sub)->from_wire(), static_cast<uint64_t>(EXACTLY_ONCE_N));
  EXPECT_EQ((*sub)->from_shm(), static_cast<uint64_t>(EXACTLY_ONCE_N));
  EXPECT_EQ(r.seen.count("rclpy 0"), 1u);
  EXPECT_EQ(r.seen.count("baton " + std::to_string(EXACTLY_ONCE_N - 1)), 1u);
  int code = -1;
  ASSERT_TRUE(child->wait_exit(30s, &code)) << child->output();
  // Its only DDS reader was ours (same tag): nothing went on the wire.
  EXPECT_NE(child->output().find("sent " + n + " wire=0 foreign=0"), std::string::npos)
      << child->output();
}

}  // namespace
}  // namespace baton::ros2

namespace baton::ros2 {
namespace {

using test::H4K;
using test::pattern_4k;
using test::sha256_hex;
using test::W4K;

// A 4K camera stream each way at 10 Hz (reliable, keep last 10): at least 95 % of the images
// arrive with every byte equal, and the first one, published as soon as the rclpy subscription
// matched, among them.
TEST_F(WireNative, image_4k_stream_baton_to_rclpy_and_back_at_camera_rate) {
  const MessageDescription* image_t = *registry_.message("sensor_msgs/msg/Image");
  auto node = Node::create(ctx_, *wire_, "camera_4k", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos q;
  q.depth = 10;
  const auto data = pattern_4k();

  // baton -> rclpy
  const std::string out_topic = "/wi/image_out_" + suffix_;
  auto pub = Publisher::create(**node, *image_t, out_topic, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  Value img = default_value(*image_t);
  img.at(*image_t, "header").items[1].str = "baton_4k";  // header.frame_id
  img.at(*image_t, "height") = Value::of<uint32_t>(H4K);
  img.at(*image_t, "width") = Value::of<uint32_t>(W4K);
  img.at(*image_t, "encoding").str = "rgb8";
  img.at(*image_t, "step") = Value::of<uint32_t>(W4K * 3);
  img.at(*image_t, "data").raw = data;
  auto listener = peer({"image-listen", out_topic, "90", std::to_string(test::kCameraImages)});
  ASSERT_TRUE(eventually([&] { return pub->wire_foreign_readers() > 0; }, 60s))
      << listener->output();
  const auto start = std::chrono::steady_clock::now();
  for (int seq = 0; seq < test::kCameraImages; ++seq) {
    std::this_thread::sleep_until(start + seq * std::chrono::milliseconds(1000 / test::kCameraHz));
    test::set_image_seq(img, *image_t, seq);
    ASSERT_TRUE(pub->publish(img).has_value());
  }
  int code = -1;
  EXPECT_TRUE(listener->wait_exit(90s, &code)) << listener->output();
  const auto intact = test::intact_images(listener->output(), "baton_4k");
  EXPECT_GE(static_cast<int>(intact.size()), test::kCameraMinDelivered) << listener->output();
  EXPECT_TRUE(intact.count(0)) << "the first image did not arrive\n" << listener->output();

  // rclpy -> baton
  const std::string in_topic = "/wi/image_in_" + suffix_;
  auto sub = Subscription::create(**node, *image_t, in_topic, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto talker = peer({"image-talk", in_topic, "90", std::to_string(test::kCameraHz),
                      std::to_string(test::kCameraImages)});
  std::set<int32_t> got;
  auto last_new = std::chrono::steady_clock::now();
  eventually(  // until all came, or 15 s without a new one once some did (as image-listen)
      [&] {
        const size_t before = got.size();
        (*sub)->wait(100ms);
        while (auto s = (*sub)->take()) {
          EXPECT_TRUE(s->from_wire);
          const Value& v = s->value;
          EXPECT_EQ(v.at(*image_t, "header").items[1].str, "rclpy_4k");
          EXPECT_EQ(v.at(*image_t, "width").as<uint32_t>(), W4K);
          EXPECT_EQ(v.at(*image_t, "height").as<uint32_t>(), H4K);
          EXPECT_EQ(v.at(*image_t, "encoding").str, "rgb8");
          EXPECT_EQ(v.at(*image_t, "step").as<uint32_t>(), W4K * 3);
          if (v.at(*image_t, "data").raw == data) got.insert(test::image_seq(v, *image_t));
        }
        if (got.size() != before) last_new = std::chrono::steady_clock::now();
        return static_cast<int>(got.size()) == test::kCameraImages ||
               (!got.empty() && std::chrono::steady_clock::now() - last_new > 15s);
      },
      90s);
  EXPECT_GE(static_cast<int>(got.size()), test::kCameraMinDelivered) << talker->output();
}

// QoS durability on the wire: a transient-local baton publisher's last `depth` messages reach an
// rclpy subscription that starts after they were published (keep last 5 of 7).
TEST_F(WireNative, transient_local_history_reaches_late_rclpy_subscriber) {
  auto node = Node::create(ctx_, *wire_, "latched", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos q;
  q.transient_local = true;
  q.depth = 5;
  const std::string topic = "/wi/latched_" + suffix_;
  auto pub = Publisher::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  for (int i = 0; i < 7; ++i)
    ASSERT_TRUE(pub->publish(string_value(*string_t_, "tl " + std::to_string(i))).has_value());
  EXPECT_EQ(pub->wire_foreign_readers(), 0u);
  EXPECT_EQ(pub->wire_samples(), 7u);  // written anyway: the DDS writer keeps the history

  auto late = peer({"count", topic, "5", "60", "transient-local", "depth=5"});
  int code = -1;
  ASSERT_TRUE(late->wait_exit(90s, &code)) << late->output();
  const std::string out = late->output();
  EXPECT_EQ(code, 0) << out;
  for (int i = 2; i < 7; ++i)
    EXPECT_NE(out.find("got tl " + std::to_string(i) + "\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("got tl 0\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("got tl 1\n"), std::string::npos) << out;
}

// Bad input on the wire: a plain DDS writer (no baton tag) sends malformed CDR on the topic. Every
// bad sample is dropped, counted and logged; the good one after them still arrives; no crash.
TEST_F(WireNative, malformed_cdr_from_dds_writer_is_dropped_counted_and_logged) {
  auto node = Node::create(ctx_, *wire_, "victim", "/wi");
  ASSERT_TRUE(node.has_value()) << node.error().detail;
  WireQos q;
  q.depth = 1000;
  const std::string topic = "/wi/garbage_" + suffix_;
  auto sub = Subscription::create(**node, *string_t_, topic, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto rogue_part = DdsParticipant::create(DOMAIN_ID, true);
  ASSERT_TRUE(rogue_part.has_value()) << rogue_part.error().detail;
  WireQos rq;
  rq.depth = 1000;
  auto rogue = rogue_part->create_writer(dds_topic_name(topic), string_t_->dds_type_name(), rq);
  ASSERT_TRUE(rogue.has_value()) << rogue.error().detail;
  ASSERT_TRUE(eventually([&] { return rogue->matched_readers() > 0; }, 20s));

  std::vector<std::vector<uint8_t>> bad = {
      {0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f},        // string length 2^31 - 1
      {0, 1, 0, 0, 5, 0, 0, 0, 'a', 'b', 'c'},     // truncated string
      {0, 1, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 0},  // no NUL where the length says
      {0, 1, 0, 0, 0, 0, 0, 0},                    // zero length (no NUL at all)
      {0, 0, 0, 0, 0, 0, 0, 4, 'a', 'b', 'c', 0},  // big-endian CDR (unsupported)
      {0, 1, 0, 0},                                // header only
  };
  std::mt19937 rng(67);
  for (int i = 0; i < 200; ++i) {  // random bodies behind a valid header
    std::vector<uint8_t> s = {0, 1, 0, 0};
    s.resize(4 + rng() % 64);
    for (size_t k = 4; k < s.size(); ++k) s[k] = static_cast<uint8_t>(rng());
    bad.push_back(std::move(s));
  }
  ::testing::internal::CaptureStderr();
  for (const auto& s : bad) ASSERT_TRUE(rogue->write(s).has_value());
  auto good = encode(*string_t_, string_value(*string_t_, "after the garbage"));
  ASSERT_TRUE(good.has_value());
  ASSERT_TRUE(rogue->write(*good).has_value());

  bool got_good = false;
  uint64_t decoded = 0;
  eventually(
      [&] {
        (*sub)->wait(50ms);
        while (auto s = (*sub)->take()) {
          ++decoded;
          got_good = got_good || s->value.items[0].str == "after the garbage";
        }
        return got_good;
      },
      30s);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(got_good);
  // Each sample was either decoded (a random body can be a valid string) or dropped; the six
  // hand-made ones are all bad.
  EXPECT_EQ((*sub)->malformed() + decoded, bad.size() + 1);
  EXPECT_GE((*sub)->malformed(), 6u);
  EXPECT_NE(log.find("[baton_ros2] " + topic +
                     ": dropped a malformed std_msgs/msg/String sample "
                     "from DDS"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace baton::ros2
