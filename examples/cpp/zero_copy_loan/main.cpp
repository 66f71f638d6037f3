// zero_copy_loan: a 24 MiB camera frame passed between two processes without a copy.
// The camera borrows a chunk of shared memory, renders into it and publishes; the viewer reads
// the same physical pages. Prints the viewer's checksum so you can see the bytes arrived.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "baton/baton.hpp"

using namespace std::chrono_literals;
constexpr std::uint64_t WIDTH = 4096, HEIGHT = 2048, CHANNELS = 3;  // 24 MiB RGB frame
constexpr std::uint64_t FRAME = WIDTH * HEIGHT * CHANNELS;
const auto kImage = baton::topic::TypeInfo::from_name("examples/msg/RgbFrame");

int viewer(int frames) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "viewer");
  auto sub = node.raw_subscription("camera/image", kImage).create();
  if (!sub) return std::fprintf(stderr, "%s\n", sub.error().detail.c_str()), 1;
  for (int got = 0; got < frames;) {
    if (!(*sub)->wait(5s)) return std::fprintf(stderr, "no frame for 5 s\n"), 1;
    while (auto f = (*sub)->take()) {
      std::uint64_t sum = 0;
      for (std::uint64_t i = 0; i < f->size(); i += 4096) sum += std::to_integer<int>(f->data()[i]);
      std::printf("frame %llu: %llu bytes, checksum %llu\n",
                  static_cast<unsigned long long>(f->sequence()),
                  static_cast<unsigned long long>(f->size()), static_cast<unsigned long long>(sum));
      ++got;
    }
  }
  return 0;
}

int camera(int frames) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "camera");
  auto pub = node.raw_publisher("camera/image", kImage).qos(baton::QoS(2)).create();
  if (!pub) return std::fprintf(stderr, "%s\n", pub.error().detail.c_str()), 1;
  while (pub->subscription_count() == 0) std::this_thread::sleep_for(10ms);
  for (int i = 0; i < frames; ++i) {
    auto frame = pub->loan(FRAME);  // borrowed shared memory: render straight into it
    if (!frame) return 1;
    std::memset(frame->data(), i + 1, FRAME);
    if (!pub->publish(std::move(*frame), FRAME)) return 1;
    std::this_thread::sleep_for(30ms);
  }
  return 0;
}

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::atoi(argv[1]) : 5;
  pid_t child = fork();
  if (child == 0) _exit(viewer(frames));
  int rc = camera(frames);
  int status = 0;
  waitpid(child, &status, 0);
  return rc != 0 ? rc : WEXITSTATUS(status);
}
