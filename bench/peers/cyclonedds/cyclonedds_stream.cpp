// baton-peer-cyclonedds-stream: one role of bench/suite's open-loop scenarios (A, B, D, seed
// 004's chain, the subscriber sweep) over Eclipse CycloneDDS 0.10 (C API), loopback UDP.
// Protocol and options: bench/stream/stream_roles.hpp. Type baton::bench::PingPong
// (PingPong.idl: seq + sequence<octet> payload). QoS: reliable (max blocking 10 s), keep-all,
// volatile: DDS's delivery guarantee (the history grows instead of dropping; the writer blocks
// only when its unacknowledged data pass the WHC watermark). Waits: a WaitSet on a
// ReadCondition (blocking) or a take() loop (busy-poll). CYCLONEDDS_URI as baton-peer-cyclonedds
// sets it (loopback, no multicast, unicast discovery on 127.0.0.1), domain --domain.
#include <dds/dds.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "PingPong.h"
#include "bench/peers/cyclonedds/cyclone_config.hpp"
#include "bench/stream/stream_roles.hpp"

namespace st = baton::bench::stream;

namespace {

dds_entity_t check_entity(dds_entity_t e, const char* what) {
  if (e < 0) st::fail(std::string("CycloneDDS ") + what + ": " + dds_strretcode(e));
  return e;
}

class CycloneTransport final : public st::Transport {
 public:
  explicit CycloneTransport(const st::Options& o) : o_(o) {
    const auto domain =
        static_cast<dds_domainid_t>(baton::bench::pp::parse_u64(o.domain, "--domain"));
    participant_ = check_entity(dds_create_participant(domain, nullptr, nullptr), "participant");
    qos_ = dds_create_qos();
    dds_qset_reliability(qos_, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
    dds_qset_history(qos_, DDS_HISTORY_KEEP_ALL, 0);
    dds_qset_durability(qos_, DDS_DURABILITY_VOLATILE);
  }
  ~CycloneTransport() override {
    dds_delete_qos(qos_);
    dds_delete(participant_);
  }

  void advertise(const std::string& topic, std::uint64_t max_size) override {
    buf_.resize(max_size);
    writer_ =
        check_entity(dds_create_writer(participant_, make_topic(topic), qos_, nullptr), "writer");
  }

  void subscribe(const std::string& topic, std::uint64_t) override {
    reader_ =
        check_entity(dds_create_reader(participant_, make_topic(topic), qos_, nullptr), "reader");
    cond_ = check_entity(dds_create_readcondition(reader_, DDS_ANY_STATE), "readcondition");
    ws_ = check_entity(dds_create_waitset(participant_), "waitset");
    if (dds_waitset_attach(ws_, cond_, 0) < 0) st::fail("CycloneDDS waitset attach");
  }

  void send(std::uint32_t seq, std::uint32_t value, std::uint64_t size) override {
    if (size > buf_.size()) st::fail("CycloneDDS: message larger than advertised");
    std::memcpy(buf_.data(), &seq, 4);
    std::memcpy(buf_.data() + 4, &value, 4);
    baton_bench_PingPong msg;
    msg.seq = seq;
    msg.payload._maximum = static_cast<std::uint32_t>(size);
    msg.payload._length = static_cast<std::uint32_t>(size);
    msg.payload._buffer = buf_.data();
    msg.payload._release = false;
    if (dds_return_t rc = dds_write(writer_, &msg); rc < 0)
      st::fail(std::string("dds_write: ") + dds_strretcode(rc));
  }

  bool receive(std::uint32_t* seq, std::uint32_t* value, std::uint64_t* size,
               std::uint64_t timeout_ns) override {
    // The deadline is read only once a take found nothing (one clock read per message, as
    // the sender; bench/stream/baton_stream.cpp).
    std::uint64_t until = 0;
    for (;;) {
      void* samples[1] = {nullptr};
      dds_sample_info_t info[1];
      dds_return_t n = dds_take(reader_, samples, info, 1, 1);
      if (n < 0) st::fail(std::string("dds_take: ") + dds_strretcode(n));
      if (n > 0) {
        bool valid = info[0].valid_data;
        if (valid) {
          auto* m = static_cast<baton_bench_PingPong*>(samples[0]);
          if (m->payload._length < st::kHeaderBytes) st::fail("CycloneDDS: payload too short");
          std::memcpy(seq, m->payload._buffer, 4);
          std::memcpy(value, m->payload._buffer + 4, 4);
          *size = m->payload._length;
        }
        dds_return_loan(reader_, samples, n);
        if (valid) return true;
        continue;
      }
      const std::uint64_t now = baton::bench::now_ns();
      if (until == 0) until = now + timeout_ns;
      if (now >= until) return false;
      if (o_.mode == "busy-poll") continue;
      dds_return_t w = dds_waitset_wait(ws_, nullptr, 0, static_cast<dds_duration_t>(until - now));
      if (w < 0) st::fail(std::string("dds_waitset_wait: ") + dds_strretcode(w));
    }
  }

 private:
  dds_entity_t make_topic(const std::string& name) {
    // DDS topic names: no leading slash (ROS 2 maps "/x" to "rt/x" likewise).
    std::string n = name[0] == '/' ? "rt" + name : name;
    for (auto& c : n)
      if (c == '/') c = '_';
    return check_entity(
        dds_create_topic(participant_, &baton_bench_PingPong_desc, n.c_str(), qos_, nullptr),
        "topic");
  }

  const st::Options& o_;
  dds_qos_t* qos_ = nullptr;
  std::vector<unsigned char> buf_;
  dds_entity_t participant_ = 0, writer_ = 0, reader_ = 0, cond_ = 0, ws_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  st::Options o = st::parse_options(argc, argv, "baton-peer-cyclonedds-stream", "CycloneDDS");
  st::setup_process(o);
  setenv("CYCLONEDDS_URI", baton::bench::cyclone_loopback_config().c_str(), 1);
  CycloneTransport t(o);
  return st::Roles(o, t).run();
}
