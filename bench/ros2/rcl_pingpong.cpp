// C++ ping-pong through rcl, the layer under rclcpp (issue 22's benchmark, seed 000's ROS-SC rows):
// sensor_msgs::msg::Image with its C++ type support (rosidl_typesupport_cpp), two processes, on
// whatever RMW RMW_IMPLEMENTATION names (rmw_fastrtps_cpp, or rmw_baton_cpp preloaded).
//
//   pong: takes every Image on <topic>/ping and publishes it back on <topic>/pong;
//   ping: publishes one Image (header.stamp.sec = its index), waits for it on <topic>/pong,
//         and records the round trip; one-way latency = round trip / 2.
//
// Each side waits until both of its endpoints have matched the other side before the first
// ping, so discovery is never timed. Reliable, keep last 1, volatile: what a request / reply pair
// of rclcpp nodes would use. The message is taken into and published from an ordinary C++
// message (std::vector data): a copy on each side, as in rclcpp without loans.
//
//   baton-bench-rcl-pingpong --role ping|pong --size 64|64k|4m|4k --topic T
//                            [--runs N] [--warmup W] [--raw FILE] [--timeout S]
// ping writes one one-way latency in microseconds per line to --raw; both exit 0 on success.
#include <rcl/rcl.h>
#include <rcutils/error_handling.h>
#include <sys/prctl.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <sensor_msgs/msg/image.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Image = sensor_msgs::msg::Image;

struct Args {
  std::string role, size, topic, raw;
  int runs = 1000, warmup = 100;
  double timeout_s = 30;
};

// The Image of a size name: data bytes and the shape a camera would give them.
bool shape_image(const std::string& size, Image& img) {
  uint32_t width = 0, height = 0, channels = 1;
  if (size == "64") {
    width = 64, height = 1;
  } else if (size == "64k") {
    width = 256, height = 256;
  } else if (size == "4m") {
    width = 2048, height = 2048;
  } else if (size == "4k") {
    width = 3840, height = 2160, channels = 3;
  } else {
    return false;
  }
  img.width = width;
  img.height = height;
  img.encoding = channels == 3 ? "rgb8" : "mono8";
  img.step = width * channels;
  img.data.assign(static_cast<size_t>(img.step) * height, 0);
  for (size_t i = 0; i < img.data.size(); i += 4096) img.data[i] = static_cast<uint8_t>(i >> 12);
  return true;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "baton-bench-rcl-pingpong: %s: %s\n", what, rcutils_get_error_string().str);
  std::exit(1);
}

void check(rcl_ret_t ret, const char* what) {
  if (ret != RCL_RET_OK) fail(what);
}

// One rcl node with a publisher and a subscription of Image, as an rclcpp node would hold them.
class Node {
 public:
  Node(const char* name, const std::string& out_topic, const std::string& in_topic) {
    rcl_init_options_t opts = rcl_get_zero_initialized_init_options();
    check(rcl_init_options_init(&opts, rcl_get_default_allocator()), "rcl_init_options_init");
    check(rcl_init(0, nullptr, &opts, &context_), "rcl_init");
    check(rcl_init_options_fini(&opts), "rcl_init_options_fini");
    rcl_node_options_t node_opts = rcl_node_get_default_options();
    check(rcl_node_init(&node_, name, "", &context_, &node_opts), "rcl_node_init");
    const auto* ts = rosidl_typesupport_cpp::get_message_type_support_handle<Image>();
    rcl_publisher_options_t pub_opts = rcl_publisher_get_default_options();
    pub_opts.qos = qos();
    check(rcl_publisher_init(&pub_, &node_, ts, out_topic.c_str(), &pub_opts),
          "rcl_publisher_init");
    rcl_subscription_options_t sub_opts = rcl_subscription_get_default_options();
    sub_opts.qos = qos();
    check(rcl_subscription_init(&sub_, &node_, ts, in_topic.c_str(), &sub_opts),
          "rcl_subscription_init");
    check(rcl_wait_set_init(&wait_set_, 1, 0, 0, 0, 0, 0, &context_, rcl_get_default_allocator()),
          "rcl_wait_set_init");
  }
  ~Node() {
    (void)rcl_wait_set_fini(&wait_set_);
    (void)rcl_subscription_fini(&sub_, &node_);
    (void)rcl_publisher_fini(&pub_, &node_);
    (void)rcl_node_fini(&node_);
    (void)rcl_shutdown(&context_);
    (void)rcl_context_fini(&context_);
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // True once the publisher has a subscription and the subscription a publisher.
  bool matched() {
    size_t subs = 0, pubs = 0;
    check(rcl_publisher_get_subscription_count(&pub_, &subs), "subscription count");
    check(rcl_subscription_get_publisher_count(&sub_, &pubs), "publisher count");
    return subs > 0 && pubs > 0;
  }
  size_t subscribers() {
    size_t subs = 0;
    check(rcl_publisher_get_subscription_count(&pub_, &subs), "subscription count");
    return subs;
  }
  void publish(const Image& img) { check(rcl_publish(&pub_, &img, nullptr), "rcl_publish"); }
  // Waits up to `timeout` for one message and takes it into `img`; false on timeout.
  bool take(Image& img, std::chrono::nanoseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      rmw_message_info_t info = rmw_get_zero_initialized_message_info();
      const rcl_ret_t ret = rcl_take(&sub_, &img, &info, nullptr);
      if (ret == RCL_RET_OK) return true;
      if (ret != RCL_RET_SUBSCRIPTION_TAKE_FAILED) fail("rcl_take");
      rcutils_reset_error();
      const auto left = deadline - Clock::now();
      if (left <= std::chrono::nanoseconds::zero()) return false;
      check(rcl_wait_set_clear(&wait_set_), "rcl_wait_set_clear");
      check(rcl_wait_set_add_subscription(&wait_set_, &sub_, nullptr), "rcl_wait_set_add");
      const rcl_ret_t w = rcl_wait(&wait_set_, left.count());
      if (w != RCL_RET_OK && w != RCL_RET_TIMEOUT) fail("rcl_wait");
      if (w == RCL_RET_TIMEOUT) rcutils_reset_error();
    }
  }

 private:
  static rmw_qos_profile_t qos() {
    rmw_qos_profile_t q = rmw_qos_profile_default;  // reliable, volatile
    q.history = RMW_QOS_POLICY_HISTORY_KEEP_LAST;
    q.depth = 1;
    return q;
  }
  rcl_context_t context_ = rcl_get_zero_initialized_context();
  rcl_node_t node_ = rcl_get_zero_initialized_node();
  rcl_publisher_t pub_ = rcl_get_zero_initialized_publisher();
  rcl_subscription_t sub_ = rcl_get_zero_initialized_subscription();
  rcl_wait_set_t wait_set_ = rcl_get_zero_initialized_wait_set();
};

// Polls until `node` has matched its peer, or exits after `timeout_s`.
void await_match(Node& node, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (!node.matched()) {
    if (Clock::now() > deadline) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: no peer matched in %.0f s\n", timeout_s);
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int ping(const Args& a) {
  Node node("rcl_ping", a.topic + "/ping", a.topic + "/pong");
  Image out, back;
  if (!shape_image(a.size, out)) return 2;
  await_match(node, a.timeout_s);
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<size_t>(a.runs));
  const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(a.timeout_s));
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    out.header.stamp.sec = i;
    const auto t0 = Clock::now();
    node.publish(out);
    if (!node.take(back, wait)) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: ping %d got no reply in %.0f s\n", i,
                   a.timeout_s);
      return 1;
    }
    const auto t1 = Clock::now();
    if (back.header.stamp.sec != i || back.data.size() != out.data.size()) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: reply %d is seq %d with %zu bytes\n", i,
                   back.header.stamp.sec, back.data.size());
      return 1;
    }
    if (i >= a.warmup)
      one_way_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  std::ofstream raw(a.raw);
  for (double v : one_way_us) raw << v << "\n";
  return raw ? 0 : 1;
}

int pong(const Args& a) {
  Node node("rcl_pong", a.topic + "/pong", a.topic + "/ping");
  Image img;
  await_match(node, a.timeout_s);
  const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(a.timeout_s));
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    if (!node.take(img, wait)) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: pong %d got no ping in %.0f s\n", i,
                   a.timeout_s);
      return 1;
    }
    node.publish(img);
  }
  // The last reply may still be in flight (a reliable writer that is destroyed drops what it has
  // not sent): stay until ping, having taken it, leaves.
  const auto deadline = Clock::now() + std::chrono::duration<double>(a.timeout_s);
  while (node.subscribers() > 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 0;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --role ping|pong --size 64|64k|4m|4k --topic T [--runs N] "
               "[--warmup W] [--raw FILE] [--timeout S]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the runner
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--role")
      a.role = v;
    else if (k == "--size")
      a.size = v;
    else if (k == "--topic")
      a.topic = v;
    else if (k == "--raw")
      a.raw = v;
    else if (k == "--runs")
      a.runs = std::atoi(v.c_str());
    else if (k == "--warmup")
      a.warmup = std::atoi(v.c_str());
    else if (k == "--timeout")
      a.timeout_s = std::atof(v.c_str());
    else
      return usage(argv[0]);
  }
  Image probe;
  if (argc % 2 == 0 || a.topic.empty() || a.runs <= 0 || a.warmup < 0 ||
      !shape_image(a.size, probe) || (a.role == "ping" && a.raw.empty()))
    return usage(argv[0]);
  if (a.role == "ping") return ping(a);
  if (a.role == "pong") return pong(a);
  return usage(argv[0]);
}
