// baton-bench-latency: baton's two-process ping-pong, the same protocol as the floors and peers.
// The parent publishes on /bench/ping a loan of `size` bytes (payload work: an 8-byte sequence
// number, or the whole payload filled); the echo child takes it, reads it, and answers on
// /bench/pong with its own loan of the same size and work. One-way latency = RTT / 2.
// Modes: busy-poll (spin on the ring), blocking (futex sleep), adaptive (spin 50 us, then sleep).
// Each run uses its own BATON_NAMESPACE so runs never meet.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
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

const baton::topic::TypeInfo kType = baton::topic::TypeInfo::from_name("baton_bench/msg/Payload");

baton::WaitMode wait_mode_of(const std::string& mode) {
  if (mode == "busy-poll") return baton::WaitMode::BusyPoll;
  if (mode == "adaptive") return baton::WaitMode::Adaptive;
  return baton::WaitMode::Blocking;
}

struct Endpoints {
  std::shared_ptr<baton::Context> ctx;
  std::unique_ptr<baton::Node> node;
  baton::RawPublisher pub;
  std::shared_ptr<baton::RawSubscription> sub;
};

Endpoints open_endpoints(const std::string& out_topic, const std::string& in_topic,
                         const std::string& mode, std::uint64_t size) {
  Endpoints e;
  e.ctx = baton::Context::create();
  e.node = std::make_unique<baton::Node>(e.ctx, "bench_pingpong");
  // ROS's default QoS (reliable, keep-last 10), with a wide reliable timeout for slow machines.
  auto qos = baton::QoS(10).reliable().reliable_timeout(10s);
  // The size is known at start: pay for the ring (10), the loan and the sample the peer holds
  // at creation, not during the first round trips (the peers preallocate likewise).
  const std::uint64_t max_size = std::max<std::uint64_t>(size, 256);
  auto pub = e.node->raw_publisher(out_topic, kType)
                 .qos(qos)
                 .max_message_size(max_size)
                 .reserve(max_size, qos.depth() + 2)
                 .create();
  if (!pub) pp::fail("publisher: " + pub.error().detail);
  e.pub = std::move(*pub);
  auto sub = e.node->raw_subscription(in_topic, kType)
                 .qos(qos)
                 .wait_mode(wait_mode_of(mode), 50us)
                 .create();
  if (!sub) pp::fail("subscription: " + sub.error().detail);
  e.sub = *sub;
  return e;
}

// Publishes one message of `size` bytes carrying `seq`.
void send(Endpoints& e, std::uint64_t size, std::uint64_t seq, pp::PayloadWork work) {
  auto loan = e.pub.loan(size);
  if (!loan) pp::fail(std::string("loan: ") + std::string(baton::topic::to_string(loan.error())));
  pp::write_payload(loan->data(), size, seq, work);
  auto r = e.pub.publish(std::move(*loan), size);
  if (!r) pp::fail(std::string("publish: ") + std::string(baton::topic::to_string(r.error())));
}

// Waits for and reads one message; returns its sequence number.
std::uint64_t receive(Endpoints& e, std::uint64_t size, pp::PayloadWork work, bool parent) {
  while (true) {
    auto m = e.sub->take();
    if (m) {
      if (m->size() != size) pp::fail("received a message of the wrong size");
      return pp::read_payload(m->data(), size, work);
    }
    if (!e.sub->wait(200ms)) {
      if (parent)
        pp::echo_alive();
      else if (getppid() == 1)
        _exit(1);
    }
  }
}

int run_echo(const pp::Options& o) {
  pp::echo_setup(o);
  Endpoints e = open_endpoints("/bench/pong", "/bench/ping", o.mode, o.size);
  for (std::size_t i = 0; i < o.iterations; ++i) {
    std::uint64_t seq = receive(e, o.size, o.work, false);
    send(e, o.size, seq, o.work);
  }
  // Wait for the parent to take the last answer before tearing the publisher down.
  while (e.pub.subscription_count() > 0 && getppid() != 1) std::this_thread::sleep_for(1ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  pp::ProgramInfo info;
  info.program = "baton-bench-latency";
  info.system = "baton";
  info.description =
      "baton shared-memory ping-pong between two processes (loan, write, publish; take, read,\n"
      "release), in each wait mode.";
  info.modes = {"busy-poll", "blocking", "adaptive"};
  pp::Options o = pp::parse_options(argc, argv, info);
  if (o.echo) return run_echo(o);

  // A private namespace per run: the echo child inherits it through the environment.
  std::string ns = "bench-latency-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  pp::parent_setup(o);
  pp::print_table_header(info, o);
  for (const auto& mode : o.modes) {
    for (std::uint64_t size : o.sizes) {
      const std::size_t samples = pp::samples_for(o, size);
      const std::size_t warmup = pp::warmup_for(samples);
      const std::size_t total = samples + warmup;
      Endpoints e = open_endpoints("/bench/ping", "/bench/pong", mode, size);
      pp::spawn_echo(o, mode, size, total);
      pp::arm_deadline(600);
      // Wait until the echo side is attached both ways.
      while (e.pub.subscription_count() == 0 || e.sub->publisher_count() == 0) {
        pp::echo_alive();
        std::this_thread::sleep_for(1ms);
      }
      std::vector<std::uint64_t> rtt(total);
      for (std::size_t i = 0; i < total; ++i) {
        const std::uint64_t t0 = now_ns();
        send(e, size, i, o.work);
        const std::uint64_t got = receive(e, size, o.work, true);
        rtt[i] = now_ns() - t0;
        if (got != i)
          pp::fail("echo answered sequence " + std::to_string(got) + ", expected " +
                   std::to_string(i));
      }
      pp::disarm_deadline();
      e.sub.reset();  // lets the echo side see we are done
      pp::finish_echo();
      pp::report_rtt(info, o, mode, size, rtt, warmup);
    }
  }
  pp::shutdown_all();
  return 0;
}
