// baton-bench-throughput: one publisher to N subscriber processes (default 1, 4, 16), reliable
// keep-last(64), as fast as the subscribers keep up. Every subscriber reads the sequence number
// and the last byte of every message. Reports messages/s (per subscriber) and delivered GB/s
// (N x size x messages / time): zero-copy means delivered bytes are never copied.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"

using namespace std::chrono_literals;
namespace {

const baton::topic::TypeInfo kType = baton::topic::TypeInfo::from_name("baton_bench/msg/Payload");

std::vector<std::uint64_t> parse_list(const char* s) {
  std::vector<std::uint64_t> out;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    out.push_back(std::strtoull(p, &end, 10));
    if (*end == 'K') out.back() <<= 10, ++end;
    if (*end == 'M') out.back() <<= 20, ++end;
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) break;
  }
  return out;
}

int subscriber(std::uint64_t size, std::uint64_t messages) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "throughput_sub");
  auto sub = node.raw_subscription("/bench/throughput", kType)
                 .qos(baton::QoS(64))
                 .wait_mode(baton::WaitMode::Adaptive, 20us)
                 .create();
  if (!sub) return 2;
  std::uint64_t expected = 0;
  while (expected < messages) {
    if (!(*sub)->wait(5s)) return 3;
    while (auto m = (*sub)->take()) {
      std::uint64_t seq;
      std::memcpy(&seq, m->data(), sizeof(seq));
      const auto last = std::to_integer<unsigned>(m->data()[size - 1]);
      if (seq != expected || last != (seq & 0xFF)) return 4;
      ++expected;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> subs = {1, 4, 16};
  std::vector<std::uint64_t> sizes = {64, 65536, 4194304};
  bool quick = false;
  std::string json = "out/bench/baton-throughput.json";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--subscribers" && i + 1 < argc)
      subs = parse_list(argv[++i]);
    else if (a == "--sizes" && i + 1 < argc)
      sizes = parse_list(argv[++i]);
    else if (a == "--json" && i + 1 < argc)
      json = argv[++i];
    else {
      std::printf(
          "usage: baton-bench-throughput [--quick] [--subscribers 1,4,16] [--sizes 64,64K,4M]\n"
          "                              [--json PATH]\n"
          "One publisher, N subscriber processes, reliable keep-last(64); messages/s and GB/s.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const std::string ns = "bench-throughput-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  std::printf("%-10s %6s %9s %10s %14s %12s\n", "system", "subs", "size", "messages", "msg/s",
              "GB/s");
  for (std::uint64_t size : sizes) {
    for (std::uint64_t n : subs) {
      std::uint64_t messages = size <= 4096 ? 200000 : size <= (1 << 20) ? 20000 : 2000;
      if (quick) messages /= 10;
      // Subscribers first, forked before this process starts any baton thread.
      std::vector<pid_t> children;
      for (std::uint64_t k = 0; k < n; ++k) {
        pid_t c = fork();
        if (c == 0) _exit(subscriber(size, messages));
        children.push_back(c);
      }
      int failed = 0;
      double seconds = 0;
      {
        auto ctx = baton::Context::create();
        baton::Node node(ctx, "throughput_pub");
        auto pub = node.raw_publisher("/bench/throughput", kType)
                       .qos(baton::QoS(64).reliable_timeout(30s))
                       .create();
        if (!pub) {
          std::fprintf(stderr, "error: %s\n", pub.error().detail.c_str());
          return 1;
        }
        while (pub->subscription_count() < n) std::this_thread::sleep_for(1ms);
        const std::uint64_t t0 = baton::bench::now_ns();
        for (std::uint64_t i = 0; i < messages; ++i) {
          auto loan = pub->loan(size);
          if (!loan) return 1;
          std::memcpy(loan->data(), &i, sizeof(i));
          loan->data()[size - 1] = std::byte(i & 0xFF);
          if (!pub->publish(std::move(*loan), size)) ++failed;
        }
        for (pid_t c : children) {
          int st = 0;
          waitpid(c, &st, 0);
          if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ++failed;
        }
        seconds = (baton::bench::now_ns() - t0) / 1e9;
      }
      const double rate = messages / seconds;
      const double gbps = rate * size * n / 1e9;
      std::printf("%-10s %6llu %9llu %10llu %14.0f %12.2f%s\n", "baton",
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(size),
                  static_cast<unsigned long long>(messages), rate, gbps,
                  failed ? "  (FAILED: a subscriber missed or misread messages)" : "");
      if (!json.empty()) {
        baton::bench::Record r;
        r.system = "baton";
        r.mode = "throughput-" + std::to_string(n) + "sub";
        r.size = size;
        r.stats = {rate, rate, rate, messages};
        r.unit = "msg/s";
        baton::bench::append_json(json, r);
        r.stats = {gbps, gbps, gbps, messages};
        r.unit = "GB/s";
        baton::bench::append_json(json, r);
      }
      if (failed) return 1;
    }
  }
  return 0;
}
