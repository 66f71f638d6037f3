// Endpoints in a memory domain (host, staging, opencl:N[:sc], cuda:N).
//
//   auto sub = create_domain_subscription(node, "image", type, "opencl:0");
//   auto m = (*sub)->take();            // DomainSample: m->view().native is a cl_mem holding
//                                       // the message (on PoCL / Jetson: the publisher's bytes)
//   auto pub = create_domain_publisher(node, "image", type, "cuda:0");
//   auto loan = (*pub)->loan(bytes);    // loan->view().device: write it with your kernel
//   (*pub)->publish(std::move(*loan), bytes);
//
// Ownership: a DomainSample *borrows* the message in the subscriber's domain until destroyed; a
// DeviceLoan *borrows* device (or host) memory until published (which *consumes* it) or
// destroyed. Launch your own kernels on view(); see memory/domain/kernels.hpp for examples.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "baton/api/endpoint_error.hpp"
#include "baton/api/qos.hpp"
#include "baton/topic/domain_publisher.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "baton/topic/type_info.hpp"

namespace baton {

class Node;

using topic::DeviceLoan;
using topic::DomainPath;
using topic::DomainSample;
using topic::DomainTakeError;

// A subscription receiving in a memory domain; keeps its graph registration while it lives.
class DomainSubscription {
 public:
  DomainSubscription(std::unique_ptr<topic::DomainSubscriber> sub, std::shared_ptr<void> graph)
      : sub_(std::move(sub)), graph_(std::move(graph)) {}
  topic::DomainSubscriber* operator->() const noexcept { return sub_.get(); }
  topic::DomainSubscriber& operator*() const noexcept { return *sub_; }

 private:
  std::unique_ptr<topic::DomainSubscriber> sub_;
  std::shared_ptr<void> graph_;
};

// A publisher loaning in a memory domain; keeps its graph registration while it lives.
class DomainPublisher {
 public:
  DomainPublisher(std::unique_ptr<topic::DomainPublisher> pub, std::shared_ptr<void> graph)
      : pub_(std::move(pub)), graph_(std::move(graph)) {}
  topic::DomainPublisher* operator->() const noexcept { return pub_.get(); }
  topic::DomainPublisher& operator*() const noexcept { return *pub_; }

 private:
  std::unique_ptr<topic::DomainPublisher> pub_;
  std::shared_ptr<void> graph_;
};

Result<DomainSubscription, EndpointError> create_domain_subscription(Node& node,
                                                                     const std::string& topic,
                                                                     const topic::TypeInfo& type,
                                                                     std::string_view domain,
                                                                     const QoS& qos = QoS());
Result<DomainPublisher, EndpointError> create_domain_publisher(Node& node, const std::string& topic,
                                                               const topic::TypeInfo& type,
                                                               std::string_view domain,
                                                               const QoS& qos = QoS());

}  // namespace baton
