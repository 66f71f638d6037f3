// CycloneDDS on loopback for the benchmarks that model ROS-SC (seed 000) or compare against
// DDS (seed 002): one participant per node, one writer / reader per topic, the PingPong type
// of bench/peers/cyclonedds (uint64 seq + sequence<octet>), reliable keep-last 1. The programs
// run request / reply in lock step, so keep-last 1 never drops a sample that is still wanted.
// Needs the baton_peer_cyclonedds_idl target (PingPong.h) and CycloneDDS::ddsc.
#pragma once

#include <dds/dds.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "PingPong.h"
#include "bench/common/clock.hpp"
#include "bench/peers/cyclonedds/cyclone_config.hpp"

namespace baton::bench::dds {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "error: DDS: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

// Loopback only (bench/peers/cyclonedds/cyclone_config.hpp). Set before the first participant.
inline void use_loopback_config() {
  setenv("CYCLONEDDS_URI", cyclone_loopback_config().c_str(), 1);
}

inline dds_entity_t ok(dds_entity_t e, const char* what) {
  if (e < 0) fail(std::string(what) + ": " + dds_strretcode(e));
  return e;
}

class Participant {
 public:
  explicit Participant(dds_domainid_t domain)
      : id_(ok(dds_create_participant(domain, nullptr, nullptr), "dds_create_participant")) {}
  ~Participant() { dds_delete(id_); }
  Participant(const Participant&) = delete;
  Participant& operator=(const Participant&) = delete;
  dds_entity_t id() const { return id_; }

  dds_entity_t topic(const std::string& name) const {
    dds_qos_t* q = qos();
    auto t = ok(dds_create_topic(id_, &baton_bench_PingPong_desc, name.c_str(), q, nullptr),
                "dds_create_topic");
    dds_delete_qos(q);
    return t;
  }
  static dds_qos_t* qos() {
    dds_qos_t* q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
    return q;
  }

 private:
  dds_entity_t id_;
};

class Writer {
 public:
  Writer(const Participant& p, const std::string& topic) {
    dds_qos_t* q = Participant::qos();
    w_ = ok(dds_create_writer(p.id(), p.topic(topic), q, nullptr), "dds_create_writer");
    dds_delete_qos(q);
  }
  // Serialises `n` bytes (one copy into the CDR stream, as ROS-SC does).
  void write(std::uint64_t seq, const void* data, std::size_t n) {
    baton_bench_PingPong msg;
    msg.seq = seq;
    msg.payload._maximum = msg.payload._length = static_cast<std::uint32_t>(n);
    msg.payload._buffer = static_cast<std::uint8_t*>(const_cast<void*>(data));
    msg.payload._release = false;
    if (dds_write(w_, &msg) < 0) fail("dds_write");
  }
  std::uint32_t matched() const {
    dds_publication_matched_status_t s{};
    dds_get_publication_matched_status(w_, &s);
    return s.current_count;
  }

 private:
  dds_entity_t w_;
};

class Reader {
 public:
  Reader(const Participant& p, const std::string& topic) {
    dds_qos_t* q = Participant::qos();
    r_ = ok(dds_create_reader(p.id(), p.topic(topic), q, nullptr), "dds_create_reader");
    dds_delete_qos(q);
    auto c = ok(dds_create_readcondition(r_, DDS_ANY_STATE), "dds_create_readcondition");
    ws_ = ok(dds_create_waitset(p.id()), "dds_create_waitset");
    dds_waitset_attach(ws_, c, 0);
  }
  // Blocks until a valid sample arrives; calls f(seq, bytes, n) on the loaned sample.
  // A reader whose parent died (re-parented to init) exits instead of waiting forever.
  template <typename F>
  void take(F&& f) {
    for (;;) {
      void* s[1] = {nullptr};
      dds_sample_info_t info[1];
      dds_return_t n = dds_take(r_, s, info, 1, 1);
      if (n < 0) fail("dds_take");
      if (n > 0) {
        const bool valid = info[0].valid_data;
        if (valid) {
          auto* m = static_cast<baton_bench_PingPong*>(s[0]);
          f(m->seq, m->payload._buffer, static_cast<std::size_t>(m->payload._length));
        }
        dds_return_loan(r_, s, n);
        if (valid) return;
        continue;
      }
      if (dds_waitset_wait(ws_, nullptr, 0, DDS_SECS(1)) == 0 && getppid() == 1) _exit(1);
    }
  }
  // Blocks until a valid sample arrives and returns it on loan: `bytes` stay valid until
  // return_loan(held) (what a subscriber callback sees in rclcpp: the deserialised message).
  struct Held {
    void* sample = nullptr;
    const std::uint8_t* bytes = nullptr;
    std::size_t size = 0;
  };
  Held take_held() {
    for (;;) {
      void* s[1] = {nullptr};
      dds_sample_info_t info[1];
      dds_return_t n = dds_take(r_, s, info, 1, 1);
      if (n < 0) fail("dds_take");
      if (n > 0) {
        if (info[0].valid_data) {
          auto* m = static_cast<baton_bench_PingPong*>(s[0]);
          return {s[0], m->payload._buffer, static_cast<std::size_t>(m->payload._length)};
        }
        dds_return_loan(r_, s, n);
        continue;
      }
      if (dds_waitset_wait(ws_, nullptr, 0, DDS_SECS(1)) == 0 && getppid() == 1) _exit(1);
    }
  }
  void return_loan(const Held& h) {
    void* s[1] = {h.sample};
    dds_return_loan(r_, s, 1);
  }
  std::uint32_t matched() const {
    dds_subscription_matched_status_t s{};
    dds_get_subscription_matched_status(r_, &s);
    return s.current_count;
  }

 private:
  dds_entity_t r_, ws_;
};

// Waits until `done()` (e.g. every writer and reader matched), failing after 30 s.
template <typename F>
void wait_until(F&& done, const char* what) {
  const std::uint64_t deadline = now_ns() + 30'000'000'000ull;
  while (!done()) {
    if (now_ns() > deadline) fail(std::string(what) + " did not match within 30 s");
    dds_sleepfor(DDS_MSECS(1));
  }
}

}  // namespace baton::bench::dds
