// C++ ping-pong through rcl, the layer under rclcpp (issue 22's benchmark): sensor_msgs::msg::Image
// with its C++ type support (rosidl_typesupport_cpp), two processes, on whatever RMW
// RMW_IMPLEMENTATION names (rmw_fastrtps_cpp, or rmw_baton_cpp preloaded).
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

#include "rcl_node.hpp"

namespace {

namespace rcl = baton::bench::rcl;
using Clock = rcl::Clock;
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

// The ping or the pong side: one node publishing on `out_topic` and taking from `in_topic`.
struct Endpoints {
  rcl::Node node;
  rcl::Publisher pub;
  rcl::Subscription sub;
  Endpoints(const char* name, const std::string& out_topic, const std::string& in_topic)
      : node(name),
        pub(node, ts(), out_topic, rcl::reliable_qos(1)),
        sub(node, ts(), in_topic, rcl::reliable_qos(1)) {}
  static const rosidl_message_type_support_t* ts() {
    return rosidl_typesupport_cpp::get_message_type_support_handle<Image>();
  }
  // Both sides' endpoints matched: discovery is never timed.
  void await_match(double timeout_s) {
    rcl::await([&] { return pub.subscribers() > 0 && sub.publishers() > 0; }, timeout_s,
               "baton-bench-rcl-pingpong: no peer matched");
  }
};

int ping(const Args& a) {
  Endpoints node("rcl_ping", a.topic + "/ping", a.topic + "/pong");
  Image out, back;
  if (!shape_image(a.size, out)) return 2;
  node.await_match(a.timeout_s);
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<size_t>(a.runs));
  const auto wait = rcl::seconds(a.timeout_s);
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    out.header.stamp.sec = i;
    const auto t0 = Clock::now();
    node.pub.publish(&out);
    if (!node.sub.take(&back, wait)) {
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
  Endpoints node("rcl_pong", a.topic + "/pong", a.topic + "/ping");
  Image img;
  node.await_match(a.timeout_s);
  const auto wait = rcl::seconds(a.timeout_s);
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    if (!node.sub.take(&img, wait)) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: pong %d got no ping in %.0f s\n", i,
                   a.timeout_s);
      return 1;
    }
    node.pub.publish(&img);
  }
  // The last reply may still be in flight (a reliable writer that is destroyed drops what it has
  // not sent): stay until ping, having taken it, leaves.
  const auto deadline = Clock::now() + std::chrono::duration<double>(a.timeout_s);
  while (node.pub.subscribers() > 0 && Clock::now() < deadline)
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
