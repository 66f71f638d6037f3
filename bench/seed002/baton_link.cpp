// baton as a graph node's middleware. Host nodes use raw publishers / subscriptions; device
// nodes use baton's memory-domain endpoints in "opencl:0": a taken message is a cl_mem in the
// device domain and a loan is device memory the kernel writes, so the node makes no copy of its
// own (on PoCL's host-unified device both are the shared-memory chunk itself).
#include <chrono>
#include <thread>

#include "baton/api/domain_endpoints.hpp"
#include "baton/baton.hpp"
#include "bench/seed002/device_work.hpp"
#include "bench/seed002/link.hpp"

namespace seed002 {
namespace {

using namespace std::chrono_literals;
const baton::topic::TypeInfo kType = baton::topic::TypeInfo::from_name("baton_bench/msg/Bytes");

class BatonLink : public Link {
 public:
  explicit BatonLink(const std::string& node) : ctx_(baton::Context::create()), node_(ctx_, node) {}
  ~BatonLink() override {
    host_loans_.clear();
    device_loans_.clear();
  }

  int add_output(const std::string& topic, std::size_t size, bool device) override {
    Out o;
    o.size = size;
    if (device) {
      auto p = baton::create_domain_publisher(node_, topic, kType, "opencl:0", qos());
      if (!p) fail("baton domain publisher " + topic + ": " + p.error().detail);
      o.device = std::make_unique<baton::DomainPublisher>(std::move(*p));
    } else {
      auto p = node_.raw_publisher(topic, kType)
                   .qos(qos())
                   .max_message_size(size)
                   .reserve(size, qos().depth() + 2)  // fixed size: commit the ring up front
                   .create();
      if (!p) fail("baton publisher " + topic + ": " + p.error().detail);
      o.host = std::make_unique<baton::RawPublisher>(std::move(*p));
    }
    outs_.push_back(std::move(o));
    host_loans_.emplace_back();
    device_loans_.emplace_back();
    return static_cast<int>(outs_.size()) - 1;
  }

  int add_input(const std::string& topic, bool device) override {
    In in;
    if (device) {
      auto s = baton::create_domain_subscription(node_, topic, kType, "opencl:0", qos());
      if (!s) fail("baton domain subscription " + topic + ": " + s.error().detail);
      in.device = std::make_unique<baton::DomainSubscription>(std::move(*s));
    } else {
      auto s = node_.raw_subscription(topic, kType).qos(qos()).create();
      if (!s) fail("baton subscription " + topic + ": " + s.error().detail);
      in.host = *s;
    }
    ins_.push_back(std::move(in));
    return static_cast<int>(ins_.size()) - 1;
  }

  void connect(const std::vector<std::uint32_t>& readers) override {
    for (std::size_t i = 0; i < outs_.size(); ++i) {
      auto& o = outs_[i];
      while ((o.device ? (*o.device)->port().subscriber_count() : o.host->subscription_count()) <
             readers[i])
        std::this_thread::sleep_for(1ms);
    }
    for (auto& in : ins_) {
      while ((in.device ? (*in.device)->port().publisher_count() : in.host->publisher_count()) == 0)
        std::this_thread::sleep_for(1ms);
    }
  }

  Output loan(int i) override {
    auto& o = outs_[static_cast<std::size_t>(i)];
    Output out;
    out.size = o.size;
    if (o.device) {
      auto l = (*o.device)->loan(o.size);
      if (!l) fail("baton device loan");
      out.device = static_cast<cl_mem>(l->view().native);
      out.host = l->view().host;
      device_loans_[static_cast<std::size_t>(i)] = std::move(*l);
    } else {
      auto l = o.host->loan(o.size);
      if (!l) fail("baton loan");
      out.host = l->data();
      host_loans_[static_cast<std::size_t>(i)] = std::move(*l);
    }
    return out;
  }

  void publish(int i) override {
    auto& o = outs_[static_cast<std::size_t>(i)];
    const bool ok = o.device ? static_cast<bool>((*o.device)->publish(
                                   std::move(device_loans_[static_cast<std::size_t>(i)]), o.size))
                             : static_cast<bool>(o.host->publish(
                                   std::move(host_loans_[static_cast<std::size_t>(i)]), o.size));
    if (!ok) fail("baton publish");
  }

  Input take(int i) override {
    auto& in = ins_[static_cast<std::size_t>(i)];
    Input r;
    if (in.device) {
      auto& sub = **in.device;
      while (!sub.has_data()) sub.wait(200ms);
      auto m = sub.take();
      if (!m) fail("baton device take");
      auto held = std::make_shared<baton::DomainSample>(std::move(*m));
      r.device = static_cast<cl_mem>(held->view().native);
      r.host = held->view().host;
      r.size = held->size();
      r.hold = held;
    } else {
      while (!in.host->has_data()) in.host->wait(200ms);
      auto m = in.host->take();
      if (!m) fail("baton take");
      auto held = std::make_shared<baton::RawSample>(std::move(*m));
      r.host = held->data();
      r.size = held->size();
      r.hold = held;
    }
    return r;
  }

 private:
  static baton::QoS qos() { return baton::QoS(2).reliable().reliable_timeout(10s); }
  struct Out {
    std::unique_ptr<baton::RawPublisher> host;
    std::unique_ptr<baton::DomainPublisher> device;
    std::size_t size = 0;
  };
  struct In {
    std::shared_ptr<baton::RawSubscription> host;
    std::unique_ptr<baton::DomainSubscription> device;
  };
  std::shared_ptr<baton::Context> ctx_;
  baton::Node node_;
  std::vector<Out> outs_;
  std::vector<In> ins_;
  std::vector<baton::RawLoan> host_loans_;
  std::vector<baton::DeviceLoan> device_loans_;
};

}  // namespace

std::unique_ptr<Link> make_baton_link(const std::string& node) {
  return std::make_unique<BatonLink>(node);
}

}  // namespace seed002
