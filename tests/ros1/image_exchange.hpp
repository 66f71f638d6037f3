// A 3840x2160 rgb8 sensor_msgs/Image between a baton ROS 1 node and a stock peer (rospy or roscpp),
// both ways, byte for byte. The peers share one command line for it:
//   image-listener TOPIC FILE   writes the first Image's data to FILE, prints
//                               "image <w>x<h> <encoding> step <step> seq <seq> frame <frame_id>
//                               bytes <n>", exits
//   image-talker TOPIC FILE     publishes one Image (frame "camera") whose data is FILE's bytes
//                               once a subscriber is connected
// so a test passes the fixture's way of starting its peer (`start`) and the checks are the same.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/ros1/node.hpp"
#include "baton/ros1/serialization.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1::test {

constexpr uint32_t IMAGE_WIDTH = 3840, IMAGE_HEIGHT = 2160;

// Pixels no two rows of which are equal (so a dropped or repeated row is seen).
inline std::vector<uint8_t> image_pattern() {
  std::vector<uint8_t> data(size_t{IMAGE_WIDTH} * IMAGE_HEIGHT * 3);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 131 + i / 7919);
  return data;
}

// `n` publishes one 4K image (seq 42, frame "camera") on `topic` to a stock listener `start`s;
// the listener reports its metadata and writes its bytes into `dir`, which must equal what was
// published. Serialized straight from `pixels`: no copy into the Value.
inline void expect_a_stock_listener_gets_a_4k_image(Node& n, const std::string& topic,
                                                    const std::filesystem::path& dir,
                                                    const PeerStarter& start) {
  auto pub = n.advertise(topic, "sensor_msgs/Image");
  ASSERT_TRUE(pub) << pub.error().detail;
  const auto out = dir / "received.raw";
  auto listener = start({"image-listener", topic, out.string()});
  ASSERT_TRUE(listener->listening()) << listener->output();
  ASSERT_TRUE((*pub)->wait_for_tcpros_subscribers(1, GUARD)) << listener->output();
  const auto pixels = image_pattern();
  const auto& d = *(*pub)->type().description;
  ros2::Value img = ros2::default_value(d);
  auto& header = img.at(d, "header");
  header.items[0] = ros2::Value::of<uint32_t>(42);
  header.items[1].items = {ros2::Value::of<uint32_t>(1700000000), ros2::Value::of<uint32_t>(123)};
  header.items[2] = ros2::Value::of_string("camera");
  img.at(d, "height") = ros2::Value::of<uint32_t>(IMAGE_HEIGHT);
  img.at(d, "width") = ros2::Value::of<uint32_t>(IMAGE_WIDTH);
  img.at(d, "encoding") = ros2::Value::of_string("rgb8");
  img.at(d, "step") = ros2::Value::of<uint32_t>(IMAGE_WIDTH * 3);
  img.at(d, "data").view = pixels;
  auto sent = (*pub)->publish(img);
  ASSERT_TRUE(sent) << sent.error().detail;
  EXPECT_EQ(*sent, 1u);
  EXPECT_EQ(listener->wait(), 0) << listener->output();
  EXPECT_TRUE(listener->output_has("image 3840x2160 rgb8 step 11520 seq 42 frame camera bytes " +
                                   std::to_string(pixels.size())))
      << listener->output();
  std::ifstream in(out, std::ios::binary);
  std::vector<uint8_t> got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(got == pixels) << "received " << got.size() << " bytes";
}

// A stock talker `start`s publishes one 4K image (its bytes from a file in `dir`) to `n`'s
// subscription on `topic`: exactly one arrives, over TCPROS, equal in metadata and bytes.
inline void expect_a_baton_subscription_gets_a_stock_4k_image(Node& n, const std::string& topic,
                                                              const std::filesystem::path& dir,
                                                              const PeerStarter& start) {
  const auto pixels = image_pattern();
  const auto file = dir / "pattern.raw";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(pixels.data()),
             static_cast<std::streamsize>(pixels.size()));
  const auto* type = *n.types().message("sensor_msgs/Image");
  std::mutex mutex;
  std::vector<ros2::Value> images;
  std::vector<std::vector<uint8_t>> data;
  std::vector<std::string> transports;
  auto sub = n.subscribe(topic, "sensor_msgs/Image", [&](const WireSample& s) {
    auto v = deserialize(*type->description, s.bytes, DecodeMode::View);
    std::lock_guard lock(mutex);
    ASSERT_TRUE(v) << v.error().detail;
    const auto bytes = v->at(*type->description, "data").bytes();
    data.emplace_back(bytes.begin(), bytes.end());  // the view is valid during the call only
    images.push_back(std::move(*v));
    transports.emplace_back(s.transport);
  });
  ASSERT_TRUE(sub) << sub.error().detail;
  auto talker = start({"image-talker", topic, file.string()});
  ASSERT_TRUE(
      baton::testing::eventually([&] { return (*sub)->wire().stats().received == 1; }, GUARD))
      << talker->output();
  sub->reset();  // a talker that waits for its subscriber to go exits now
  EXPECT_EQ(talker->wait(), 0) << talker->output();
  std::lock_guard lock(mutex);
  ASSERT_EQ(images.size(), 1u);
  const auto& d = *type->description;
  EXPECT_EQ(images[0].at(d, "width").as<uint32_t>(), IMAGE_WIDTH);
  EXPECT_EQ(images[0].at(d, "height").as<uint32_t>(), IMAGE_HEIGHT);
  EXPECT_EQ(images[0].at(d, "encoding").str, "rgb8");
  EXPECT_EQ(images[0].at(d, "step").as<uint32_t>(), IMAGE_WIDTH * 3);
  EXPECT_EQ(images[0].at(d, "header").items[2].str, "camera");
  EXPECT_EQ(transports[0], "TCPROS");
  EXPECT_TRUE(data[0] == pixels);
}

}  // namespace baton::ros1::test
