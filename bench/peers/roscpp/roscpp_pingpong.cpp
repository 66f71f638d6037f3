// baton-peer-roscpp: ping-pong latency over ROS 1 roscpp (Debian 1.15, TCPROS with
// TCP_NODELAY), the same protocol and options as the other peers (bench/floors/
// pingpong_harness.hpp); seed 003 scenario C's ROS 1 C++ row. The parent starts a private
// rosmaster on a free port (stopped on exit), publishes std_msgs/UInt8MultiArray pings on
// /baton_ping_<size> and takes the pongs from /baton_pong_<size>; the exec'd echo child answers.
// Both drain a private CallbackQueue (roscpp_transport.hpp). One-way latency = RTT / 2.
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"
#include "bench/peers/roscpp/roscpp_transport.hpp"

namespace pp = baton::bench::pp;
namespace rc = baton::bench::roscpp;
using baton::bench::now_ns;

namespace {

constexpr std::uint32_t kHello = baton::bench::stream::kHello;

std::string topic(const char* dir, std::uint64_t size) {
  return std::string("/baton_") + dir + "_" + std::to_string(size);
}

// Waits for the next non-HELLO message; returns its sequence number.
template <typename Check>
std::uint32_t receive(rc::RoscppTransport& t, Check&& check) {
  for (;;) {
    std::uint32_t seq, value;
    std::uint64_t size;
    if (!t.receive(&seq, &value, &size, 200'000'000)) {
      check();
      continue;
    }
    if (seq != kHello) return seq;
  }
}

int run_echo(const pp::Options& o) {
  pp::echo_setup(o);
  const pid_t parent = getppid();
  auto parent_alive = [parent] {
    if (getppid() != parent) _exit(1);
  };
  rc::init_node("baton_pingpong_echo");
  rc::RoscppTransport t(10, false);
  t.advertise(topic("pong", o.size), o.size);
  t.subscribe(topic("ping", o.size), o.size);
  for (std::size_t done = 0; done < o.iterations;) {
    std::uint32_t seq, value;
    std::uint64_t size;
    if (!t.receive(&seq, &value, &size, 200'000'000)) {
      parent_alive();
      continue;
    }
    if (size != o.size) pp::fail("roscpp echo: message of the wrong size");
    t.send(seq, value, size);
    if (seq != kHello) ++done;
  }
  // Let the last pong leave before the publisher goes away.
  for (int i = 0; i < 200 && t.subscriber_count() > 0 && getppid() == parent; ++i) usleep(5000);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  pp::ProgramInfo info;
  info.program = "baton-peer-roscpp";
  info.system = "roscpp";
  info.description =
      "Ping-pong over ROS 1 roscpp (TCPROS, TCP_NODELAY, std_msgs/UInt8MultiArray, queue 10),\n"
      "with a private rosmaster on a free port. blocking: CallbackQueue::callOne(timeout).";
  info.modes = {"blocking"};
  info.uses_payload_work = false;
  pp::Options o = pp::parse_options(argc, argv, info);
  if (o.echo) return run_echo(o);

  pp::parent_setup(o);
  pp::register_helper(rc::start_rosmaster(), SIGTERM);
  rc::init_node("baton_pingpong_ping");
  pp::print_table_header(info, o);
  auto check = [] { pp::echo_alive(); };
  for (const auto& mode : o.modes) {
    for (std::uint64_t size : o.sizes) {
      const std::size_t samples = pp::samples_for(o, size);
      const std::size_t warmup = pp::warmup_for(samples);
      const std::size_t total = samples + warmup;
      std::vector<std::uint64_t> rtt(total);
      {
        rc::RoscppTransport t(10, false);
        t.advertise(topic("ping", size), size);
        t.subscribe(topic("pong", size), size);
        pp::spawn_echo(o, mode, size, total);
        pp::arm_deadline(900);
        // Handshake: TCPROS connects asynchronously, so ping until the echo answers once.
        for (int k = 0;; ++k) {
          t.send(kHello, 0, size);
          std::uint32_t seq, value;
          std::uint64_t got_size;
          if (t.receive(&seq, &value, &got_size, 50'000'000) && seq == kHello) break;
          check();
          if (k > 600) pp::fail("roscpp echo child did not answer within 30 s");
        }
        for (std::uint32_t i = 0; i < total; ++i) {
          const std::uint64_t t0 = now_ns();
          t.send(i, 0, size);
          const std::uint32_t got = receive(t, check);
          rtt[i] = now_ns() - t0;
          pp::expect_answer(got, i);
        }
        pp::disarm_deadline();
        pp::finish_echo();
      }
      pp::report_rtt(info, o, mode, size, rtt, warmup);
    }
  }
  pp::shutdown_all();
  ros::shutdown();
  return 0;
}
