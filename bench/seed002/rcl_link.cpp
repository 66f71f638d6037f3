// rcl C++ nodes as a graph node's middleware (baton-bench-graph-rcl): what an rclcpp node does
// underneath, with C++ messages (sensor_msgs/msg/Image, mono8: a 4K grey frame is 3840x2160, any
// other output one row of bytes) on the RMW the system names, rmw_fastrtps_cpp ("rcl-fastrtps")
// or rmw_baton_cpp preloaded ("rcl-baton"); the node refuses to run on another. Reliable keep
// last 2. A node builds its output in an ordinary C++ message and rcl_publish serialises it; a
// take deserialises into a C++ message the node holds until it lets go: the copies an rclcpp
// node without loans makes. No device awareness: a device node copies its inputs to the device
// and its output back, as under CycloneDDS.
#include <memory>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <sensor_msgs/msg/image.hpp>
#include <vector>

#include "bench/seed002/device_work.hpp"
#include "bench/seed002/link.hpp"
#include "rcl_node.hpp"

namespace seed002 {
namespace {

namespace rcl = baton::bench::rcl;
using Image = sensor_msgs::msg::Image;

constexpr double kTimeoutS = 120;  // per match and per message: a stuck graph fails, never hangs

const rosidl_message_type_support_t* image_ts() {
  return rosidl_typesupport_cpp::get_message_type_support_handle<Image>();
}

class RclLink : public Link {
 public:
  RclLink(const std::string& node, const std::string& rmw) : node_(node) { node_.expect_rmw(rmw); }
  ~RclLink() override {  // endpoints before their node
    outs_.clear();
    ins_.clear();
  }

  int add_output(const std::string& topic, std::size_t size, bool) override {
    Out o;
    o.pub = std::make_unique<rcl::Publisher>(node_, image_ts(), topic, rcl::reliable_qos(2));
    const bool frame = size == kImageBytes;
    o.msg.encoding = "mono8";
    o.msg.width = static_cast<std::uint32_t>(frame ? kImageW : size);
    o.msg.height = frame ? kImageH : 1;
    o.msg.step = o.msg.width;
    o.msg.data.resize(size);
    outs_.push_back(std::move(o));
    return static_cast<int>(outs_.size()) - 1;
  }
  int add_input(const std::string& topic, bool) override {
    ins_.push_back(
        std::make_shared<rcl::Subscription>(node_, image_ts(), topic, rcl::reliable_qos(2)));
    return static_cast<int>(ins_.size()) - 1;
  }
  void connect(const std::vector<std::uint32_t>& readers) override {
    rcl::await(
        [&] {
          for (std::size_t i = 0; i < outs_.size(); ++i)
            if (outs_[i].pub->subscribers() < readers[i]) return false;
          for (auto& in : ins_)
            if (in->publishers() == 0) return false;
          return true;
        },
        kTimeoutS, "graph topics did not match");
  }
  Output loan(int i) override {
    auto& m = outs_[static_cast<std::size_t>(i)].msg;
    return {reinterpret_cast<std::byte*>(m.data.data()), nullptr, m.data.size()};
  }
  void publish(int i) override {
    auto& o = outs_[static_cast<std::size_t>(i)];
    o.pub->publish(&o.msg);
  }
  Input take(int i) override {
    auto msg = std::make_shared<Image>();
    if (!ins_[static_cast<std::size_t>(i)]->take(msg.get(), rcl::seconds(kTimeoutS)))
      fail("rcl: no message within 120 s");
    Input in;
    in.host = reinterpret_cast<const std::byte*>(msg->data.data());
    in.size = msg->data.size();
    in.hold = msg;
    return in;
  }

 private:
  struct Out {
    std::unique_ptr<rcl::Publisher> pub;
    Image msg;  // the node writes its next output here
  };
  rcl::Node node_;
  std::vector<Out> outs_;
  std::vector<std::shared_ptr<rcl::Subscription>> ins_;
};

}  // namespace

std::unique_ptr<Link> make_rcl_link(const std::string& node, const std::string& rmw) {
  return std::make_unique<RclLink>(node, rmw);
}

}  // namespace seed002
