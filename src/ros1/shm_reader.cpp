// The BATONSHM side of a ROS 1 subscription (shm_reader.hpp).
#include "shm_reader.hpp"

#include "baton/api/wait_set.hpp"

namespace baton::ros1::detail {

ShmReader::ShmReader(std::string ros_topic, const MessageType& type, std::shared_ptr<ShmNode> node,
                     uint32_t depth, uint32_t max_message_bytes, wire::PushedReader& core,
                     LogHandler log)
    : ros_topic_(std::move(ros_topic)),
      type_(type),
      node_(std::move(node)),
      depth_(depth),
      max_message_bytes_(max_message_bytes),
      core_(core),
      log_(std::move(log)) {}

ShmReader::~ShmReader() { shutdown(); }

Result<wire::PortWriter, std::string> ShmReader::attach(const ShmGrant& grant) {
  if (grant.topic != shm_topic_name(ros_topic_) || grant.type != type_.name ||
      grant.md5sum != type_.md5sum)
    return unexpected("granted baton topic " + grant.topic + " (" + grant.type + ", md5sum " +
                      grant.md5sum + "), this subscriber reads " + shm_topic_name(ros_topic_) +
                      " (" + type_.name + ", md5sum " + type_.md5sum + ")");
  std::lock_guard lock(mutex_);
  if (stopped_) return unexpected(std::string("the subscription is shut down"));
  if (!subscription_) {
    auto sub = node_->subscription(ros_topic_, type_, depth_);
    if (!sub) return unexpected(sub.error());
    subscription_ = std::move(*sub);
    thread_ = std::thread([this] { run(); });
  }
  return wire::PortWriter{grant.slot, grant.generation};
}

void ShmReader::shutdown() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    thread = std::move(thread_);
  }
  stopping_ = true;
  stop_->trigger();
  if (thread.joinable()) thread.join();
}

uint64_t ShmReader::lost() const {
  std::lock_guard lock(mutex_);
  return subscription_ ? subscription_->lost() : 0;
}

void ShmReader::run() {
  std::shared_ptr<RawSubscription> sub;
  {
    std::lock_guard lock(mutex_);
    sub = subscription_;
  }
  WaitSet waits;
  (void)waits.add_subscription(sub);
  (void)waits.add_guard_condition(stop_);
  while (!stopping_) {
    (void)waits.wait();  // until a sample or the stop guard
    while (!stopping_) {
      auto sample = sub->take();
      if (!sample) break;
      push(*sample);
    }  // the sample's loan goes back here
  }
}

void ShmReader::push(const RawSample& sample) {
  // Checked only for a publisher the core delivers (the others' samples are not looked at).
  auto fits = [&](std::string_view caller) {
    if (sample.size() <= max_message_bytes_ && sample.size() <= sample.capacity()) return true;
    ++refused_;
    log_(LogLevel::Error, "BATONSHM " + ros_topic_ + " from " + std::string(caller) +
                              ": a sample of " + std::to_string(sample.size()) + " bytes (chunk " +
                              std::to_string(sample.capacity()) + ", at most " +
                              std::to_string(max_message_bytes_) + "): dropped");
    return false;
  };
  core_.push_shm({sample.publisher_slot(), sample.publisher_generation()},
                 std::span(reinterpret_cast<const uint8_t*>(sample.data()), sample.size()), fits);
}

}  // namespace baton::ros1::detail
