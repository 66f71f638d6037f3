// roscpp peer for tests/ros1: a stock roscpp node (Debian's libroscpp) on the test's roscore.
//
//   string-talker TOPIC COUNT   publishes "msg 0" .. "msg COUNT-1" then "end" (std_msgs/String)
//                               once a subscriber is connected, then exits once it disconnects
//   string-listener TOPIC       prints "got <data>" per message, exits after "end"
//   latched-talker TOPIC        a latched std_msgs/String publisher: publishes "old" then
//                               "latched" before anyone subscribed, prints "published", exits
//                               once its first subscriber disconnects
//   image-talker TOPIC FILE     publishes one 3840x2160 rgb8 sensor_msgs/Image (frame "camera")
//                               whose data is FILE's bytes once a subscriber is connected, exits
//                               once it disconnects
//   image-listener TOPIC FILE   writes the first Image's data to FILE, prints its metadata, exits
//   setbool-server SERVICE      a std_srvs/SetBool service: data true answers success and
//                               "roscpp <n>" (n counts the calls), data false fails the call
//   setbool-client SERVICE COUNT
//                               calls SERVICE COUNT times with data true over one persistent
//                               connection ("reply <i> <success> <message>"), then with data
//                               false ("failed" when the call fails), then prints "done"
//
// Every node prints "ready" once it is registered. Waits are roscpp's connect / disconnect
// callbacks and a condition variable, never a sleep. Dies with its parent (PR_SET_PDEATHSIG).
#include <ros/ros.h>
#include <sensor_msgs/Image.h>
#include <std_msgs/String.h>
#include <std_srvs/SetBool.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>

namespace {

void say(const std::string& text) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

// A publisher's subscribers as roscpp's connect / disconnect callbacks report them (run by an
// AsyncSpinner), for talkers that wait for a subscriber before publishing and for it to leave
// before exiting: roscpp writes from its own thread, so a talker that has seen its subscriber
// go has sent everything.
class SubscriberWatch {
 public:
  SubscriberWatch() { spinner_.start(); }
  ros::SubscriberStatusCallback on_connect() {
    return [this](const ros::SingleSubscriberPublisher&) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++subscribers_;
      changed_.notify_all();
    };
  }
  ros::SubscriberStatusCallback on_disconnect() {
    return [this](const ros::SingleSubscriberPublisher&) {
      std::lock_guard<std::mutex> lock(mutex_);
      left_ = true;
      changed_.notify_all();
    };
  }
  void wait_for_a_subscriber() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return subscribers_ > 0; });
  }
  void wait_until_one_left() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return left_; });
  }

 private:
  ros::AsyncSpinner spinner_{1};
  std::mutex mutex_;
  std::condition_variable changed_;
  int subscribers_ = 0;
  bool left_ = false;
};

int string_talker(const std::string& topic, int count) {
  ros::NodeHandle nh;
  SubscriberWatch watch;
  ros::Publisher pub =
      nh.advertise<std_msgs::String>(topic, 1000, watch.on_connect(), watch.on_disconnect());
  say("ready");
  watch.wait_for_a_subscriber();
  std_msgs::String msg;
  for (int i = 0; i < count; ++i) {
    msg.data = "msg " + std::to_string(i);
    pub.publish(msg);
  }
  msg.data = "end";
  pub.publish(msg);
  say("published");
  watch.wait_until_one_left();
  return 0;
}

int latched_talker(const std::string& topic) {
  ros::NodeHandle nh;
  SubscriberWatch watch;
  ros::Publisher pub = nh.advertise<std_msgs::String>(topic, 10, watch.on_connect(),
                                                      watch.on_disconnect(), ros::VoidConstPtr(),
                                                      /*latch=*/true);
  std_msgs::String msg;
  msg.data = "old";
  pub.publish(msg);
  msg.data = "latched";
  pub.publish(msg);
  say("published");
  watch.wait_until_one_left();
  return 0;
}

int image_talker(const std::string& topic, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  sensor_msgs::Image img;
  img.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  img.height = 2160;
  img.width = 3840;
  img.encoding = "rgb8";
  img.is_bigendian = 0;
  img.step = 3840 * 3;
  img.header.frame_id = "camera";
  ros::NodeHandle nh;
  SubscriberWatch watch;
  ros::Publisher pub =
      nh.advertise<sensor_msgs::Image>(topic, 1, watch.on_connect(), watch.on_disconnect());
  say("ready");
  watch.wait_for_a_subscriber();
  pub.publish(img);
  say("published");
  watch.wait_until_one_left();
  return 0;
}

int image_listener(const std::string& topic, const std::string& path) {
  ros::NodeHandle nh;
  ros::Subscriber sub =
      nh.subscribe<sensor_msgs::Image>(topic, 1, [&](const sensor_msgs::Image::ConstPtr& msg) {
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(msg->data.data()),
                   static_cast<std::streamsize>(msg->data.size()));
        say("image " + std::to_string(msg->width) + "x" + std::to_string(msg->height) + " " +
            msg->encoding + " step " + std::to_string(msg->step) + " seq " +
            std::to_string(msg->header.seq) + " frame " + msg->header.frame_id + " bytes " +
            std::to_string(msg->data.size()));
        ros::shutdown();
      });
  say("ready");
  ros::spin();
  return 0;
}

void on_string(const std_msgs::String::ConstPtr& msg) {
  say("got " + msg->data);
  if (msg->data == "end") ros::shutdown();
}

int string_listener(const std::string& topic) {
  ros::NodeHandle nh;
  ros::Subscriber sub = nh.subscribe(topic, 1000, on_string);
  say("ready");
  ros::spin();
  return 0;
}

int setbool_server(const std::string& service) {
  ros::NodeHandle nh;
  int calls = 0;
  ros::ServiceServer server =
      nh.advertiseService<std_srvs::SetBool::Request, std_srvs::SetBool::Response>(
          service, [&](std_srvs::SetBool::Request& req, std_srvs::SetBool::Response& res) {
            if (!req.data) return false;  // roscpp answers ok = 0
            res.success = true;
            res.message = "roscpp " + std::to_string(++calls);
            return true;
          });
  say("ready");
  ros::spin();
  return 0;
}

int setbool_client(const std::string& service, int count) {
  ros::NodeHandle nh;
  if (!ros::service::waitForService(service, -1)) return 1;
  ros::ServiceClient client = nh.serviceClient<std_srvs::SetBool>(service, /*persistent=*/true);
  say("ready");
  std_srvs::SetBool call;
  for (int i = 0; i < count; ++i) {
    call.request.data = true;
    if (!client.call(call)) {
      say("failed " + std::to_string(i));
      return 1;
    }
    say("reply " + std::to_string(i) + " " + (call.response.success ? "True" : "False") + " " +
        call.response.message);
  }
  call.request.data = false;
  say(client.call(call) ? "reply false " + call.response.message : "failed");
  say("done");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) return 1;
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s string-talker TOPIC COUNT | string-listener TOPIC | latched-talker "
                 "TOPIC | image-talker TOPIC FILE | image-listener TOPIC FILE | setbool-server "
                 "SERVICE | setbool-client SERVICE COUNT\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  std::string role = mode == "string-talker"     ? "talker"
                     : mode == "string-listener" ? "listener"
                                                 : mode;
  std::replace(role.begin(), role.end(), '-', '_');
  ros::init(argc, argv, "roscpp_" + role + "_" + std::to_string(::getpid()),
            ros::init_options::NoSigintHandler);
  if (mode == "string-talker" && argc >= 4) return string_talker(argv[2], std::stoi(argv[3]));
  if (mode == "string-listener") return string_listener(argv[2]);
  if (mode == "latched-talker") return latched_talker(argv[2]);
  if (mode == "image-talker" && argc >= 4) return image_talker(argv[2], argv[3]);
  if (mode == "image-listener" && argc >= 4) return image_listener(argv[2], argv[3]);
  if (mode == "setbool-server") return setbool_server(argv[2]);
  if (mode == "setbool-client" && argc >= 4) return setbool_client(argv[2], std::stoi(argv[3]));
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
