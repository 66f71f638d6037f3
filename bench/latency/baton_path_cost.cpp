// baton-bench-path-cost: what baton's own code costs per message, without the cache-line
// transfers between cores that a ping-pong also pays: one thread loans, writes 8 bytes,
// publishes, takes, reads and releases on one topic, over and over. The lines stay in this
// core's cache, so what is left is instructions and locked operations (issue 20: the busy-poll
// one-way is the hand-off's transfers, see baton-floor-handoff, plus this).
//
//   baton-bench-path-cost [--messages N] [--batches B] [--reliable | --best-effort]
//
// Prints the median and the minimum over B batches of N messages of the ns per message.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "baton/baton.hpp"
#include "bench/common/clock.hpp"

using baton::bench::now_ns;
using namespace std::chrono_literals;

int main(int argc, char** argv) {
  std::uint64_t messages = 100000, batches = 21;
  bool reliable = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--messages" && i + 1 < argc) {
      messages = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--batches" && i + 1 < argc) {
      batches = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--best-effort") {
      reliable = false;
    } else if (a == "--reliable") {
      reliable = true;
    } else {
      std::fprintf(stderr,
                   "usage: baton-bench-path-cost [--messages N] [--batches B] "
                   "[--reliable | --best-effort]\n");
      return 2;
    }
  }
  const std::string ns = "bench-path-cost-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  const auto type = baton::topic::TypeInfo::from_name("baton_bench/msg/Payload");
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "bench_path_cost");
  auto qos = baton::QoS(10);
  if (reliable) qos = qos.reliable().reliable_timeout(10s);
  auto p = node.raw_publisher("/bench/path", type)
               .qos(qos)
               .max_message_size(256)
               .reserve(256, qos.depth() + 2)
               .create();
  if (!p) {
    std::fprintf(stderr, "publisher: %s\n", p.error().detail.c_str());
    return 1;
  }
  auto s = node.raw_subscription("/bench/path", type).qos(qos).create();
  if (!s) {
    std::fprintf(stderr, "subscription: %s\n", s.error().detail.c_str());
    return 1;
  }
  auto sub = *s;
  std::vector<double> per_message;
  std::uint64_t seq = 0;
  for (std::uint64_t b = 0; b <= batches; ++b) {  // batch 0 warms up
    const std::uint64_t t0 = now_ns();
    for (std::uint64_t i = 0; i < messages; ++i, ++seq) {
      auto loan = p->loan(64);
      if (!loan) return std::fprintf(stderr, "loan failed\n"), 1;
      std::memcpy(loan->data(), &seq, sizeof(seq));
      if (!p->publish(std::move(*loan), 64)) return std::fprintf(stderr, "publish failed\n"), 1;
      auto m = sub->take();
      std::uint64_t got = 0;
      if (!m) return std::fprintf(stderr, "take found nothing\n"), 1;
      std::memcpy(&got, m->data(), sizeof(got));
      if (got != seq)
        return std::fprintf(stderr, "took %llu, not %llu\n", static_cast<unsigned long long>(got),
                            static_cast<unsigned long long>(seq)),
               1;
    }
    if (b > 0) per_message.push_back(static_cast<double>(now_ns() - t0) / messages);
  }
  std::sort(per_message.begin(), per_message.end());
  std::printf("baton path cost (%s): %.1f ns per message median, %.1f min, over %llu x %llu\n",
              reliable ? "reliable" : "best-effort", per_message[per_message.size() / 2],
              per_message.front(), static_cast<unsigned long long>(batches),
              static_cast<unsigned long long>(messages));
  return 0;
}
