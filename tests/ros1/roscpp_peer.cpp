// roscpp peer for tests/ros1: a stock roscpp node (Debian's libroscpp) on the test's roscore.
//
//   string-talker TOPIC COUNT   publishes "msg 0" .. "msg COUNT-1" then "end" (std_msgs/String)
//                               once a subscriber is connected, then exits once it disconnects
//   string-listener TOPIC       prints "got <data>" per message, exits after "end"
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
#include <std_msgs/String.h>
#include <std_srvs/SetBool.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <string>

namespace {

void say(const std::string& text) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

int string_talker(const std::string& topic, int count) {
  ros::NodeHandle nh;
  std::mutex mutex;
  std::condition_variable changed;
  int subscribers = 0;
  bool left = false;
  auto on_connect = [&](const ros::SingleSubscriberPublisher&) {
    std::lock_guard<std::mutex> lock(mutex);
    ++subscribers;
    changed.notify_all();
  };
  auto on_disconnect = [&](const ros::SingleSubscriberPublisher&) {
    std::lock_guard<std::mutex> lock(mutex);
    left = true;
    changed.notify_all();
  };
  ros::Publisher pub = nh.advertise<std_msgs::String>(topic, 1000, on_connect, on_disconnect);
  ros::AsyncSpinner spinner(1);  // runs the connect callbacks
  spinner.start();
  say("ready");
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return subscribers > 0; });
  }
  std_msgs::String msg;
  for (int i = 0; i < count; ++i) {
    msg.data = "msg " + std::to_string(i);
    pub.publish(msg);
  }
  msg.data = "end";
  pub.publish(msg);
  say("published");
  // roscpp writes from its own thread: leave once the subscriber has gone, so all was sent.
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return left; });
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
                 "usage: %s string-talker TOPIC COUNT | string-listener TOPIC | setbool-server "
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
  if (mode == "setbool-server") return setbool_server(argv[2]);
  if (mode == "setbool-client" && argc >= 4) return setbool_client(argv[2], std::stoi(argv[3]));
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
