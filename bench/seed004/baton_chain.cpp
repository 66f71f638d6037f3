// baton-bench-seed004: one node of seed 004's chain as a baton ROS 1 node (baton_ros1). Roles,
// options and messages: chain_roles.hpp. Needs a rosmaster at $ROS_MASTER_URI
// (bench/suite/exp_seed004.py starts a private one per run).
//
// Messages go through baton_ros1's public API as an application would use it: publish() of a
// ros2::Value (built once; the image's data is a view of the program's pixels, serialized straight
// from there), subscriptions decoded with deserialize(DecodeMode::View). With --bytes 1 (two int32
// only) the node skips the dynamic Value: publish_serialized() of the 20 bytes Int32MultiArray
// [seq, value] serializes to, and the two values read from the received bytes at their offsets
// (after checking the layout), which is what a node with generated (de)serialization code would do.
// Between two baton nodes the hop is BATONSHM (negotiated in requestTopic), with a roscpp or rospy
// peer TCPROS. The .stats file says which: a sender's publishes over shared memory / TCPROS, a
// receiver's messages by transport.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "baton/ros1/node.hpp"
#include "baton/ros1/publisher.hpp"
#include "baton/ros1/serialization.hpp"
#include "baton/ros1/subscription.hpp"
#include "baton/ros2/dynamic_value.hpp"
#include "bench/seed004/chain_roles.hpp"

namespace seed004 = baton::bench::seed004;
namespace st = baton::bench::stream;
namespace ros1 = baton::ros1;
using baton::ros2::Value;

namespace {

class BatonClient final : public seed004::Client {
 public:
  BatonClient(std::shared_ptr<ros1::Node> node, seed004::Message m, bool bytes)
      : node_(std::move(node)),
        message_(m),
        bytes_(bytes),
        type_name_(m == seed004::Message::TwoInt32 ? "std_msgs/Int32MultiArray"
                                                   : "sensor_msgs/Image") {
    auto type = node_->types().message(type_name_);
    if (!type) st::fail("baton_ros1: " + type_name_ + ": " + type.error().detail);
    d_ = (*type)->description;
    out_ = baton::ros2::default_value(*d_);
    if (m == seed004::Message::TwoInt32) {
      out_.at(*d_, "data").raw.resize(8);
    } else {
      pixels_.resize(seed004::kImageBytes);
      for (std::size_t i = 0; i < pixels_.size(); ++i)
        pixels_[i] = static_cast<std::uint8_t>(i * 7 + 13);
      out_.at(*d_, "height") = Value::of<std::uint32_t>(seed004::kImageHeight);
      out_.at(*d_, "width") = Value::of<std::uint32_t>(seed004::kImageWidth);
      out_.at(*d_, "encoding") = Value::of_string("rgb8");
      out_.at(*d_, "step") = Value::of<std::uint32_t>(seed004::kImageWidth * 3);
      out_.at(*d_, "data").view = pixels_;
    }
  }

  void advertise(const std::string& topic) override {
    auto pub = node_->advertise(topic, type_name_);
    if (!pub) st::fail("baton_ros1: advertise " + topic + ": " + pub.error().detail);
    pub_ = std::move(*pub);
  }

  void subscribe(const std::string& topic, OnMessage on_message) override {
    auto sub = node_->subscribe(
        topic, type_name_, [this, on_message = std::move(on_message)](const ros1::WireSample& s) {
          (s.transport == "BATONSHM" ? recv_shm_ : recv_tcpros_).fetch_add(1);
          if (bytes_) {  // dim[] empty, data_offset, data[] of two: checked, not trusted
            std::uint32_t dims = 1, count = 0, seq = 0, value = 0;
            if (s.bytes.size() == kPairBytes) {
              std::memcpy(&dims, s.bytes.data(), 4);
              std::memcpy(&count, s.bytes.data() + 8, 4);
              std::memcpy(&seq, s.bytes.data() + 12, 4);
              std::memcpy(&value, s.bytes.data() + 16, 4);
            }
            if (dims != 0 || count != 2) st::fail("baton_ros1: not an Int32MultiArray of two");
            on_message(seq, value, seed004::kTwoInt32Bytes);
            return;
          }
          auto v = ros1::deserialize(*d_, s.bytes, ros1::DecodeMode::View);
          if (!v) st::fail("baton_ros1: undecodable " + type_name_ + ": " + v.error().detail);
          std::uint32_t seq = 0, value = 0;
          std::uint64_t size = 0;
          if (message_ == seed004::Message::TwoInt32) {
            const auto data = v->at(*d_, "data").bytes();
            if (data.size() != 8) st::fail("baton_ros1: Int32MultiArray without two values");
            std::memcpy(&seq, data.data(), 4);
            std::memcpy(&value, data.data() + 4, 4);
            size = seed004::kTwoInt32Bytes;
          } else {
            const auto& header = v->at(*d_, "header");
            seq = header.items[1].items[0].as<std::uint32_t>();
            value =
                static_cast<std::uint32_t>(std::strtoul(header.items[2].str.c_str(), nullptr, 10));
            size = v->at(*d_, "data").bytes().size();
          }
          on_message(seq, value, size);
        });
    if (!sub) st::fail("baton_ros1: subscribe " + topic + ": " + sub.error().detail);
    sub_ = std::move(*sub);
  }

  void publish(std::uint32_t seq, std::uint32_t value) override {
    if (bytes_) {
      std::uint8_t b[kPairBytes] = {0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0};  // dims 0, offset 0, 2
      std::memcpy(b + 12, &seq, 4);
      std::memcpy(b + 16, &value, 4);
      if (auto sent = pub_->publish_serialized(b); !sent)
        st::fail("baton_ros1: publish: " + sent.error().detail);
      return;
    }
    if (message_ == seed004::Message::TwoInt32) {
      auto& data = out_.at(*d_, "data").raw;
      std::memcpy(data.data(), &seq, 4);
      std::memcpy(data.data() + 4, &value, 4);
    } else {
      auto& header = out_.at(*d_, "header");
      header.items[1].items[0] = Value::of<std::uint32_t>(seq);
      header.items[2] = Value::of_string(std::to_string(value));
    }
    if (auto sent = pub_->publish(out_); !sent)
      st::fail("baton_ros1: publish: " + sent.error().detail);
  }

  std::vector<std::pair<std::string, std::uint64_t>> stats() const override {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    if (pub_) {
      out.emplace_back("sent_batonshm", pub_->shm_stats().sent);
      out.emplace_back("sent_tcpros", pub_->wire().stats().sent);
    }
    if (sub_) {
      out.emplace_back("received_batonshm", recv_shm_.load());
      out.emplace_back("received_tcpros", recv_tcpros_.load());
    }
    return out;
  }

 private:
  static constexpr std::size_t kPairBytes = 20;  // Int32MultiArray [a, b] serialized
  std::shared_ptr<ros1::Node> node_;
  const seed004::Message message_;
  const bool bytes_;
  const std::string type_name_;
  const baton::ros2::MessageDescription* d_ = nullptr;
  Value out_;
  std::vector<std::uint8_t> pixels_;
  std::atomic<std::uint64_t> recv_shm_{0}, recv_tcpros_{0};
  std::unique_ptr<ros1::Publisher> pub_;
  std::unique_ptr<ros1::Subscription> sub_;  // last: destroyed first, no callback after it
};

}  // namespace

int main(int argc, char** argv) {
  // --bytes 0|1 is this program's own; the rest are the stream protocol's options.
  bool bytes = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
      bytes = std::strcmp(argv[++i], "0") != 0;
      continue;
    }
    args.push_back(argv[i]);
  }
  const st::Options o = st::parse_options(static_cast<int>(args.size()), args.data(),
                                          "baton-bench-seed004", "baton ROS 1 (seed 004)");
  st::setup_process(o);
  const auto message = seed004::message_of(o);
  if (bytes && message != seed004::Message::TwoInt32) st::fail("--bytes 1 is for two int32 only");
  auto node = ros1::Node::create("seed004_" + o.name);
  if (!node) st::fail("baton_ros1: " + node.error().detail);
  BatonClient client(std::move(*node), message, bytes);
  return seed004::Roles(o, client).run();
}
