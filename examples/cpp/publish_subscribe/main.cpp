// publish_subscribe: a typed publisher and subscription in two processes.
//   ./example-publish-subscribe talker     # publishes a Pose at 10 Hz
//   ./example-publish-subscribe listener   # prints each Pose it receives
// Run both in two terminals (same user); start them in any order.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "baton/baton.hpp"

struct Pose {
  double x, y, theta;
  std::uint64_t count;
};
BATON_MESSAGE(Pose, "examples/msg/Pose");

using namespace std::chrono_literals;

int talker(int messages) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "talker");
  auto pub = node.publisher<Pose>("pose").qos(baton::QoS(10).transient_local()).create();
  if (!pub) {
    std::fprintf(stderr, "cannot publish: %s\n", pub.error().detail.c_str());
    return 1;
  }
  for (int i = 0; i < messages; ++i) {
    auto loan = pub->loan();  // a Pose constructed in shared memory
    if (!loan) return 1;
    (*loan)->x = i * 0.1;
    (*loan)->theta = 0.5;
    (*loan)->count = static_cast<std::uint64_t>(i);
    if (!pub->publish(std::move(*loan))) std::fprintf(stderr, "publish failed\n");
    std::printf("published pose %d\n", i);
    std::this_thread::sleep_for(100ms);
  }
  return 0;
}

int listener(int messages) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "listener");
  auto sub = node.subscription<Pose>("pose").qos(baton::QoS(10).transient_local()).create();
  if (!sub) {
    std::fprintf(stderr, "cannot subscribe: %s\n", sub.error().detail.c_str());
    return 1;
  }
  for (int got = 0; got < messages;) {
    if (!(*sub)->wait(5s)) {
      std::fprintf(stderr, "no message for 5 s (is the talker running?)\n");
      return 1;
    }
    while (auto m = (*sub)->take()) {  // reads the talker's bytes in place
      std::printf("pose %llu: x=%.1f theta=%.1f\n", static_cast<unsigned long long>((*m)->count),
                  (*m)->x, (*m)->theta);
      ++got;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  const int messages = argc > 2 ? std::atoi(argv[2]) : 20;
  if (argc > 1 && std::strcmp(argv[1], "talker") == 0) return talker(messages);
  if (argc > 1 && std::strcmp(argv[1], "listener") == 0) return listener(messages);
  std::fprintf(stderr, "usage: %s talker|listener [count]\n", argv[0]);
  return 2;
}
