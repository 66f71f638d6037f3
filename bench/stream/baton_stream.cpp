// baton-bench-stream: one role of bench/suite's open-loop scenarios (A queue processing,
// B sizes x rates, D ping-pong with watermark, seed 004's chain, the subscriber sweep) over
// baton's shared-memory topics. Protocol and options: bench/stream/stream_roles.hpp.
// QoS: reliable keep-last(--depth) (the publisher waits while a subscription's queue is full,
// up to a 30 s reliable timeout), loans of the message's size, nothing copied; the publisher
// reserves depth + 2 chunks of the largest size at creation.
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "baton/baton.hpp"
#include "bench/stream/stream_roles.hpp"

namespace st = baton::bench::stream;
using namespace std::chrono_literals;

namespace {

const baton::topic::TypeInfo kType = baton::topic::TypeInfo::from_name("baton_bench/msg/Stream");

class BatonTransport final : public st::Transport {
 public:
  explicit BatonTransport(const st::Options& o)
      : o_(o), ctx_(baton::Context::create()), node_(ctx_, "bench_stream_" + o.name) {}

  void advertise(const std::string& topic, std::uint64_t max_size) override {
    // The sizes are known at start, so pay for the pool at creation as a user with a fixed
    // frame size would (iceoryx2's publisher is sized from its max slice length the same way):
    // the ring, the loan being filled and the sample a reader holds; smaller sizes of the
    // schedule use these chunks too. Without it the first messages commit memory as they go.
    // Exactly the largest size, as iceoryx2 sizes its slots: baton's smallest class is 64 B.
    const std::uint64_t size = max_size;
    auto pub = node_.raw_publisher(topic, kType)
                   .qos(qos())
                   .max_message_size(size)
                   .reserve(size, o_.depth + 2)
                   .create();
    if (!pub) st::fail("baton publisher on " + topic + ": " + pub.error().detail);
    pub_ = std::move(*pub);
  }

  void subscribe(const std::string& topic, std::uint64_t) override {
    auto mode = o_.mode == "busy-poll" ? baton::WaitMode::BusyPoll : baton::WaitMode::Blocking;
    auto sub = node_.raw_subscription(topic, kType).qos(qos()).wait_mode(mode).create();
    if (!sub) st::fail("baton subscription on " + topic + ": " + sub.error().detail);
    sub_ = *sub;
  }

  void send(std::uint32_t seq, std::uint32_t value, std::uint64_t size) override {
    auto loan = pub_.loan(size);
    if (!loan)
      st::fail(std::string("baton loan: ") + std::string(baton::topic::to_string(loan.error())));
    std::memcpy(loan->data(), &seq, 4);
    std::memcpy(loan->data() + 4, &value, 4);
    if (o_.fill) std::memset(loan->data() + 8, static_cast<int>(seq), size - 8);
    auto r = pub_.publish(std::move(*loan), size);
    if (!r)
      st::fail(std::string("baton publish: ") + std::string(baton::topic::to_string(r.error())));
  }

  bool fills() const override { return true; }

  bool receive(std::uint32_t* seq, std::uint32_t* value, std::uint64_t* size,
               std::uint64_t timeout_ns) override {
    // The deadline is read from the clock only once a take found nothing: the receiver logs
    // one clock read per message, as the sender does (a read before every take made it two).
    std::uint64_t until = 0;
    for (;;) {
      if (auto m = sub_->take()) {
        if (m->size() < st::kHeaderBytes) st::fail("baton: a message shorter than its header");
        std::memcpy(seq, m->data(), 4);
        std::memcpy(value, m->data() + 4, 4);
        *size = m->size();
        return true;
      }
      const std::uint64_t now = baton::bench::now_ns();
      if (until == 0) until = now + timeout_ns;
      if (now >= until) return false;
      sub_->wait(std::chrono::nanoseconds(until - now));
    }
  }

 private:
  baton::QoS qos() const { return baton::QoS(o_.depth).reliable().reliable_timeout(30s); }

  const st::Options& o_;
  std::shared_ptr<baton::Context> ctx_;
  baton::Node node_;
  baton::RawPublisher pub_;
  std::shared_ptr<baton::RawSubscription> sub_;
};

}  // namespace

int main(int argc, char** argv) {
  st::Options o = st::parse_options(argc, argv, "baton-bench-stream", "baton shared memory");
  st::setup_process(o);
  BatonTransport t(o);
  return st::Roles(o, t).run();
}
