// baton-peer-iceoryx-stream: one role of bench/suite's open-loop scenarios (A, B, D, seed 004's
// chain, the subscriber sweep) over Eclipse iceoryx 2.0.3 (C++ untyped publisher / subscriber,
// zero-copy loans). Protocol and options: bench/stream/stream_roles.hpp. Needs a running RouDi
// whose mempools fit the sizes (bench/suite/stream.py starts iox-roudi with
// roudi_stream.toml for the run). Services {baton-stream, <topic>, data}; queue capacity
// --depth (at most 256), BLOCK_PRODUCER / WAIT_FOR_CONSUMER: iceoryx's delivery guarantee, the
// publisher waits while a subscriber's queue is full. Waits: a WaitSet on HAS_DATA (blocking) or
// a take() loop (busy-poll).
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "bench/stream/stream_roles.hpp"
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/popo/wait_set.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace st = baton::bench::stream;

namespace {

iox::capro::ServiceDescription service(const std::string& topic) {
  return {"baton-stream", iox::capro::IdString_t(iox::cxx::TruncateToCapacity, topic), "data"};
}

class IceoryxTransport final : public st::Transport {
 public:
  explicit IceoryxTransport(const st::Options& o) : o_(o) {
    if (o.depth > iox::MAX_SUBSCRIBER_QUEUE_CAPACITY)
      st::fail("iceoryx: --depth must be <= " + std::to_string(iox::MAX_SUBSCRIBER_QUEUE_CAPACITY));
    std::string name = "baton-stream-" + o.name + "-" + std::to_string(getpid());
    iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name));
  }

  void advertise(const std::string& topic, std::uint64_t) override {
    iox::popo::PublisherOptions po;
    po.historyCapacity = 0;
    po.subscriberTooSlowPolicy = iox::popo::ConsumerTooSlowPolicy::WAIT_FOR_CONSUMER;
    pub_.emplace(service(topic), po);
  }

  void subscribe(const std::string& topic, std::uint64_t) override {
    iox::popo::SubscriberOptions so;
    so.queueCapacity = o_.depth;
    so.historyRequest = 0;
    so.queueFullPolicy = iox::popo::QueueFullPolicy::BLOCK_PRODUCER;
    sub_.emplace(service(topic), so);
    if (o_.mode == "blocking") {
      ws_.emplace();
      if (ws_->attachState(*sub_, iox::popo::SubscriberState::HAS_DATA).has_error())
        st::fail("iceoryx: cannot attach the subscriber to a WaitSet");
    }
  }

  void send(std::uint32_t seq, std::uint32_t value, std::uint64_t size) override {
    auto loan = pub_->loan(static_cast<std::uint32_t>(size), 8);
    if (loan.has_error())
      st::fail("iceoryx loan of " + std::to_string(size) +
               " bytes failed: the RouDi's mempools have no free chunk that large (stop the "
               "running RouDi so the suite starts one with roudi_stream.toml)");
    auto* p = static_cast<unsigned char*>(loan.value());
    std::memcpy(p, &seq, 4);
    std::memcpy(p + 4, &value, 4);
    pub_->publish(loan.value());
  }

  bool receive(std::uint32_t* seq, std::uint32_t* value, std::uint64_t* size,
               std::uint64_t timeout_ns) override {
    // The deadline is read only once a take found nothing (one clock read per message, as
    // the sender; bench/stream/baton_stream.cpp).
    std::uint64_t until = 0;
    for (;;) {
      auto r = sub_->take();
      if (!r.has_error()) {
        const void* p = r.value();
        *size = iox::mepoo::ChunkHeader::fromUserPayload(p)->userPayloadSize();
        if (*size < st::kHeaderBytes) st::fail("iceoryx: payload too short");
        std::memcpy(seq, p, 4);
        std::memcpy(value, static_cast<const unsigned char*>(p) + 4, 4);
        sub_->release(p);
        return true;
      }
      if (r.get_error() != iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE)
        st::fail("iceoryx take() failed: too many chunks held");
      const std::uint64_t now = baton::bench::now_ns();
      if (until == 0) until = now + timeout_ns;
      if (now >= until) return false;
      if (ws_) ws_->timedWait(iox::units::Duration::fromNanoseconds(until - now));
    }
  }

 private:
  const st::Options& o_;
  std::optional<iox::popo::UntypedPublisher> pub_;
  std::optional<iox::popo::UntypedSubscriber> sub_;
  std::optional<iox::popo::WaitSet<>> ws_;
};

}  // namespace

int main(int argc, char** argv) {
  st::Options o = st::parse_options(argc, argv, "baton-peer-iceoryx-stream", "iceoryx 2.0.3");
  iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kWarn,
                                                           iox::log::LogLevelOutput::kHideLogLevel);
  st::setup_process(o);
  IceoryxTransport t(o);
  return st::Roles(o, t).run();
}
