// The native talker of the wire stream benchmark (bench/suite/exp_wire_stream.py): a C++
// Publisher on a Node publishing sensor_msgs/msg/Image at a fixed rate to a ROS 2 listener
// on another RMW (rclpy on Fast DDS, bench/ros2/wire_stream_peer.py listen). Same convention as
// that script's talker, so the same listener verifies it: header.frame_id = seq, header.stamp =
// wall clock just before publish, data[i] = (7 i + 13 + seq % 4) mod 256.
//
//   baton-bench-ros2-wire-talker --size 4k|1m|64k --qos reliable|best-effort --topic T
//       --count N --rate HZ --stop-file F [--match-timeout S] [--max-seconds S] [--share DIR]
//
// DDS domain and discovery range from ROS_DOMAIN_ID / ROS_AUTOMATIC_DISCOVERY_RANGE (as an rmw),
// the baton namespace from BATON_NAMESPACE. QoS: keep last 10, volatile. Waits until the DDS
// writer has matched a foreign reader, publishes seq 0 at once, seq k at t0 + k / rate (late
// ones at once, none skipped); prints "matched S", "sent N SECONDS ERRORS", then stays until the
// stop file exists (a reliable writer keeps repeating) or --max-seconds pass.
#include <sys/prctl.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/type_registry.hpp"
#include "image_type.hpp"

namespace {

using namespace baton;
using namespace baton::ros2;
using Clock = std::chrono::steady_clock;

struct Shape {
  const char* name;
  uint32_t height, width;
  const char* encoding;
  uint32_t channels;
};
constexpr Shape SHAPES[] = {
    {"4k", 2160, 3840, "rgb8", 3}, {"1m", 1024, 1024, "mono8", 1}, {"64k", 256, 256, "mono8", 1}};
constexpr int PATTERNS = 4;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --size 4k|1m|64k --qos reliable|best-effort --topic T --count N "
               "--rate HZ --stop-file F [--match-timeout S] [--max-seconds S] [--share DIR]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the runner
  std::string size, qos_name, topic, stop_file, share = baton::bench::default_ros_share();
  int count = 0;
  double rate = 10, match_timeout = 30, max_seconds = 120;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--size") {
      size = v;
    } else if (a == "--qos") {
      qos_name = v;
    } else if (a == "--topic") {
      topic = v;
    } else if (a == "--count") {
      count = std::atoi(v.c_str());
    } else if (a == "--rate") {
      rate = std::atof(v.c_str());
    } else if (a == "--stop-file") {
      stop_file = v;
    } else if (a == "--match-timeout") {
      match_timeout = std::atof(v.c_str());
    } else if (a == "--max-seconds") {
      max_seconds = std::atof(v.c_str());
    } else if (a == "--share") {
      share = v;
    } else {
      return usage(argv[0]);
    }
  }
  const Shape* shape = nullptr;
  for (const Shape& s : SHAPES)
    if (size == s.name) shape = &s;
  if (argc % 2 == 0 || shape == nullptr || topic.empty() || stop_file.empty() || count <= 0 ||
      rate <= 0 || (qos_name != "reliable" && qos_name != "best-effort"))
    return usage(argv[0]);

  TypeRegistry reg;
  const MessageDescription* t = baton::bench::load_image_type(reg, share);
  if (t == nullptr) return 2;
  const MessageDescription& it = *t;
  auto wire = ros2::Participant::create_from_env(reg);
  if (!wire) return std::fprintf(stderr, "participant: %s\n", wire.error().detail.c_str()), 1;
  auto node = ros2::Node::create(Context::create(), **wire, "wire_stream_native_talker");
  if (!node) return std::fprintf(stderr, "node: %s\n", node.error().detail.c_str()), 1;
  WireQos q;
  q.depth = 10;
  q.reliable = qos_name == "reliable";
  auto pub = ros2::Publisher::create(**node, it, topic, q);
  if (!pub) return std::fprintf(stderr, "publisher: %s\n", pub.error().detail.c_str()), 1;

  const uint64_t bytes = uint64_t{shape->height} * shape->width * shape->channels;
  std::vector<std::vector<uint8_t>> frames(PATTERNS, std::vector<uint8_t>(bytes));
  for (int k = 0; k < PATTERNS; ++k)
    for (uint64_t i = 0; i < bytes; ++i) frames[k][i] = static_cast<uint8_t>(i * 7 + 13 + k);
  Value msg = default_value(it);
  msg.at(it, "height") = Value::of<uint32_t>(shape->height);
  msg.at(it, "width") = Value::of<uint32_t>(shape->width);
  msg.at(it, "encoding") = Value::of_string(shape->encoding);
  msg.at(it, "step") = Value::of<uint32_t>(shape->width * shape->channels);
  Value& header = msg.at(it, "header");  // std_msgs/Header: stamp {sec, nanosec}, frame_id

  const auto stopped = [&] { return std::filesystem::exists(stop_file); };
  const auto started = Clock::now();
  while (pub->wire_foreign_readers() == 0) {
    if (seconds_since(started) > match_timeout || stopped()) {
      std::printf("error: no subscription matched within %.0f s\n", match_timeout);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("matched %.3f\n", seconds_since(started));
  std::fflush(stdout);

  int errors = 0;
  const auto t0 = Clock::now();
  for (int seq = 0; seq < count; ++seq) {
    std::this_thread::sleep_until(t0 + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seq / rate)));
    header.items[1] = Value::of_string(std::to_string(seq));
    msg.at(it, "data").view = frames[seq % PATTERNS];  // published from here, not copied first
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    header.items[0].items[0] = Value::of<int32_t>(static_cast<int32_t>(now / 1'000'000'000));
    header.items[0].items[1] = Value::of<uint32_t>(static_cast<uint32_t>(now % 1'000'000'000));
    if (auto r = pub->publish(msg); !r) {
      ++errors;
      std::printf("publish %d failed: %s\n", seq, r.error().detail.c_str());
    }
  }
  std::printf("sent %d %.3f %d\n", count, seconds_since(t0), errors);
  std::fflush(stdout);
  const auto linger = Clock::now();
  while (!stopped() && seconds_since(linger) < max_seconds)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return 0;
}
