// The baton node behind a ros1::Node's BATONSHM endpoints (shm_node.hpp).
#include "shm_node.hpp"

#include <algorithm>

#include "batonshm.hpp"

namespace baton::ros1::detail {
namespace {

QoS ros1_queue(uint32_t depth) { return QoS(std::clamp<uint32_t>(depth, 1, 65536)).best_effort(); }

}  // namespace

ShmNode::ShmNode(const std::string& ros1_name, std::shared_ptr<baton::Context> context)
    : context_(context ? std::move(context) : baton::Context::create()) {
  const auto slash = ros1_name.rfind('/');
  const std::string ns = slash == 0 ? "/" : ros1_name.substr(0, slash);
  node_ = std::make_unique<baton::Node>(context_, ros1_name.substr(slash + 1), ns);
}

Result<RawPublisher, std::string> ShmNode::publisher(const std::string& ros_topic,
                                                     const MessageType& type, uint32_t depth) {
  std::lock_guard lock(mutex_);
  const std::string name = shm_topic_name(ros_topic);
  auto pub = node_->raw_publisher(name, shm_type_info(type)).qos(ros1_queue(depth)).create();
  if (!pub) return unexpected("baton topic " + name + ": " + pub.error().detail);
  return std::move(*pub);
}

Result<std::shared_ptr<RawSubscription>, std::string> ShmNode::subscription(
    const std::string& ros_topic, const MessageType& type, uint32_t depth) {
  std::lock_guard lock(mutex_);
  const std::string name = shm_topic_name(ros_topic);
  auto sub = node_->raw_subscription(name, shm_type_info(type)).qos(ros1_queue(depth)).create();
  if (!sub) return unexpected("baton topic " + name + ": " + sub.error().detail);
  return std::move(*sub);
}

}  // namespace baton::ros1::detail
