// baton-bench-pool-growth: how long a publisher stalls while its chunk pool grows, and what a
// subscriber sees of it. The reproducer of the stalls seed 003's scenarios B and D showed with
// 2 MiB messages (bench/suite; docs/design/core.md, "Chunk pools").
//
// Setup: a forked child subscribes (reliable keep-last --depth, blocking wait) and holds each
// sample --hold-us before releasing it (a slow reader); then the parent creates the publisher
// (same QoS; in mode "reserve" with reserve(--size, depth + 2): the ring, one loan, one sample
// held; "reserve-commit" adds commit_reservation(), all of it committed at creation) and
// publishes --messages loans of --size bytes at --rate Hz. Nothing is warmed up: the
// first messages are the point.
// Timed: per message, loan() + publish() in the publisher (growth happens inside loan()), and
// the delay from the message's tick (its scheduled send time; without a rate, the start of its
// loan) to take() in the subscriber — carried in the payload, CLOCK_MONOTONIC on one machine —
// so a stall shows in the message it hits and in those queued behind it. A "stall" is a loan +
// publish above --stall-us; each is listed with the data segments the pool created during that
// message. Output: a table, and one JSON line per mode appended to --json (default
// out/bench/pool_growth.json).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"
#include "bench/floors/pingpong_harness.hpp"  // pp::split, pp::parse_u64, pp::die

namespace pp = baton::bench::pp;
using baton::bench::now_ns;
using namespace std::chrono_literals;

namespace {

const baton::topic::TypeInfo kType =
    baton::topic::TypeInfo::from_name("baton_bench/msg/PoolGrowth");
constexpr const char* kTopic = "/bench/pool_growth";

struct Options {
  std::vector<std::string> modes = {"grow", "reserve", "reserve-commit"};
  std::uint64_t size = 2ull << 20;
  std::uint64_t messages = 200;
  std::uint32_t depth = 64;
  double rate = 1000;
  std::uint64_t hold_us = 200;
  std::uint64_t stall_us = 300;
  int cpu_pub = 0, cpu_sub = 1;
  std::string json = "out/bench/pool_growth.json";
};

void print_help() {
  std::printf(
      "usage: baton-bench-pool-growth [options]\n\n"
      "Publishes --messages loans of --size bytes into a reliable keep-last(--depth) topic with\n"
      "a slow subscriber in another process, from a fresh publisher; reports per-message\n"
      "loan + publish time, the subscriber's delay, and the stalls (chunk-pool growth).\n\n"
      "  --modes LIST     grow (default growth on demand), reserve (reserve(size, depth + 2) at\n"
      "                   creation), reserve-commit (the same, all committed at creation);\n"
      "                   default: grow,reserve,reserve-commit\n"
      "  --size BYTES     payload per message (K/M suffixes; default 2M)\n"
      "  --messages N     messages per mode (default 200)\n"
      "  --depth D        keep-last depth of both ends (default 64)\n"
      "  --rate HZ        publish rate; 0 = without pause (default 1000)\n"
      "  --hold-us US     the subscriber holds each sample this long (default 200)\n"
      "  --stall-us US    a loan + publish above this is listed as a stall (default 300)\n"
      "  --cpus A,B       publisher on CPU A, subscriber on CPU B (-1: unpinned; default 0,1)\n"
      "  --json PATH      append one JSON line per mode ('' = none)\n");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) pp::die("option " + key + " needs a value (see --help)");
      return argv[++i];
    };
    if (key == "--help" || key == "-h") {
      print_help();
      std::exit(0);
    } else if (key == "--modes") {
      o.modes = pp::split(value(), ',');
      for (auto& m : o.modes)
        if (m != "grow" && m != "reserve" && m != "reserve-commit")
          pp::die("unknown mode '" + m + "' (grow, reserve, reserve-commit)");
    } else if (key == "--size") {
      o.size = pp::parse_u64(value(), "--size");
    } else if (key == "--messages") {
      o.messages = pp::parse_u64(value(), "--messages");
    } else if (key == "--depth") {
      o.depth = static_cast<std::uint32_t>(pp::parse_u64(value(), "--depth"));
    } else if (key == "--rate") {
      o.rate = std::stod(value());
    } else if (key == "--hold-us") {
      o.hold_us = pp::parse_u64(value(), "--hold-us");
    } else if (key == "--stall-us") {
      o.stall_us = pp::parse_u64(value(), "--stall-us");
    } else if (key == "--cpus") {
      auto parts = pp::split(value(), ',');
      if (parts.size() != 2) pp::die("--cpus needs A,B");
      o.cpu_pub = std::stoi(parts[0]);
      o.cpu_sub = std::stoi(parts[1]);
    } else if (key == "--json") {
      o.json = value();
    } else {
      pp::die("unknown option " + key + " (see --help)");
    }
  }
  if (o.size < 16) pp::die("--size must be at least 16 bytes (sequence number + send time)");
  if (o.messages == 0 || o.depth == 0) pp::die("--messages and --depth must be positive");
  return o;
}

baton::QoS qos(const Options& o) { return baton::QoS(o.depth).reliable().reliable_timeout(30s); }

// Subscriber process: signals readiness on `ready_fd`, takes every message, holds it, and writes
// one {seq, delay_ns} pair per message to `out_fd` at the end.
[[noreturn]] void run_subscriber(const Options& o, int ready_fd, int out_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  baton::bench::pin_to_cpu(o.cpu_sub);
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "pool_growth_sub");
  auto sub = node.raw_subscription(kTopic, kType).qos(qos(o)).create();
  if (!sub) pp::die("subscription: " + sub.error().detail);
  const char ok = 1;
  if (write(ready_fd, &ok, 1) != 1) _exit(2);
  std::vector<std::uint64_t> results;
  results.reserve(o.messages * 2);
  const std::uint64_t give_up = now_ns() + 60'000'000'000ull;
  while (results.size() < o.messages * 2 && now_ns() < give_up) {
    auto m = (*sub)->take();
    if (!m) {
      (*sub)->wait(200ms);
      continue;
    }
    const std::uint64_t received = now_ns();
    std::uint64_t seq = 0, sent = 0;
    std::memcpy(&seq, m->data(), 8);
    std::memcpy(&sent, m->data() + 8, 8);
    results.push_back(seq);
    results.push_back(received - sent);
    const std::uint64_t until = received + o.hold_us * 1000;
    while (now_ns() < until) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  const auto bytes = results.size() * sizeof(std::uint64_t);
  if (write(out_fd, results.data(), bytes) != static_cast<ssize_t>(bytes)) _exit(3);
  _exit(0);
}

struct Stall {
  std::uint64_t seq;
  double us;
  std::uint32_t segments_added;
};

struct ModeResult {
  baton::bench::LatencySummary send, delay;
  std::vector<Stall> stalls;
  std::uint32_t segments_at_start = 0, segments_at_end = 0;
  std::uint64_t received = 0;
  double worst_delay_us = 0;
  std::uint64_t worst_delay_seq = 0;
};

std::vector<std::uint64_t> read_all(int fd) {
  std::vector<std::uint64_t> v;
  std::uint64_t buf[512];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    v.insert(v.end(), buf, buf + n / 8);
  }
  return v;
}

ModeResult run_mode(const Options& o, const std::string& mode) {
  int ready[2], out[2];
  if (pipe(ready) != 0 || pipe(out) != 0) pp::die("pipe failed");
  const pid_t child = fork();
  if (child < 0) pp::die("fork failed");
  if (child == 0) {
    close(ready[0]);
    close(out[0]);
    run_subscriber(o, ready[1], out[1]);
  }
  close(ready[1]);
  close(out[1]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1) pp::die("the subscriber process failed to start");
  close(ready[0]);

  ModeResult r;
  std::vector<double> send_us;
  {
    auto ctx = baton::Context::create();
    baton::Node node(ctx, "pool_growth_pub");
    auto builder = node.raw_publisher(kTopic, kType).qos(qos(o)).max_message_size(o.size);
    // What an engineer with a fixed frame size does: the ring (depth), one loan being filled,
    // one sample the reader holds — paid at creation, not on the first messages.
    auto pub = mode == "grow" ? std::move(builder).create()
                              : std::move(builder)
                                    .reserve(o.size, o.depth + 2)
                                    .commit_reservation(mode == "reserve-commit")
                                    .create();
    if (!pub) pp::die("publisher: " + pub.error().detail);
    const auto& pool = pub->port().pool();
    r.segments_at_start = pool.segment_count();
    const std::uint64_t period_ns = o.rate > 0 ? static_cast<std::uint64_t>(1e9 / o.rate) : 0;
    std::uint64_t next = now_ns();
    for (std::uint64_t seq = 0; seq < o.messages; ++seq) {
      // The message is "ready" at its tick (or now, without a rate): a stall delays this
      // message and every later one until the publisher has caught up with its schedule.
      std::uint64_t ready = now_ns();
      if (period_ns != 0) {
        while (now_ns() < next) {
        }
        ready = next;
        next += period_ns;
      }
      const std::uint32_t segs = pool.segment_count();
      const std::uint64_t t0 = now_ns();
      auto loan = pub->loan(o.size);
      if (!loan)
        pp::die(std::string("loan: ") + std::string(baton::topic::to_string(loan.error())));
      std::memcpy(loan->data(), &seq, 8);
      std::memcpy(loan->data() + 8, &ready, 8);
      auto p = pub->publish(std::move(*loan), o.size);
      if (!p) pp::die(std::string("publish: ") + std::string(baton::topic::to_string(p.error())));
      const double us = static_cast<double>(now_ns() - t0) / 1000.0;
      send_us.push_back(us);
      if (us > static_cast<double>(o.stall_us))
        r.stalls.push_back({seq, us, pool.segment_count() - segs});
    }
    r.segments_at_end = pool.segment_count();
    // Keep the publisher (and its segments) until the subscriber has taken everything.
    int status = 0;
    std::vector<std::uint64_t> pairs = read_all(out[0]);
    close(out[0]);
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) pp::die("the subscriber process failed");
    std::vector<double> delay_us;
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
      delay_us.push_back(static_cast<double>(pairs[i + 1]) / 1000.0);
      if (r.worst_delay_us < delay_us.back()) {
        r.worst_delay_us = delay_us.back();
        r.worst_delay_seq = pairs[i];
      }
    }
    r.received = delay_us.size();
    r.delay = baton::bench::summarize(delay_us);
  }
  r.send = baton::bench::summarize(send_us);
  return r;
}

std::string json_line(const Options& o, const std::string& mode, const ModeResult& r) {
  std::string s = "{\"system\":\"baton\",\"bench\":\"pool_growth\",\"mode\":\"" + mode + "\"";
  char buf[512];
  std::snprintf(
      buf, sizeof(buf),
      ",\"size\":%llu,\"messages\":%llu,\"received\":%llu,\"depth\":%u,\"rate\":%.1f,"
      "\"hold_us\":%llu,\"send_median\":%.2f,\"send_p99\":%.2f,\"send_max\":%.2f,"
      "\"delay_median\":%.2f,\"delay_p99\":%.2f,\"delay_max\":%.2f,"
      "\"worst_delay_seq\":%llu,\"segments_at_start\":%u,\"segments_at_end\":%u,"
      "\"unit\":\"us\",\"stalls\":[",
      static_cast<unsigned long long>(o.size), static_cast<unsigned long long>(o.messages),
      static_cast<unsigned long long>(r.received), o.depth, o.rate,
      static_cast<unsigned long long>(o.hold_us), r.send.median, r.send.p99, r.send.max,
      r.delay.median, r.delay.p99, r.delay.max, static_cast<unsigned long long>(r.worst_delay_seq),
      r.segments_at_start, r.segments_at_end);
  s += buf;
  for (std::size_t i = 0; i < r.stalls.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s{\"seq\":%llu,\"us\":%.1f,\"segments_added\":%u}",
                  i ? "," : "", static_cast<unsigned long long>(r.stalls[i].seq), r.stalls[i].us,
                  r.stalls[i].segments_added);
    s += buf;
  }
  return s + "]}";
}

// Removes what this run left in /dev/shm (its private namespace: the topic directory and the
// graph registry outlive their users by design), once every process of the run has exited.
void remove_run_segments() {
  const std::string prefix = baton::shm::segment_prefix().substr(1);  // without the leading '/'
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) baton::shm::Segment::unlink("/" + name);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::string ns = "bench-pool-growth-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  baton::bench::pin_to_cpu(o.cpu_pub);
  std::printf("%-8s %10s %10s %10s %10s %10s %10s %6s %9s  stalls (seq: us, +segments)\n", "mode",
              "send med", "send p99", "send max", "delay med", "delay p99", "delay max", "at seq",
              "segments");
  for (const auto& mode : o.modes) {
    const ModeResult r = run_mode(o, mode);
    std::printf("%-8s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %6llu %4u->%-4u ", mode.c_str(),
                r.send.median, r.send.p99, r.send.max, r.delay.median, r.delay.p99, r.delay.max,
                static_cast<unsigned long long>(r.worst_delay_seq), r.segments_at_start,
                r.segments_at_end);
    for (const auto& st : r.stalls)
      std::printf(" %llu: %.0f (+%u)", static_cast<unsigned long long>(st.seq), st.us,
                  st.segments_added);
    std::printf("\n");
    if (r.received != o.messages)
      pp::die("the subscriber received " + std::to_string(r.received) + " of " +
              std::to_string(o.messages) + " messages");
    if (!o.json.empty()) {
      std::filesystem::path p(o.json);
      if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
      if (FILE* f = std::fopen(o.json.c_str(), "a")) {
        std::fprintf(f, "%s\n", json_line(o, mode, r).c_str());
        std::fclose(f);
      }
    }
  }
  remove_run_segments();
  return 0;
}
