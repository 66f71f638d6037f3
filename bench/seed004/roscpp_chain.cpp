// baton-bench-seed004-roscpp: one node of seed 004's chain as a stock roscpp node (Debian's
// libroscpp, TCPROS). Roles, options and messages: chain_roles.hpp. Needs a rosmaster at
// $ROS_MASTER_URI (bench/suite/exp_seed004.py starts a private one per run).
//
// A roscpp node as usually written: the global callback queue served by one spinner thread
// (ros::AsyncSpinner(1), the thread ros::spin() would be), publisher queue 100, subscriber queue
// 100 with TCP_NODELAY.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bench/peers/roscpp/roscpp_transport.hpp"  // init_node()
#include "bench/seed004/chain_roles.hpp"
#include "ros/ros.h"
#include "sensor_msgs/Image.h"
#include "std_msgs/Int32MultiArray.h"

namespace seed004 = baton::bench::seed004;
namespace st = baton::bench::stream;

namespace {

constexpr std::uint32_t kQueue = 100;

class RoscppClient final : public seed004::Client {
 public:
  explicit RoscppClient(seed004::Message m) : message_(m), spinner_(1) {
    if (m == seed004::Message::TwoInt32) {
      pair_.data.resize(2);
    } else {
      image_.height = seed004::kImageHeight;
      image_.width = seed004::kImageWidth;
      image_.encoding = "rgb8";
      image_.step = seed004::kImageWidth * 3;
      image_.data.resize(seed004::kImageBytes);
      for (std::size_t i = 0; i < image_.data.size(); ++i)
        image_.data[i] = static_cast<std::uint8_t>(i * 7 + 13);
    }
  }
  ~RoscppClient() override { spinner_.stop(); }

  void advertise(const std::string& topic) override {
    pub_ = message_ == seed004::Message::TwoInt32
               ? nh_.advertise<std_msgs::Int32MultiArray>(topic, kQueue)
               : nh_.advertise<sensor_msgs::Image>(topic, kQueue);
  }

  void subscribe(const std::string& topic, OnMessage on_message) override {
    on_message_ = std::move(on_message);
    const auto hints = ros::TransportHints().tcpNoDelay();
    if (message_ == seed004::Message::TwoInt32)
      sub_ = nh_.subscribe(topic, kQueue, &RoscppClient::on_pair, this, hints);
    else
      sub_ = nh_.subscribe(topic, kQueue, &RoscppClient::on_image, this, hints);
    spinner_.start();
  }

  void publish(std::uint32_t seq, std::uint32_t value) override {
    if (message_ == seed004::Message::TwoInt32) {
      pair_.data[0] = static_cast<std::int32_t>(seq);
      pair_.data[1] = static_cast<std::int32_t>(value);
      pub_.publish(pair_);
    } else {
      image_.header.stamp.sec = seq;
      image_.header.frame_id = std::to_string(value);
      pub_.publish(image_);
    }
  }

 private:
  void on_pair(const std_msgs::Int32MultiArray::ConstPtr& m) {
    if (m->data.size() != 2) st::fail("roscpp: Int32MultiArray without two values");
    on_message_(static_cast<std::uint32_t>(m->data[0]), static_cast<std::uint32_t>(m->data[1]),
                seed004::kTwoInt32Bytes);
  }
  void on_image(const sensor_msgs::Image::ConstPtr& m) {
    on_message_(m->header.stamp.sec,
                static_cast<std::uint32_t>(std::strtoul(m->header.frame_id.c_str(), nullptr, 10)),
                m->data.size());
  }

  const seed004::Message message_;
  ros::NodeHandle nh_;
  ros::AsyncSpinner spinner_;
  ros::Publisher pub_;
  ros::Subscriber sub_;
  OnMessage on_message_;
  std_msgs::Int32MultiArray pair_;
  sensor_msgs::Image image_;
};

}  // namespace

int main(int argc, char** argv) {
  const st::Options o =
      st::parse_options(argc, argv, "baton-bench-seed004-roscpp", "ROS 1 roscpp (seed 004)");
  st::setup_process(o);
  const auto message = seed004::message_of(o);
  baton::bench::roscpp::init_node("seed004_" + o.name);
  int rc = 0;
  {
    RoscppClient client(message);
    rc = seed004::Roles(o, client).run();
  }
  ros::shutdown();
  return rc;
}
