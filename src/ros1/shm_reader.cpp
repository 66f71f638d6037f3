// The BATONSHM side of a ROS 1 subscription (shm_reader.hpp).
#include "shm_reader.hpp"

#include "baton/api/wait_set.hpp"
#include "baton/common/thread_name.hpp"

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
    thread_ = std::thread([this] {
      name_this_thread("ros1-shm-read");
      run();
    });
  }
  return wire::PortWriter{grant.slot, grant.generation};
}

void ShmReader::retire(uint64_t connection, std::chrono::milliseconds grace,
                       std::function<void()> ended) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    const uint64_t ticket = ++retirements_registered_;
    retiring_.push_back(
        {connection, ticket, std::chrono::steady_clock::now() + grace, std::move(ended)});
    any_retiring_ = true;
  }
  wake_->trigger();  // a reader asleep on an empty queue wakes, finds it empty and revokes
}

void ShmReader::shutdown() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    thread = std::move(thread_);
  }
  stopping_ = true;
  wake_->trigger();
  if (thread.joinable()) thread.join();
  std::lock_guard lock(mutex_);
  retiring_.clear();
  any_retiring_ = false;
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
  (void)waits.add_guard_condition(wake_);
  while (!stopping_) {
    (void)waits.wait();  // until a sample or the wake guard
    // Each sample's loan goes back at the end of its iteration.
    while (!stopping_) {
      // Read before the take: a retirement registered by then is drained if the take finds the
      // queue empty (its publisher had published all of it before the master removed it).
      const uint64_t registered = retirements_registered_.load();
      auto sample = sub->take();
      if (!sample) {
        if (any_retiring_) end_retirements(registered);
        break;
      }
      push(*sample);
      if (any_retiring_) end_retirements(0);  // only those past their grace
    }
  }
}

void ShmReader::end_retirements(uint64_t drained_up_to) {
  std::vector<Retiring> ended;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(retiring_, [&](Retiring& r) {
      if (r.ticket > drained_up_to && now < r.deadline) return false;
      ended.push_back(std::move(r));
      return true;
    });
    any_retiring_ = !retiring_.empty();
  }
  for (auto& r : ended) {
    core_.revoke(r.connection);
    if (r.ticket > drained_up_to)
      log_(LogLevel::Info, "BATONSHM " + ros_topic_ +
                               ": a publisher the master removed was revoked at the grace, other "
                               "publishers kept the queue from emptying");
    r.ended();
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
