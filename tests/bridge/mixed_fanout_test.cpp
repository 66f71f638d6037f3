// One loan, every kind of subscriber (issue 19 item 4), with real peers: one native baton ROS 2
// publisher reaches, at once, a native baton subscription (shared memory), an rclpy subscriber on
// rmw_baton_cpp (shared memory), an rclpy subscriber on Fast DDS (the DDS wire), two rospy
// listeners and a roscpp listener on a private roscore (TCPROS, through a Ros1Mirror) and a baton
// ROS 1 subscription (BATONSHM from the mirror's publication): each gets every message exactly
// once and in order, with the same bytes, and the mirror converts each message once however many
// ROS 1 listeners there are. No sleeps: every step waits for a printed line or a count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "baton/api/context.hpp"
#include "baton/bridge/ros1_mirror.hpp"
#include "baton/bridge/ros2_mirror.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/shm/naming.hpp"
#include "ros1/ros1_graph_fixture.hpp"
#include "ros1/ros1_test_env.hpp"
#include "ros2/image_4k.hpp"
#include "ros2/rmw_peers.hpp"
#include "test_util.hpp"

namespace baton::bridge {
namespace {

using namespace std::chrono_literals;
using baton::testing::eventually;

constexpr auto GUARD = std::chrono::seconds(120);  // only keeps a broken build from hanging
constexpr int N = 100;                             // "msg 0" .. "msg 99", then "end"

std::vector<std::string> expected_strings() {
  std::vector<std::string> out;
  for (int i = 0; i < N; ++i) out.push_back("msg " + std::to_string(i));
  out.push_back("end");
  return out;
}

// A ROS 1 peer's exit status once it exits by itself (-1 if it has not within GUARD: a test
// that lost a message fails instead of hanging).
int exit_code(ros1::test::Child& peer) {
  int code = -1;
  return peer.wait_exit(GUARD, &code) ? code : -1;
}

// The lines of `out` that start with `prefix`, the prefix cut off.
std::vector<std::string> lines_after(const std::string& out, const std::string& prefix) {
  std::vector<std::string> got;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) got.push_back(line.substr(prefix.size()));
  return got;
}

class MixedFanout : public ros2::test::RmwPeers {
 protected:
  MixedFanout() : RmwPeers(ros2::test::domain_id_str(62)) {}  // this suite's own ROS_DOMAIN_ID

  void SetUp() override {
    RmwPeers::SetUp();
    if (IsSkipped()) return;
    // The shared-memory domain rmw_baton_cpp joins for this ROS_DOMAIN_ID
    // (src/ros2/rmw/domain.hpp): this process's native endpoints and BATONSHM live there too.
    shm::set_process_namespace(namespace_ + "-d" + domain_id_);
    BATON_REQUIRE_CYCLONEDDS();
    if (auto why = ros1::test::missing_ros1(); !why.empty()) GTEST_FAIL() << why;
    core_ = std::make_unique<ros1::test::Roscore>();
    ASSERT_TRUE(core_->ready()) << "roscore did not start:\n" << core_->log();
    registry_.add_share_root(ros2::test::ros_venv() / "share");
    auto wire = ros2::Participant::create(registry_, std::stoul(domain_id_), true);
    ASSERT_TRUE(wire) << wire.error().detail;
    wire_ = std::move(*wire);
    ctx_ = Context::create();
    auto node = ros2::Node::create(ctx_, *wire_, "camera", "/fan");
    ASSERT_TRUE(node) << node.error().detail;
    ros2_node_ = std::move(*node);
    ros1::NodeOptions o;
    o.master_uri = core_->uri();
    o.host = "127.0.0.1";
    auto ros1_node = ros1::Node::create("camera_ros1", o);
    ASSERT_TRUE(ros1_node) << ros1_node.error().detail;
    ros1_node_ = std::move(*ros1_node);
    topic_ = "/fan/t" + std::to_string(::getpid());
  }
  void TearDown() override {
    mirror_.reset();
    peers_.clear();
    ros1_node_.reset();
    ros2_node_.reset();
    ctx_.reset();
    shm::set_process_namespace("");
    RmwPeers::TearDown();
  }

  // rclpy on rmw_baton_cpp: BATON_NAMESPACE = namespace_, so it joins namespace_-d<domain>.
  ros2::test::RclpyProcess& rclpy_on_baton(const std::vector<std::string>& args) {
    return on_baton(args, "rclpy_native_peer.py");
  }

  ros2::TypeRegistry registry_;
  std::unique_ptr<ros2::Participant> wire_;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<ros2::Node> ros2_node_;
  std::shared_ptr<ros1::Node> ros1_node_;
  std::unique_ptr<ros1::test::Roscore> core_;
  std::unique_ptr<Ros1Mirror> mirror_;
  std::string topic_;
};

TEST_F(MixedFanout,
       one_string_publisher_reaches_native_rmw_baton_fast_dds_rospy_and_roscpp_once_each) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  ros2::WireQos q;
  q.depth = N + 10;  // the whole burst fits every history: nothing lost to keep-last
  auto pub = ros2::Publisher::create(*ros2_node_, *string_t, topic_, q);
  ASSERT_TRUE(pub) << pub.error().detail;
  // The mirror's queue per TCPROS subscriber holds the whole burst as well: with the default 100,
  // a listener whose sender thread has not run by the 101st message loses the oldest one.
  auto mirror = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub, {.queue_size = q.depth});
  ASSERT_TRUE(mirror) << mirror.error().detail;
  mirror_ = std::move(*mirror);
  auto native = ros2::Subscription::create(*ros2_node_, *string_t, topic_, q);
  ASSERT_TRUE(native) << native.error().detail;

  const std::string n = std::to_string(N + 1);
  auto& on_baton_rmw = rclpy_on_baton({"count", topic_, n, "90"});
  auto& on_dds = on_fast_dds({"count", topic_, n, "90"}, "rclpy_native_peer.py");
  auto rospy_a = core_->peer({"string-listener", topic_});
  auto rospy_b = core_->peer({"string-listener", topic_});
  if (std::string(BATON_ROSCPP_PEER).empty())
    GTEST_FAIL() << "the roscpp peer was not built: install libroscpp-dev "
                    "(scripts/install-ros1.sh) and re-run cmake";
  ros1::test::Child roscpp({BATON_ROSCPP_PEER, "string-listener", topic_}, core_->env());
  // A baton ROS 1 node on the same graph: it negotiates BATONSHM with the mirror's publication and
  // reads the ROS 1 topic's own baton topic, never the ROS 2 one: once as well.
  ros1::NodeOptions o;
  o.master_uri = core_->uri();
  o.host = "127.0.0.1";
  auto baton_ros1 = ros1::Node::create("listener_ros1", o);
  ASSERT_TRUE(baton_ros1) << baton_ros1.error().detail;
  ros1::test::Strings strings;
  strings.type = *(*baton_ros1)->types().message("std_msgs/String");
  auto baton_sub = (*baton_ros1)->subscribe(topic_, "std_msgs/String", strings.sink());
  ASSERT_TRUE(baton_sub) << baton_sub.error().detail;
  ASSERT_TRUE((*baton_sub)->wait_for_publishers(1, GUARD));
  ASSERT_TRUE(on_baton_rmw.wait_for_output("ready", 60s)) << on_baton_rmw.output();
  ASSERT_TRUE(on_dds.wait_for_output("matched", 60s)) << on_dds.output();
  ASSERT_TRUE(rospy_a->listening()) << rospy_a->output();
  ASSERT_TRUE(rospy_b->listening()) << rospy_b->output();
  ASSERT_TRUE(mirror_->ros1_publisher().wait_for_tcpros_subscribers(3, GUARD))
      << rospy_a->output() << rospy_b->output() << roscpp.output();
  // Shared memory: the mirror, the native subscription and rmw_baton_cpp's; DDS: Fast DDS only.
  ASSERT_TRUE(eventually(
      [&] { return pub->shm_subscribers() == 3 && pub->wire_foreign_readers() == 1; }, 60s))
      << "shm " << pub->shm_subscribers() << " foreign " << pub->wire_foreign_readers();

  const auto expected = expected_strings();
  for (const auto& s : expected) {
    ros2::Value v = ros2::default_value(*string_t);
    v.items[0].str = s;
    ASSERT_TRUE(pub->publish(v)) << s;
  }

  // Native: every message once, in order, from shared memory.
  std::vector<std::string> native_got;
  while (native_got.size() < expected.size() && (*native)->wait(GUARD)) {
    while (auto m = (*native)->take()) {
      EXPECT_FALSE(m->from_wire);
      native_got.push_back(m->value.items[0].str);
    }
  }
  EXPECT_EQ(native_got, expected);
  EXPECT_FALSE((*native)->take());
  // rospy (TCPROS through the mirror): each listener every message once, in order.
  for (auto* rospy : {rospy_a.get(), rospy_b.get()}) {
    EXPECT_EQ(exit_code(*rospy), 0) << rospy->output();
    EXPECT_EQ(lines_after(rospy->output(), "got "), expected) << rospy->output();
  }
  // roscpp (TCPROS through the mirror) as well.
  EXPECT_EQ(exit_code(roscpp), 0) << roscpp.output();
  EXPECT_EQ(lines_after(roscpp.output(), "got "), expected) << roscpp.output();
  // The baton ROS 1 subscriber: once each, in order, in place over BATONSHM.
  ASSERT_TRUE(strings.wait_for("end"));
  {
    std::lock_guard lock(strings.mutex);
    EXPECT_EQ(strings.got, expected);
    EXPECT_EQ(strings.transports, std::vector<std::string>(expected.size(), "BATONSHM"));
  }
  // rclpy on rmw_baton_cpp (shared memory) and on Fast DDS (DDS): once each, in order.
  for (auto* rclpy : {&on_baton_rmw, &on_dds}) {
    EXPECT_EQ(finished(*rclpy), 0) << rclpy->output();
    EXPECT_EQ(lines_after(rclpy->output(), "got "), expected) << rclpy->output();
    EXPECT_NE(rclpy->output().find("summary received=" + n + " unique=" + n), std::string::npos)
        << rclpy->output();
  }
  // Written once into the loan; converted once per message for the three TCPROS listeners (and
  // the BATONSHM one); one DDS write per message for Fast DDS.
  const auto stats = mirror_->stats();
  EXPECT_EQ(stats.converted, expected.size());
  EXPECT_EQ(stats.malformed, 0u);
  EXPECT_EQ(mirror_->ros1_publisher().wire().stats().sent, 3 * expected.size());
  EXPECT_EQ(mirror_->ros1_publisher().wire().stats().dropped, 0u);
  EXPECT_EQ(pub->wire_samples(), expected.size());
}

TEST_F(MixedFanout, one_4k_image_reaches_native_rmw_baton_and_rospy_with_equal_bytes) {
  const auto* image_t = *registry_.message("sensor_msgs/msg/Image");
  ros2::WireQos q;
  auto pub = ros2::Publisher::create(*ros2_node_, *image_t, topic_, q);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto mirror = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub);
  ASSERT_TRUE(mirror) << mirror.error().detail;
  mirror_ = std::move(*mirror);
  auto native = ros2::Subscription::create(*ros2_node_, *image_t, topic_, q);
  ASSERT_TRUE(native) << native.error().detail;
  ros1::test::TempDir dir;
  const auto rospy_file = dir.path() / "rospy.bin";
  auto rospy = core_->peer({"image-listener", topic_, rospy_file.string()});
  ASSERT_TRUE(rospy->listening()) << rospy->output();
  auto& on_baton_rmw = rclpy_on_baton({"image-listen", topic_, "90", "1"});
  ASSERT_TRUE(on_baton_rmw.wait_for_output("ready", 60s)) << on_baton_rmw.output();
  ASSERT_TRUE(mirror_->ros1_publisher().wait_for_tcpros_subscribers(1, GUARD)) << rospy->output();
  ASSERT_TRUE(eventually([&] { return pub->shm_subscribers() == 3; }, 60s))
      << "shm " << pub->shm_subscribers();

  // Written once, in place: the loan's data array is filled, nothing else copies it on our side.
  const auto pattern = ros2::test::pattern_4k();
  ros2::Value shape = ros2::default_value(*image_t);
  shape.at(*image_t, "header").items[1].str = "rclpy_4k";
  shape.at(*image_t, "height") = ros2::Value::of<uint32_t>(ros2::test::H4K);
  shape.at(*image_t, "width") = ros2::Value::of<uint32_t>(ros2::test::W4K);
  shape.at(*image_t, "encoding") = ros2::Value::of_string("rgb8");
  shape.at(*image_t, "step") = ros2::Value::of<uint32_t>(ros2::test::W4K * 3);
  shape.at(*image_t, "data") = ros2::Value::reserved(pattern.size());
  auto loan = pub->loan(shape);
  ASSERT_TRUE(loan) << loan.error().detail;
  auto room = loan->array("data");
  ASSERT_EQ(room.size(), pattern.size());
  std::copy(pattern.begin(), pattern.end(), room.begin());
  ASSERT_TRUE(pub->publish(std::move(*loan)));

  ASSERT_TRUE((*native)->wait(GUARD));
  auto seen = (*native)->take_view();
  ASSERT_TRUE(seen);
  const auto data = seen->value().at(*image_t, "data").bytes();
  EXPECT_TRUE(std::equal(data.begin(), data.end(), pattern.begin(), pattern.end()));
  EXPECT_FALSE(seen->from_wire());

  EXPECT_EQ(exit_code(*rospy), 0) << rospy->output();
  EXPECT_TRUE(
      rospy->output_has("image 3840x2160 rgb8 step 11520 seq 1 frame rclpy_4k bytes "
                        "24883200"))
      << rospy->output();
  std::ifstream f(rospy_file, std::ios::binary);
  const std::vector<uint8_t> rospy_bytes{std::istreambuf_iterator<char>(f), {}};
  EXPECT_EQ(ros2::test::sha256_hex(rospy_bytes), ros2::test::sha256_hex(pattern));

  EXPECT_EQ(finished(on_baton_rmw), 0) << on_baton_rmw.output();
  EXPECT_EQ(ros2::test::intact_images(on_baton_rmw.output(), "rclpy_4k"), std::set<int>{0})
      << on_baton_rmw.output();
  EXPECT_EQ(mirror_->stats().converted, 1u);
  // ROS 1 Image: header (seq, stamp, "rclpy_4k") 24, height / width 8, "rgb8" 8, is_bigendian 1,
  // step 4, data 4 + 24 883 200.
  EXPECT_EQ(mirror_->stats().bytes, 24 + 8 + 8 + 1 + 4 + 4 + 24883200u);
}

// Nobody on the ROS 1 side: the mirror takes each sample and converts nothing.
TEST_F(MixedFanout, without_ros1_subscribers_nothing_is_converted) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  auto pub = ros2::Publisher::create(*ros2_node_, *string_t, topic_);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto mirror = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub);
  ASSERT_TRUE(mirror) << mirror.error().detail;
  mirror_ = std::move(*mirror);
  ASSERT_EQ(pub->shm_subscribers(), 1u);
  ros2::Value v = ros2::default_value(*string_t);
  v.items[0].str = "unheard";
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pub->publish(v));
  ASSERT_TRUE(eventually([&] { return mirror_->stats().taken == 5; }, GUARD));
  EXPECT_EQ(mirror_->stats().unread, 5u);
  EXPECT_EQ(mirror_->stats().converted, 0u);
}

// A publisher that writes CDR which lies (a string length past the sample's end) on the topic:
// the mirror drops that sample with a logged reason and goes on; rospy gets the good ones only.
TEST_F(MixedFanout, a_sample_that_does_not_convert_is_dropped_with_a_logged_reason) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  auto pub = ros2::Publisher::create(*ros2_node_, *string_t, topic_);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto liar = ros2_node_->node().raw_publisher(topic_, ros2::type_info(*string_t)).create();
  ASSERT_TRUE(liar) << liar.error().detail;
  ros1::test::LogCapture log;
  auto mirror = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub, {.log = log.handler()});
  ASSERT_TRUE(mirror) << mirror.error().detail;
  mirror_ = std::move(*mirror);
  auto rospy = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(rospy->listening()) << rospy->output();
  ASSERT_TRUE(mirror_->ros1_publisher().wait_for_tcpros_subscribers(1, GUARD)) << rospy->output();
  auto publish = [&](const std::string& text) {
    ros2::Value v = ros2::default_value(*string_t);
    v.items[0].str = text;
    ASSERT_TRUE(pub->publish(v));
  };
  publish("before");
  const uint8_t lying[] = {0, 1, 0, 0, 0xf0, 0xff, 0xff, 0x7f, 'x', 0};  // 2 GiB string length
  ASSERT_TRUE(liar->publish_copy(lying, sizeof lying));
  publish("end");
  EXPECT_EQ(exit_code(*rospy), 0) << rospy->output();
  EXPECT_EQ(lines_after(rospy->output(), "got "), (std::vector<std::string>{"before", "end"}));
  // The two publishers' samples need not be taken in publish order: wait for the refusal itself.
  EXPECT_TRUE(log.wait_for("a sample of 10 bytes does not convert", "std_msgs/msg/String.data"));
  EXPECT_EQ(mirror_->stats().malformed, 1u);
  EXPECT_EQ(mirror_->stats().converted, 2u);
}

// A latched mirror (for a transient-local ROS 2 topic): a rospy listener that starts after the
// last message was published gets it, converted while nobody listened.
TEST_F(MixedFanout, a_latched_mirror_gives_a_late_rospy_listener_the_last_message) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  auto pub = ros2::Publisher::create(*ros2_node_, *string_t, topic_);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto mirror = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub,
                                   {.ros1_topic = topic_ + "_ros1", .latch = true});
  ASSERT_TRUE(mirror) << mirror.error().detail;
  mirror_ = std::move(*mirror);
  EXPECT_EQ(mirror_->ros1_publisher().topic(), topic_ + "_ros1");
  ros2::Value v = ros2::default_value(*string_t);
  v.items[0].str = "end";
  ASSERT_TRUE(pub->publish(v));
  ASSERT_TRUE(eventually([&] { return mirror_->stats().converted == 1; }, GUARD));
  auto rospy = core_->peer({"string-listener", topic_ + "_ros1"});
  EXPECT_EQ(exit_code(*rospy), 0) << rospy->output();
  EXPECT_EQ(lines_after(rospy->output(), "got "), std::vector<std::string>{"end"});
}

// The other direction (Ros2Mirror): a rospy talker reaches a native subscription and rclpy on
// rmw_baton_cpp, each message once and in order; a Ros1Mirror of the same topic on the same
// ROS 1 node is not fed back (its messages are the mirror's own).
TEST_F(MixedFanout, a_rospy_talker_reaches_native_and_rmw_baton_subscribers_through_a_ros2_mirror) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  ros2::WireQos q;
  q.depth = N + 10;
  auto mirror = Ros2Mirror::create(*ros1_node_, *ros2_node_, *string_t, topic_, {.qos = q});
  ASSERT_TRUE(mirror) << mirror.error().detail;
  auto native = ros2::Subscription::create(*ros2_node_, *string_t, topic_, q);
  ASSERT_TRUE(native) << native.error().detail;
  const std::string n = std::to_string(N + 1);
  auto& on_baton_rmw = rclpy_on_baton({"count", topic_, n, "90"});
  ASSERT_TRUE(on_baton_rmw.wait_for_output("ready", 60s)) << on_baton_rmw.output();
  ASSERT_TRUE(eventually([&] { return (*mirror)->ros2_publisher().shm_subscribers() == 2; }, 60s));
  auto talker = core_->peer({"string-talker", topic_, std::to_string(N)});
  EXPECT_EQ(exit_code(*talker), 0) << talker->output();

  const auto expected = expected_strings();
  std::vector<std::string> native_got;
  while (native_got.size() < expected.size() && (*native)->wait(GUARD)) {
    while (auto m = (*native)->take()) native_got.push_back(m->value.items[0].str);
  }
  EXPECT_EQ(native_got, expected);
  EXPECT_EQ(finished(on_baton_rmw), 0) << on_baton_rmw.output();
  EXPECT_EQ(lines_after(on_baton_rmw.output(), "got "), expected) << on_baton_rmw.output();
  EXPECT_EQ((*mirror)->stats().published, expected.size());
  EXPECT_EQ((*mirror)->stats().dropped, 0u);
}

// Both mirrors of one topic on one ROS 1 node, the reverse one's publisher skipped by the forward
// one: a native message goes out to ROS 1 once and is not fed back into ROS 2 (the reverse mirror
// drops its own node's messages), and a rospy talker's messages reach a rospy listener once (not
// echoed back by the forward mirror) and native subscribers once.
TEST_F(MixedFanout, mirrors_both_ways_on_one_node_neither_loop_nor_echo) {
  const auto* string_t = *registry_.message("std_msgs/msg/String");
  ros2::WireQos q;
  q.depth = N + 10;
  auto pub = ros2::Publisher::create(*ros2_node_, *string_t, topic_, q);
  ASSERT_TRUE(pub) << pub.error().detail;
  auto out = Ros1Mirror::create(*ros1_node_, *ros2_node_, *pub);
  ASSERT_TRUE(out) << out.error().detail;
  mirror_ = std::move(*out);
  auto back = Ros2Mirror::create(*ros1_node_, *ros2_node_, *string_t, topic_, {.qos = q});
  ASSERT_TRUE(back) << back.error().detail;
  mirror_->skip_publisher((*back)->ros2_publisher());
  auto native = ros2::Subscription::create(*ros2_node_, *string_t, topic_, q);
  ASSERT_TRUE(native) << native.error().detail;
  ASSERT_TRUE((*back)->ros1_subscription().wait_for_publishers(1, GUARD));

  ros2::Value v = ros2::default_value(*string_t);
  v.items[0].str = "native";
  ASSERT_TRUE(pub->publish(v));
  ASSERT_TRUE(eventually([&] { return (*back)->stats().own == 1; }, GUARD));
  EXPECT_EQ((*back)->stats().published, 0u);

  auto listener = core_->peer({"string-listener", topic_});
  ASSERT_TRUE(listener->listening()) << listener->output();
  ASSERT_TRUE(mirror_->ros1_publisher().wait_for_tcpros_subscribers(1, GUARD))
      << listener->output();
  // The talker starts once both the reverse mirror and the listener are connected to it.
  auto talker = core_->peer({"string-talker", topic_, std::to_string(N), "2"});
  EXPECT_EQ(exit_code(*talker), 0) << talker->output();
  EXPECT_EQ(exit_code(*listener), 0) << listener->output();
  const auto expected = expected_strings();
  EXPECT_EQ(lines_after(listener->output(), "got "), expected) << listener->output();
  std::vector<std::string> native_got;
  while (native_got.size() < expected.size() + 1 && (*native)->wait(GUARD)) {
    while (auto m = (*native)->take()) native_got.push_back(m->value.items[0].str);
  }
  std::vector<std::string> want = {"native"};
  want.insert(want.end(), expected.begin(), expected.end());
  EXPECT_EQ(native_got, want);
  EXPECT_EQ(mirror_->stats().converted, 1u);  // the native message only
  EXPECT_EQ(mirror_->stats().skipped, expected.size());
  EXPECT_EQ((*back)->stats().published, expected.size());
}

// A type without a ROS 1 counterpart, or one whose fields differ, is refused at set-up.
TEST_F(MixedFanout, a_type_that_does_not_pair_is_refused_at_set_up_naming_the_field) {
  const auto* range_t = *registry_.message("sensor_msgs/msg/Range");
  auto mirror = Ros1Mirror::create(*ros1_node_, ros2_node_->node(), *range_t, topic_);
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code, MirrorError::Types);
  EXPECT_NE(mirror.error().detail.find("sensor_msgs/msg/Range.variance"), std::string::npos)
      << mirror.error().detail;
  const auto* log_t = *registry_.message("rcl_interfaces/msg/Log");
  auto none = Ros1Mirror::create(*ros1_node_, ros2_node_->node(), *log_t, topic_);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, MirrorError::Types);
  EXPECT_NE(none.error().detail.find("rcl_interfaces/Log"), std::string::npos)
      << none.error().detail;
}

}  // namespace
}  // namespace baton::bridge
