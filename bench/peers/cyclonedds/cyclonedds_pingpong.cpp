// baton-peer-cyclonedds: ping-pong latency over Eclipse CycloneDDS 0.10 (C API), loopback UDP.
//
// Topics "baton_ping" and "baton_pong" of type baton::bench::PingPong (PingPong.idl, compiled by
// idlc): reliable, keep-last 1, volatile. The parent (CPU A) writes pings and reads pongs; an
// exec'd echo child (CPU B) does the opposite. Both wait in a WaitSet on a ReadCondition
// ("blocking" mode) and take() with loans. CYCLONEDDS_URI is set by the program: loopback only,
// no multicast, unicast discovery on 127.0.0.1, a private domain (87 by default), and write
// history watermarks large enough that a 24 MiB sample is never throttled.
// One-way latency = RTT / 2, which includes CDR serialisation, UDP fragmentation/reassembly and
// the copies DDS makes.
#include <dds/dds.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "PingPong.h"
#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"
#include "bench/peers/cyclonedds/cyclone_config.hpp"

namespace pp = baton::bench::pp;
using baton::bench::now_ns;

namespace {

// Handshake messages carry this bit; the timed loop ignores stale ones.
constexpr std::uint64_t kHello = 1ull << 63;

void check_dds(dds_return_t rc, const char* what) {
  if (rc < 0) pp::fail(std::string(what) + " failed: " + dds_strretcode(rc));
}
dds_entity_t check_entity(dds_entity_t e, const char* what) {
  if (e < 0) pp::fail(std::string(what) + " failed: " + dds_strretcode(e));
  return e;
}

class Endpoint {
 public:
  Endpoint(dds_domainid_t domain, const char* out, const char* in, std::uint64_t size,
           pp::PayloadWork work)
      : size_(size), work_(work), buf_(size) {
    participant_ = check_entity(dds_create_participant(domain, nullptr, nullptr),
                                "dds_create_participant (check CYCLONEDDS_URI/loopback)");
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 1);
    dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
    dds_entity_t t_out =
        check_entity(dds_create_topic(participant_, &baton_bench_PingPong_desc, out, qos, nullptr),
                     "dds_create_topic");
    dds_entity_t t_in =
        check_entity(dds_create_topic(participant_, &baton_bench_PingPong_desc, in, qos, nullptr),
                     "dds_create_topic");
    writer_ =
        check_entity(dds_create_writer(participant_, t_out, qos, nullptr), "dds_create_writer");
    reader_ =
        check_entity(dds_create_reader(participant_, t_in, qos, nullptr), "dds_create_reader");
    dds_delete_qos(qos);
    cond_ = check_entity(dds_create_readcondition(reader_, DDS_ANY_STATE), "readcondition");
    ws_ = check_entity(dds_create_waitset(participant_), "dds_create_waitset");
    check_dds(dds_waitset_attach(ws_, cond_, 0), "dds_waitset_attach");
  }
  ~Endpoint() { dds_delete(participant_); }
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  template <typename Check>
  void wait_matched(Check&& check) {
    auto deadline = now_ns() + 20'000'000'000ull;
    for (;;) {
      dds_publication_matched_status_t pm;
      dds_subscription_matched_status_t sm;
      check_dds(dds_get_publication_matched_status(writer_, &pm), "publication status");
      check_dds(dds_get_subscription_matched_status(reader_, &sm), "subscription status");
      if (pm.current_count > 0 && sm.current_count > 0) return;
      check();
      if (now_ns() > deadline) pp::fail("CycloneDDS ping/pong topics did not match within 20 s");
      dds_sleepfor(DDS_MSECS(1));
    }
  }

  void send(std::uint64_t seq) {
    baton_bench_PingPong msg;
    msg.seq = seq;
    msg.payload._maximum = static_cast<std::uint32_t>(size_);
    msg.payload._length = static_cast<std::uint32_t>(size_);
    msg.payload._buffer = buf_.data();
    msg.payload._release = false;
    pp::write_payload(buf_.data(), size_, seq, work_);
    check_dds(dds_write(writer_, &msg), "dds_write");
  }

  // Takes one message if one arrives within `timeout`; returns false on timeout.
  bool receive(std::uint64_t* seq, dds_duration_t timeout) {
    for (;;) {
      void* samples[1] = {nullptr};
      dds_sample_info_t info[1];
      dds_return_t n = dds_take(reader_, samples, info, 1, 1);
      check_dds(n, "dds_take");
      if (n > 0) {
        bool valid = info[0].valid_data;
        if (valid) {
          auto* msg = static_cast<baton_bench_PingPong*>(samples[0]);
          if (msg->payload._length != size_)
            pp::fail("received payload of " + std::to_string(msg->payload._length) +
                     " bytes, expected " + std::to_string(size_));
          *seq = pp::read_payload(msg->payload._buffer, size_, work_);
          if (*seq != msg->seq) pp::fail("payload sequence number disagrees with the seq field");
        }
        dds_return_loan(reader_, samples, n);
        if (valid) return true;
        continue;
      }
      dds_return_t w = dds_waitset_wait(ws_, nullptr, 0, timeout);
      check_dds(w, "dds_waitset_wait");
      if (w == 0) return false;
    }
  }

 private:
  std::uint64_t size_;
  pp::PayloadWork work_;
  std::vector<unsigned char> buf_;
  dds_entity_t participant_ = 0, writer_ = 0, reader_ = 0, cond_ = 0, ws_ = 0;
};

int run_echo(const pp::Options& o, dds_domainid_t domain) {
  pp::echo_setup(o);
  const pid_t parent = getppid();
  auto parent_alive = [parent] {
    if (getppid() != parent) _exit(1);
  };
  Endpoint ep(domain, "baton_pong", "baton_ping", o.size, o.work);
  ep.wait_matched(parent_alive);
  std::size_t done = 0;
  while (done < o.iterations) {
    std::uint64_t seq;
    if (!ep.receive(&seq, DDS_MSECS(200))) {
      parent_alive();
      continue;
    }
    ep.send(seq);
    if (!(seq & kHello)) ++done;
  }
  // Deleting the participant lingers until the last (reliable) pong is acknowledged.
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string domain_str = "87";
  pp::ProgramInfo info;
  info.program = "baton-peer-cyclonedds";
  info.system = "cyclonedds";
  info.description =
      "Ping-pong over Eclipse CycloneDDS 0.10 (C API, idlc-generated type with sequence<octet>\n"
      "payload), reliable, keep-last 1, loopback UDP only (CYCLONEDDS_URI is set by the program;\n"
      "multicast off, unicast discovery on 127.0.0.1). blocking: WaitSet + ReadCondition, take.";
  info.modes = {"blocking"};
  info.extra = {
      {"domain", "ID", "DDS domain id (default 87, private to this benchmark)", &domain_str}};
  pp::Options o = pp::parse_options(argc, argv, info);
  const auto domain = static_cast<dds_domainid_t>(pp::parse_u64(domain_str, "domain id"));
  setenv("CYCLONEDDS_URI", baton::bench::cyclone_loopback_config().c_str(), 1);
  if (o.echo) return run_echo(o, domain);

  pp::parent_setup(o);
  pp::print_table_header(info, o);
  auto check = [] { pp::echo_alive(); };
  for (const auto& mode : o.modes) {
    for (std::uint64_t size : o.sizes) {
      std::size_t samples = pp::samples_for(o, size);
      std::size_t warmup = pp::warmup_for(samples);
      std::size_t total = samples + warmup;
      std::vector<std::uint64_t> rtt(total);
      {
        Endpoint ep(domain, "baton_ping", "baton_pong", size, o.work);
        pp::spawn_echo(o, mode, size, total, {"--domain", domain_str});
        pp::arm_deadline(900);
        ep.wait_matched(check);
        // Handshake: matching is asymmetric, so ping until the child answers once.
        for (std::uint64_t k = 0;; ++k) {
          ep.send(kHello | k);
          std::uint64_t got;
          if (ep.receive(&got, DDS_MSECS(50)) && (got & kHello)) break;
          check();
          if (k > 400) pp::fail("CycloneDDS echo child did not answer within 20 s");
        }
        for (std::uint64_t i = 0; i < total; ++i) {
          std::uint64_t t0 = now_ns();
          ep.send(i);
          std::uint64_t got;
          do {
            while (!ep.receive(&got, DDS_MSECS(200))) check();
          } while (got & kHello);  // a late answer to a handshake ping
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
  return 0;
}
