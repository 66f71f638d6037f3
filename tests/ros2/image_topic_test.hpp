// A gtest fixture base for tests of sensor_msgs/msg/Image topics in one baton Node: the wheels'
// types, a Context and Node, and a topic name of its own per test (and process).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "baton/baton.hpp"
#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"

namespace baton::ros2::test {

class ImageTopicTest : public ::testing::Test {
 protected:
  // `node_name` names the baton Node; topics are "<topic_prefix>_<pid>_<test name>".
  ImageTopicTest(std::string node_name, std::string topic_prefix)
      : node_name_(std::move(node_name)), topic_prefix_(std::move(topic_prefix)) {}

  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    registry_.add_share_root(ros_venv() / "share");
    auto t = registry_.message("sensor_msgs/msg/Image");
    ASSERT_TRUE(t.has_value()) << t.error().detail;
    image_t_ = *t;
    ctx_ = Context::create();
    node_ = std::make_unique<baton::Node>(ctx_, node_name_);
    topic_ = topic_prefix_ + "_" + std::to_string(::getpid()) + "_" +
             baton::testing::current_test_name();
  }

  std::string node_name_, topic_prefix_;
  TypeRegistry registry_;
  const MessageDescription* image_t_ = nullptr;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<baton::Node> node_;
  std::string topic_;
};

// Shared memory is never trusted: publishes `good` (an encoded message whose last field is a
// primitive array of `array_bytes` bytes) once with each of these lengths in that array's count
// — one past the sample's end, 1 MiB (past the chunk, not only the sample), past every chunk,
// over every limit — then once intact. Returns how many corrupt samples it published.
inline size_t publish_corrupt_lengths_then_good(RawPublisher& raw, const std::vector<uint8_t>& good,
                                                size_t array_bytes) {
  const size_t length_at = good.size() - array_bytes - 4;  // the count sits just before the bytes
  const uint32_t lengths[] = {static_cast<uint32_t>(array_bytes + 1), 0x00100000u, 0x3fffffffu,
                              0xffffffffu};
  for (uint32_t len : lengths) {
    std::vector<uint8_t> bad = good;
    std::memcpy(bad.data() + length_at, &len, 4);
    EXPECT_TRUE(raw.publish_copy(bad.data(), bad.size()).has_value());
  }
  EXPECT_TRUE(raw.publish_copy(good.data(), good.size()).has_value());
  return std::size(lengths);
}

}  // namespace baton::ros2::test
