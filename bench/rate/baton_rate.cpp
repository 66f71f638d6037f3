// baton-bench-rate: latency and CPU cost of receiving a periodic stream (e.g. a 1 kHz IMU) in
// each wait mode, plus the CPU an idle subscriber burns. The echo child publishes `--rate` Hz
// messages stamped with CLOCK_MONOTONIC; the parent subscribes and records (receive - send)
// and its own CPU time (getrusage) over the run. This is where adaptive waiting earns its
// keep: busy-poll latency without a spinning core.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;
using baton::bench::now_ns;
using namespace std::chrono_literals;

namespace {

const baton::topic::TypeInfo kType = baton::topic::TypeInfo::from_name("baton_bench/msg/Stamped");

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

baton::WaitMode wait_mode_of(const std::string& m) {
  if (m == "busy-poll") return baton::WaitMode::BusyPoll;
  if (m == "adaptive") return baton::WaitMode::Adaptive;
  return baton::WaitMode::Blocking;
}

int run_publisher(const pp::Options& o, double rate_hz) {
  pp::echo_setup(o);
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "rate_publisher");
  auto pub = node.raw_publisher("/bench/rate", kType).qos(baton::QoS(10).best_effort()).create();
  if (!pub) pp::die(pub.error().detail);
  while (pub->subscription_count() == 0) std::this_thread::sleep_for(1ms);
  const std::int64_t period = static_cast<std::int64_t>(1e9 / rate_hz);
  std::int64_t next = static_cast<std::int64_t>(now_ns()) + period;
  for (std::size_t i = 0; i < o.iterations; ++i) {
    // Sleep to just before the slot, then spin to it: a precise periodic source.
    std::int64_t wake = next - 100'000;
    while (static_cast<std::int64_t>(now_ns()) < wake)
      std::this_thread::sleep_for(std::chrono::nanoseconds(wake - now_ns()));
    while (static_cast<std::int64_t>(now_ns()) < next) {
    }
    auto loan = pub->loan(o.size);
    if (!loan) pp::die("loan failed");
    const std::uint64_t stamp = now_ns();
    std::memcpy(loan->data(), &stamp, sizeof(stamp));
    (void)pub->publish(std::move(*loan), o.size);
    next += period;
  }
  std::this_thread::sleep_for(50ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string rate_text = "1000";
  std::string idle_text = "2";
  pp::ProgramInfo info;
  info.program = "baton-bench-rate";
  info.system = "baton-rate";
  info.description =
      "A periodic stream (--rate Hz) from a child publisher to this subscriber: latency\n"
      "(send stamp to receipt) and the subscriber's CPU use, per wait mode; then the CPU an\n"
      "idle subscriber uses over --idle seconds.";
  info.modes = {"busy-poll", "blocking", "adaptive"};
  info.uses_payload_work = false;
  info.extra = {{"rate", "HZ", "publish rate (default 1000)", &rate_text},
                {"idle", "SECONDS", "idle measurement length (default 2; 0 skips)", &idle_text}};
  pp::Options o = pp::parse_options(argc, argv, info);
  const double rate = std::stod(rate_text);
  if (o.echo) return run_publisher(o, rate);
  std::string ns = "bench-rate-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  pp::parent_setup(o);
  std::printf("# %s  rate %.0f Hz  cpus %d,%d%s\n", info.program.c_str(), rate, o.cpu_a, o.cpu_b,
              o.quick ? "  (quick)" : "");
  std::printf("%-10s %-14s %8s %12s %12s %12s %10s\n", "system", "mode", "samples", "median us",
              "p99 us", "max us", "cpu %");
  const std::uint64_t size = 64;
  const std::size_t samples = o.samples ? o.samples : (o.quick ? 500 : 3000);
  for (const auto& mode : o.modes) {
    auto ctx = baton::Context::create();
    baton::Node node(ctx, "rate_subscriber");
    auto sub = node.raw_subscription("/bench/rate", kType)
                   .qos(baton::QoS(10).best_effort())
                   .wait_mode(wait_mode_of(mode), 50us)
                   .create();
    if (!sub) pp::fail(sub.error().detail);
    pp::spawn_echo(o, mode, size, samples, {"--rate", rate_text});
    std::vector<double> latency;
    latency.reserve(samples);
    pp::arm_deadline(static_cast<unsigned>(samples / rate) + 60);
    const double cpu0 = cpu_seconds();
    const std::uint64_t t0 = now_ns();
    while (latency.size() < samples) {
      if (!(*sub)->wait(200ms)) {
        if (!(*sub)->has_data() && (*sub)->publisher_count() == 0 && !latency.empty()) break;
        pp::echo_alive();
        continue;
      }
      while (auto m = (*sub)->take()) {
        const std::uint64_t now = now_ns();
        std::uint64_t stamp;
        std::memcpy(&stamp, m->data(), sizeof(stamp));
        latency.push_back((now - stamp) / 1000.0);
      }
    }
    const double cpu = (cpu_seconds() - cpu0) / ((now_ns() - t0) / 1e9) * 100.0;
    pp::disarm_deadline();
    pp::finish_echo();
    baton::bench::Record r;
    r.system = "baton";
    r.mode = mode + "@" + rate_text + "Hz";
    r.size = size;
    std::vector<double> warm(latency.begin() + latency.size() / 10, latency.end());
    r.stats = baton::bench::summarize(warm);
    std::printf("%-10s %-14s %8zu %12.3f %12.3f %12.3f %10.1f  (lost %llu)\n", r.system.c_str(),
                r.mode.c_str(), r.stats.samples, r.stats.median, r.stats.p99, r.stats.max, cpu,
                static_cast<unsigned long long>((*sub)->lost()));
    if (!o.json.empty()) {
      baton::bench::append_json(o.json, r);
      baton::bench::Record c = r;
      c.mode = mode + "@" + rate_text + "Hz-cpu";
      c.stats = {cpu, cpu, cpu, 1};
      c.unit = "%cpu";
      baton::bench::append_json(o.json, c);
    }
  }
  const double idle_s = std::stod(idle_text);
  if (idle_s > 0) {
    for (const std::string mode : {"adaptive", "blocking"}) {
      auto ctx = baton::Context::create();
      baton::Node node(ctx, "idle_subscriber");
      auto sub = node.raw_subscription("/bench/idle", kType).wait_mode(wait_mode_of(mode)).create();
      if (!sub) pp::fail(sub.error().detail);
      const double cpu0 = cpu_seconds();
      const std::uint64_t t0 = now_ns();
      while ((now_ns() - t0) / 1e9 < idle_s) (void)(*sub)->wait(200ms);
      const double cpu = (cpu_seconds() - cpu0) / ((now_ns() - t0) / 1e9) * 100.0;
      std::printf("%-10s %-14s %8s %12s %12s %12s %10.2f\n", "baton", ("idle-" + mode).c_str(), "-",
                  "-", "-", "-", cpu);
      if (!o.json.empty()) {
        baton::bench::Record c;
        c.system = "baton";
        c.mode = "idle-" + mode + "-cpu";
        c.size = 0;
        c.stats = {cpu, cpu, cpu, 1};
        c.unit = "%cpu";
        baton::bench::append_json(o.json, c);
      }
    }
  }
  pp::shutdown_all();
  return 0;
}
