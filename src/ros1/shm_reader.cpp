// The BATONSHM side of a ROS 1 subscription (shm_reader.hpp).
#include "shm_reader.hpp"

#include "baton/api/wait_set.hpp"

namespace baton::ros1::detail {

ShmReader::ShmReader(std::string ros_topic, const MessageType& type, std::shared_ptr<ShmNode> node,
                     uint32_t depth, uint32_t max_message_bytes, Deliver deliver, LogHandler log)
    : ros_topic_(std::move(ros_topic)),
      type_(type),
      node_(std::move(node)),
      depth_(depth),
      max_message_bytes_(max_message_bytes),
      deliver_(std::move(deliver)),
      log_(std::move(log)) {}

ShmReader::~ShmReader() { shutdown(); }

Result<Ok, std::string> ShmReader::admit(uint64_t connection_id, const ShmGrant& grant) {
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
  granted_[{grant.slot, grant.generation}] = Granted{connection_id, grant.caller_id, 0};
  return Ok{};
}

void ShmReader::revoke(uint64_t connection_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(granted_, [&](const auto& g) { return g.second.connection_id == connection_id; });
}

void ShmReader::shutdown() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    granted_.clear();
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
      deliver_one(*sample);
    }  // the sample's loan goes back here
  }
}

void ShmReader::deliver_one(const RawSample& sample) {
  Granted* from = nullptr;
  std::string caller;
  uint64_t id = 0, sequence = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = granted_.find({sample.publisher_slot(), sample.publisher_generation()});
    if (it != granted_.end()) {
      from = &it->second;
      caller = from->caller_id;
      id = from->connection_id;
      sequence = from->sequence++;
    }
  }
  if (from == nullptr) {
    ++ignored_;
    return;
  }
  if (sample.size() > max_message_bytes_ || sample.size() > sample.capacity()) {
    ++refused_;
    log_(LogLevel::Error, "BATONSHM " + ros_topic_ + " from " + caller + ": a sample of " +
                              std::to_string(sample.size()) + " bytes (chunk " +
                              std::to_string(sample.capacity()) + ", at most " +
                              std::to_string(max_message_bytes_) + "): dropped");
    return;
  }
  ++received_;  // before the call: whoever the sink wakes sees it counted
  deliver_(WireSample{std::span(reinterpret_cast<const uint8_t*>(sample.data()), sample.size()),
                      caller, id, sequence, BATONSHM});
}

}  // namespace baton::ros1::detail
