// A 4K rgb8 sensor_msgs/msg/Image (24 MB) to a subscriber that needs it in a device memory
// domain, one-way latency, three ways (one process, shared memory only, no DDS):
//
//   domain_loan        Publisher in DOMAIN: loan() with `data` reserved, `data` already
//                      written on the device (clEnqueueFillBuffer stands for a kernel, outside the
//                      timed region), publish(loan) -> DomainSubscription in DOMAIN: take().
//   host_take          Publisher::publish(Value) of a host pixel buffer -> Subscription
//                      take(): the image on the host (no device involved).
//   host_take_upload   host_take, then the subscriber uploads `data` into a device buffer in
//                      DOMAIN (what a user without domain endpoints does to run a kernel on it).
//
// Timed: from just before publish (domain_loan: before loan(); the fill is the producer's work
// and is not timed, as the host pixels are not) to the subscriber holding the image where it
// needs it (the domain sample; the host Value; the device buffer after the blocking upload).
//
//   build/bench/ros2/baton-bench-ros2-domain [--share DIR] [--domain D] [--samples N] [--quick]
//                                            [--out FILE]
//
// --domain: opencl:0:sc (default), opencl:0, staging, cuda:0, … (OpenCL / CUDA need a device).
// Output: JSON lines on stdout and in --out (default out/bench/ros2_domain.json):
// {"system", "mode", "size", "median", "p99", "max", "samples", "unit": "us"}.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "baton/baton.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/ros2/ros2_domain_subscription.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_registry.hpp"
#include "image_type.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#endif

namespace {

using namespace baton;
using namespace baton::ros2;
using Clock = std::chrono::steady_clock;
using memory::domain::DomainBackend;

constexpr uint32_t W = 3840, H = 2160;
// Rounds run first and not recorded: the pools (chunk pool, domain pool) grow on first use.
constexpr int WARMUP = 3;

Value image(const MessageDescription& t) {
  Value v = default_value(t);
  v.at(t, "width") = Value::of(W);
  v.at(t, "height") = Value::of(H);
  v.at(t, "step") = Value::of(W * 3);
  v.at(t, "encoding") = Value::of_string("rgb8");
  return v;
}

// The producer's device-side write of `a` (a kernel in a real pipeline): a fill on OpenCL, a
// memset where the CPU addresses the domain. False if the domain offers neither.
bool produce_on_device(DomainBackend& b, const DeviceArray& a, uint8_t value) {
#if BATON_HAVE_OPENCL
  if (auto* cl = dynamic_cast<memory::domain::OpenClBackend*>(&b); cl && a.view.native) {
    if (clEnqueueFillBuffer(cl->queue(), static_cast<cl_mem>(a.view.native), &value, 1, a.offset,
                            a.bytes, 0, nullptr, nullptr) != CL_SUCCESS)
      return false;
    return clFinish(cl->queue()) == CL_SUCCESS;
  }
#endif
  if (a.view.host == nullptr) return false;
  std::memset(a.view.host + a.offset, value, a.bytes);
  return true;
}

struct Records {
  std::vector<std::string> lines;
  void add(const std::string& system, const std::string& mode, uint64_t bytes,
           std::vector<int64_t>& ns) {
    std::sort(ns.begin(), ns.end());
    const double median = static_cast<double>(ns[ns.size() / 2]) / 1e3;
    const double p99 = static_cast<double>(ns[std::min(ns.size() - 1, ns.size() * 99 / 100)]) / 1e3;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "{\"system\": \"%s\", \"mode\": \"%s\", \"size\": %llu, \"median\": %.3f, "
                  "\"p99\": %.3f, \"max\": %.3f, \"samples\": %zu, \"unit\": \"us\"}",
                  system.c_str(), mode.c_str(), static_cast<unsigned long long>(bytes), median, p99,
                  static_cast<double>(ns.back()) / 1e3, ns.size());
    lines.emplace_back(buf);
    std::printf("%s\n", buf);
    std::fflush(stdout);
  }
};

int64_t since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string share = baton::bench::default_ros_share();
  std::string domain = "opencl:0:sc";
  std::string out = "out/bench/ros2_domain.json";
  int samples = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--share" && i + 1 < argc) {
      share = argv[++i];
    } else if (a == "--domain" && i + 1 < argc) {
      domain = argv[++i];
    } else if (a == "--samples" && i + 1 < argc) {
      samples = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (a == "--quick") {
      samples = 5;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--share DIR] [--domain D] [--samples N] [--quick] [--out FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  TypeRegistry reg;
  const MessageDescription* t = baton::bench::load_image_type(reg, share);
  if (t == nullptr) return 2;
  const MessageDescription& it = *t;
  auto backend = memory::domain::open_domain(domain);
  if (!backend) {
    std::fprintf(stderr, "%s unavailable: %s\n", domain.c_str(), backend.error().detail.c_str());
    return 2;
  }
  DomainBackend& b = **backend;
  auto ctx = Context::create();
  baton::Node node(ctx, "bench_ros2_domain");
  WireQos q;
  q.depth = 2;
  const uint64_t bytes = uint64_t{W} * H * 3;
  Records rec;

  // domain_loan
  {
    auto dsub =
        ros2::DomainSubscription::create(node, it, "/bench/domain_image", nullptr, domain, q);
    auto pub = ros2::Publisher::create(node, it, "/bench/domain_image", nullptr, q, domain);
    if (!dsub || !pub) {
      std::fprintf(stderr, "domain endpoints: %s\n",
                   (!dsub ? dsub.error().detail : pub.error().detail).c_str());
      return 1;
    }
    Value shape = image(it);
    shape.at(it, "data") = Value::reserved(bytes);
    std::vector<int64_t> ns;
    for (int i = 0; i < samples + WARMUP; ++i) {
      // The loan is taken inside the timed region: it is part of publishing in the domain. The
      // producer's fill happens on it, so its time is subtracted.
      const auto t0 = Clock::now();
      auto loan = pub->loan(shape);
      if (!loan) return std::fprintf(stderr, "loan: %s\n", loan.error().detail.c_str()), 1;
      const auto f0 = Clock::now();
      if (!produce_on_device(b, *loan->device_array("data"), static_cast<uint8_t>(i)))
        return std::fprintf(stderr, "cannot write into %s\n", domain.c_str()), 1;
      const int64_t fill = since(f0);
      if (!pub->publish(std::move(*loan))) return std::fprintf(stderr, "publish failed\n"), 1;
      if (!(*dsub)->wait(std::chrono::seconds(5))) return std::fprintf(stderr, "no sample\n"), 1;
      auto s = (*dsub)->take();
      if (!s || !s->array("data") || s->array("data")->bytes != bytes)
        return std::fprintf(stderr, "bad domain sample\n"), 1;
      if (i >= WARMUP) ns.push_back(since(t0) - fill);
    }
    rec.add("baton Ros2Publisher::loan(" + domain + ") -> Ros2DomainSubscription(" + domain + ")",
            "domain_loan", bytes, ns);
  }

  // host_take and host_take_upload
  for (bool upload : {false, true}) {
    const std::string topic = upload ? "/bench/host_image_up" : "/bench/host_image";
    auto sub = ros2::Subscription::create(node, it, topic, nullptr, q);
    auto pub = ros2::Publisher::create(node, it, topic, nullptr, q);
    if (!sub || !pub) return std::fprintf(stderr, "host endpoints failed\n"), 1;
    std::vector<uint8_t> pixels(bytes);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7 + 13);
    Value msg = image(it);
    msg.at(it, "data").view = pixels;
    auto device = b.create_pool(bytes, "baton_bench_ros2_domain_" + std::to_string(::getpid()));
    if (upload && !device)
      return std::fprintf(stderr, "no device buffer in %s\n", domain.c_str()), 1;
    std::vector<int64_t> ns;
    for (int i = 0; i < samples + WARMUP; ++i) {
      const auto t0 = Clock::now();
      if (!pub->publish(msg)) return std::fprintf(stderr, "publish failed\n"), 1;
      if (!(*sub)->wait(std::chrono::seconds(5))) return std::fprintf(stderr, "no sample\n"), 1;
      auto s = (*sub)->take();
      if (!s) return std::fprintf(stderr, "no host sample\n"), 1;
      const auto px = s->value.at(it, "data").bytes();
      if (px.size() != bytes) return std::fprintf(stderr, "bad host sample\n"), 1;
      if (upload && !b.copy_from_host(*device, 0, px.data(), px.size()))
        return std::fprintf(stderr, "upload into %s failed\n", domain.c_str()), 1;
      if (i >= WARMUP) ns.push_back(since(t0));
    }
    rec.add(upload ? "baton Ros2Publisher::publish -> Ros2Subscription::take + upload to " + domain
                   : std::string("baton Ros2Publisher::publish -> Ros2Subscription::take"),
            upload ? "host_take_upload" : "host_take", bytes, ns);
  }

  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::ofstream f(out);
  for (const auto& l : rec.lines) f << l << "\n";
  std::fprintf(stderr, "wrote %s\n", out.c_str());
  return f ? 0 : 1;
}
