// Eclipse iceoryx 2.0 (classic, RouDi) as a graph node's middleware: untyped publishers and
// subscribers on services {baton-graph, <run>, <topic>}, zero-copy loans from RouDi's mempools
// (bench/peers/iceoryx_classic/roudi_config.toml), a WaitSet per node for blocking takes. No
// device awareness: a device node copies its inputs to the device and its output back.
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/seed002/device_work.hpp"
#include "bench/seed002/link.hpp"
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/popo/wait_set.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace seed002 {
namespace {

iox::capro::IdString_t id(const std::string& s) {
  return iox::capro::IdString_t(iox::cxx::TruncateToCapacity, s);
}

class IceoryxLink : public Link {
 public:
  IceoryxLink(const std::string& node, const std::string& run) : run_(run) {
    iox::log::LogManager::GetLogManager().SetDefaultLogLevel(
        iox::log::LogLevel::kWarn, iox::log::LogLevelOutput::kHideLogLevel);
    const std::string name = "baton-graph-" + node + "-" + std::to_string(getpid());
    iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name));
    ws_ = std::make_unique<iox::popo::WaitSet<>>();  // needs the runtime
  }
  ~IceoryxLink() override {
    for (auto& s : subs_) ws_->detachState(*s, iox::popo::SubscriberState::HAS_DATA);
  }

  int add_output(const std::string& topic, std::size_t size, bool) override {
    iox::popo::PublisherOptions o;
    o.historyCapacity = 0;
    pubs_.push_back(std::make_unique<iox::popo::UntypedPublisher>(
        iox::capro::ServiceDescription{"baton-graph", id(run_), id(topic)}, o));
    sizes_.push_back(size);
    loans_.push_back(nullptr);
    return static_cast<int>(pubs_.size()) - 1;
  }
  int add_input(const std::string& topic, bool) override {
    iox::popo::SubscriberOptions o;
    o.queueCapacity = 2;
    o.historyRequest = 0;
    subs_.push_back(std::make_shared<iox::popo::UntypedSubscriber>(
        iox::capro::ServiceDescription{"baton-graph", id(run_), id(topic)}, o));
    if (ws_->attachState(*subs_.back(), iox::popo::SubscriberState::HAS_DATA).has_error())
      fail("iceoryx: cannot attach a subscriber to the WaitSet");
    return static_cast<int>(subs_.size()) - 1;
  }
  // iceoryx only says whether a publisher has subscribers, not how many: every subscriber
  // checks its own connection, so once every node is connected every edge exists.
  void connect(const std::vector<std::uint32_t>& readers) override {
    const auto deadline = baton::bench::now_ns() + 30'000'000'000ull;
    auto connected = [&] {
      for (std::size_t i = 0; i < pubs_.size(); ++i)
        if (readers[i] > 0 && !pubs_[i]->hasSubscribers()) return false;
      for (auto& s : subs_)
        if (s->getSubscriptionState() != iox::SubscribeState::SUBSCRIBED) return false;
      return true;
    };
    while (!connected()) {
      if (baton::bench::now_ns() > deadline) fail("iceoryx services did not connect within 30 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  Output loan(int i) override {
    const auto k = static_cast<std::size_t>(i);
    auto l = pubs_[k]->loan(static_cast<std::uint32_t>(sizes_[k]), 64);
    if (l.has_error())
      fail("iceoryx loan of " + std::to_string(sizes_[k]) +
           " bytes failed: RouDi's mempools have no free chunk that large (start RouDi with "
           "bench/peers/iceoryx_classic/roudi_config.toml)");
    loans_[k] = l.value();
    return {static_cast<std::byte*>(loans_[k]), nullptr, sizes_[k]};
  }
  void publish(int i) override {
    const auto k = static_cast<std::size_t>(i);
    pubs_[k]->publish(loans_[k]);
    loans_[k] = nullptr;
  }
  Input take(int i) override {
    auto sub = subs_[static_cast<std::size_t>(i)];
    for (;;) {
      auto r = sub->take();
      if (!r.has_error()) {
        const void* p = r.value();
        Input in;
        in.host = static_cast<const std::byte*>(p);
        in.size = iox::mepoo::ChunkHeader::fromUserPayload(p)->userPayloadSize();
        in.hold = std::shared_ptr<void>(static_cast<void*>(nullptr),
                                        [sub, p](void*) { sub->release(p); });
        return in;
      }
      if (r.get_error() != iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE)
        fail("iceoryx take() failed: too many chunks held");
      ws_->timedWait(iox::units::Duration::fromMilliseconds(200));
      if (getppid() == 1) _exit(1);
    }
  }

 private:
  std::string run_;
  std::unique_ptr<iox::popo::WaitSet<>> ws_;
  std::vector<std::unique_ptr<iox::popo::UntypedPublisher>> pubs_;
  std::vector<std::size_t> sizes_;
  std::vector<void*> loans_;
  std::vector<std::shared_ptr<iox::popo::UntypedSubscriber>> subs_;
};

}  // namespace

std::unique_ptr<Link> make_iceoryx_link(const std::string& node, const std::string& run) {
  return std::make_unique<IceoryxLink>(node, run);
}

}  // namespace seed002
