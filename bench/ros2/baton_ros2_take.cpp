// Subscription::take() (the Image's `data` copied into the Value) vs take_view() (`data`
// read where it lies in the shared-memory chunk), for a sensor_msgs/msg/Image of 64 KiB, 4 MiB
// and 24 MB (3840x2160 rgb8). One process, shared memory only (no DDS); the publisher encodes
// from a Value::view of its pixel buffer (one copy, into the loan) outside the timed region.
//
// Timed per sample: the take call plus reading one byte of the first and of the last row (what
// the subscriber needs to start working on the image) — the copy is the difference measured.
// Also reported: the same with a full pass over the pixels (sum), where the copy's cost is
// shared with the reader's own pass.
//
//   build/bench/ros2/baton-bench-ros2-take [--share DIR] [--samples N] [--quick]
//
// --share: a ROS share directory with sensor_msgs, std_msgs, builtin_interfaces (default
// $BATON_ROS_VENV/share, else .venv-ros/share). Output: JSON lines on stdout
// {"system", "mode", "size", "median", "p99", "max", "samples", "unit": "us"}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "baton/baton.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_registry.hpp"
#include "image_type.hpp"

namespace {

using namespace baton;
using namespace baton::ros2;
using Clock = std::chrono::steady_clock;

struct Shape {
  uint32_t width, height;  // rgb8
};

Value image(const MessageDescription& t, Shape s, std::span<const uint8_t> pixels) {
  Value v = default_value(t);
  v.at(t, "width") = Value::of(s.width);
  v.at(t, "height") = Value::of(s.height);
  v.at(t, "step") = Value::of(s.width * 3);
  v.at(t, "encoding") = Value::of_string("rgb8");
  v.at(t, "data").view = pixels;
  return v;
}

// What the subscriber does with the pixels inside the timed region.
uint64_t touch(std::span<const uint8_t> px, bool full_pass) {
  if (px.empty()) return 0;
  if (!full_pass) return uint64_t{px.front()} + px.back();
  return std::accumulate(px.begin(), px.end(), uint64_t{0});
}

void report(const char* api, bool full, uint64_t bytes, std::vector<int64_t>& ns) {
  std::sort(ns.begin(), ns.end());
  const int64_t median = ns[ns.size() / 2];
  const int64_t p99 = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)];
  // The record shape every baton benchmark writes (system, mode, size, median, p99, max, samples,
  // unit), so scripts compare runs the same way.
  std::printf(
      "{\"system\": \"baton Ros2Subscription::%s\", \"mode\": \"%s\", \"size\": %llu, "
      "\"median\": %.3f, \"p99\": %.3f, \"max\": %.3f, \"samples\": %zu, \"unit\": \"us\"}\n",
      api, full ? "full_pass" : "first_last", static_cast<unsigned long long>(bytes),
      static_cast<double>(median) / 1e3, static_cast<double>(p99) / 1e3,
      static_cast<double>(ns.back()) / 1e3, ns.size());
  std::fflush(stdout);
}

// Publishes `samples` images of `shape` and times each take (view or copy) + touch. Returns
// false if a sample did not arrive or did not carry the image (a correctness failure).
bool run(ros2::Publisher& pub, ros2::Subscription& sub, const MessageDescription& t, Shape shape,
         bool view, bool full, int samples, uint64_t& sink) {
  std::vector<uint8_t> pixels(size_t{shape.width} * shape.height * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7 + 13);
  const Value msg = image(t, shape, pixels);
  std::vector<int64_t> ns;
  ns.reserve(samples);
  for (int i = 0; i < samples; ++i) {
    if (!pub.publish(msg)) return false;
    if (!sub.wait(std::chrono::seconds(5))) return false;
    uint64_t got = 0;
    const auto t0 = Clock::now();
    if (view) {
      auto s = sub.take_view();
      if (!s) return false;
      const auto px = s->value().at(t, "data").bytes();
      sink += touch(px, full);
      got = px.size();
    } else {
      auto s = sub.take();
      if (!s) return false;
      const auto px = s->value.at(t, "data").bytes();
      sink += touch(px, full);
      got = px.size();
    }  // the sample (and its chunk or copy) is released inside the timed region for both
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    if (got != pixels.size()) return false;
  }
  report(view ? "take_view" : "take", full, pixels.size(), ns);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string share = baton::bench::default_ros_share();
  int samples = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--share" && i + 1 < argc) {
      share = argv[++i];
    } else if (a == "--samples" && i + 1 < argc) {
      samples = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--quick") {
      samples = 5;
    } else {
      std::fprintf(stderr, "usage: %s [--share DIR] [--samples N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  TypeRegistry reg;
  const MessageDescription* t = baton::bench::load_image_type(reg, share);
  if (t == nullptr) return 2;
  auto ctx = Context::create();
  baton::Node node(ctx, "bench_ros2_take");
  WireQos q;
  q.depth = 2;
  auto sub = ros2::Subscription::create(node, *t, "/bench/image", nullptr, q);
  auto pub = ros2::Publisher::create(node, *t, "/bench/image", nullptr, q);
  if (!sub || !pub) {
    std::fprintf(stderr, "endpoints: %s\n",
                 (!sub ? sub.error().detail : pub.error().detail).c_str());
    return 1;
  }
  uint64_t sink = 0;
  const Shape shapes[] = {{128, 171}, {1024, 1366}, {3840, 2160}};  // ~64 KiB, ~4 MiB, 24 MB
  for (const Shape s : shapes)
    for (bool full : {false, true})
      for (bool view : {false, true})
        if (!run(*pub, **sub, *t, s, view, full, samples, sink)) {
          std::fprintf(stderr, "FAILED: %ux%u %s\n", s.width, s.height,
                       view ? "take_view" : "take");
          return 1;
        }
  std::fprintf(stderr, "checksum %llu, malformed %llu\n", static_cast<unsigned long long>(sink),
               static_cast<unsigned long long>((*sub)->malformed()));
  return (*sub)->malformed() == 0 ? 0 : 1;
}
