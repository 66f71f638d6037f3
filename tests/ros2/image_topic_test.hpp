// A gtest fixture base for tests of sensor_msgs/msg/Image topics in one baton Node: the wheels'
// types, a Context and Node, and a topic name of its own per test (and process).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "baton/baton.hpp"
#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"

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
    node_ = std::make_unique<Node>(ctx_, node_name_);
    topic_ = topic_prefix_ + "_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  std::string node_name_, topic_prefix_;
  TypeRegistry registry_;
  const MessageDescription* image_t_ = nullptr;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<Node> node_;
  std::string topic_;
};

}  // namespace baton::ros2::test
