// The DDS wire prototype against real rclpy on rmw_fastrtps_cpp, both directions:
// baton (CycloneDDS raw CDR writer on rt/<topic>) -> rclpy subscriber, and
// rclpy publisher -> baton raw reader -> baton's CDR decoder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "../../src/ros2/dds_wire.hpp"
#include "baton/baton.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

const uint32_t DOMAIN_ID = test::domain_id(57);  // this suite's own ROS_DOMAIN_ID

bool localhost_only() {
  const char* range = std::getenv("BATON_TEST_DISCOVERY_RANGE");
  return range == nullptr || std::string_view(range) == "LOCALHOST";
}

// .venv-ros's python on rclpy_wire_peer.py, on this suite's domain, discovery range LOCALHOST.
std::unique_ptr<test::RclpyProcess> spawn_peer(const std::vector<std::string>& args) {
  const char* range = std::getenv("BATON_TEST_DISCOVERY_RANGE");
  return std::make_unique<test::RclpyProcess>(
      "rclpy_wire_peer.py", args,
      test::Env{{"ROS_DOMAIN_ID", std::to_string(DOMAIN_ID)},
                {"ROS_AUTOMATIC_DISCOVERY_RANGE", range != nullptr ? range : "LOCALHOST"}});
}

class WireRclpy : public ::testing::Test {
 protected:
  void SetUp() override {
#if !BATON_HAVE_CYCLONEDDS
    GTEST_SKIP() << "built without CycloneDDS (apt install cyclonedds-dev)";
#endif
    BATON_REQUIRE_ROS_VENV();
    registry_.add_share_root(test::ros_venv() / "share");
    string_t_ = *registry_.message("std_msgs/msg/String");
    topic_ = "/baton_wire_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  TypeRegistry registry_;
  const MessageDescription* string_t_ = nullptr;
  std::string topic_;
  std::unique_ptr<test::RclpyProcess> peer_;
};

TEST_F(WireRclpy, create_writer_with_empty_topic_returns_endpoint_error) {
  auto part = DdsParticipant::create(DOMAIN_ID, localhost_only());
  ASSERT_TRUE(part.has_value()) << part.error().detail;
  auto w = part->create_writer("", string_t_->dds_type_name());
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().code, WireError::Endpoint);
  EXPECT_EQ(dds_topic_name("/chatter"), "rt/chatter");
  EXPECT_EQ(dds_topic_name("/add", "rq"), "rq/add");
}

TEST_F(WireRclpy, baton_writer_reaches_rclpy_subscriber) {
  auto part = DdsParticipant::create(DOMAIN_ID, localhost_only());
  ASSERT_TRUE(part.has_value()) << part.error().detail;
  auto w = part->create_writer(dds_topic_name(topic_), string_t_->dds_type_name());
  ASSERT_TRUE(w.has_value()) << w.error().detail;
  peer_ = spawn_peer({"listen", topic_, "3", "30"});
  ASSERT_GT(peer_->pid(), 0);
  int status = -1;
  bool exited = false;
  const auto deadline = std::chrono::steady_clock::now() + 40s;
  for (int n = 0; std::chrono::steady_clock::now() < deadline; ++n) {
    if (peer_->exited(&status)) {
      exited = true;
      break;
    }
    if (w->matched_readers() > 0) {
      Value v = default_value(*string_t_);
      v.items[0].str = "hello from baton " + std::to_string(n);
      auto bytes = encode(*string_t_, v);
      ASSERT_TRUE(bytes.has_value());
      ASSERT_TRUE(w->write(*bytes).has_value());
    }
    std::this_thread::sleep_for(100ms);
  }
  const std::string out = peer_->output();
  ASSERT_TRUE(exited) << "rclpy listener did not finish; its output:\n" << out;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_NE(out.find("hello from baton"), std::string::npos) << out;
}

TEST_F(WireRclpy, rclpy_publisher_reaches_baton_reader) {
  auto part = DdsParticipant::create(DOMAIN_ID, localhost_only());
  ASSERT_TRUE(part.has_value()) << part.error().detail;
  auto r = part->create_reader(dds_topic_name(topic_), string_t_->dds_type_name());
  ASSERT_TRUE(r.has_value()) << r.error().detail;
  peer_ = spawn_peer({"talk", topic_, "30"});
  ASSERT_GT(peer_->pid(), 0);
  auto sample = r->take(30s);
  ASSERT_TRUE(sample.has_value()) << "nothing from rclpy; its output:\n" << peer_->output();
  auto v = decode(*string_t_, *sample);
  ASSERT_TRUE(v.has_value()) << v.error().detail;
  EXPECT_EQ(v->items[0].str.rfind("from rclpy ", 0), 0u) << v->items[0].str;
}

// One baton publisher, two kinds of subscriber: a local baton subscription reads the CDR bytes
// from shared memory, an rclpy subscription (Fast DDS) gets them from the wire.
TEST_F(WireRclpy, ros2_publisher_feeds_shm_and_wire) {
  auto part = DdsParticipant::create(DOMAIN_ID, localhost_only());
  ASSERT_TRUE(part.has_value()) << part.error().detail;
  auto ctx = Context::create();
  baton::Node node(ctx, "wire_test");
  auto sub = node.raw_subscription(topic_, type_info(*string_t_)).qos(QoS(10)).create();
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto pub = Publisher::create(node, *string_t_, topic_, &*part);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  // Nothing matched on DDS yet: shared memory only.
  Value v = default_value(*string_t_);
  v.items[0].str = "local only";
  ASSERT_TRUE(pub->publish(v).has_value());
  EXPECT_EQ(pub->wire_samples(), 0u);
  ASSERT_TRUE((*sub)->wait(5s));
  auto first = (*sub)->take();
  ASSERT_TRUE(first.has_value());
  auto dec =
      decode(*string_t_, std::span(reinterpret_cast<const uint8_t*>(first->data()), first->size()));
  ASSERT_TRUE(dec.has_value()) << dec.error().detail;
  EXPECT_EQ(dec->items[0].str, "local only");

  peer_ = spawn_peer({"listen", topic_, "3", "30"});
  ASSERT_GT(peer_->pid(), 0);
  int status = -1, local = 0;
  bool exited = false;
  const auto deadline = std::chrono::steady_clock::now() + 40s;
  for (int n = 0; std::chrono::steady_clock::now() < deadline; ++n) {
    if (peer_->exited(&status)) {
      exited = true;
      break;
    }
    v.items[0].str = "hello from baton " + std::to_string(n);
    ASSERT_TRUE(pub->publish(v).has_value());
    while (auto s = (*sub)->take()) ++local;
    std::this_thread::sleep_for(100ms);
  }
  const std::string out = peer_->output();
  ASSERT_TRUE(exited) << out;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_GE(pub->wire_samples(), 3u);
  EXPECT_GT(local, 0);
}

}  // namespace
}  // namespace baton::ros2
