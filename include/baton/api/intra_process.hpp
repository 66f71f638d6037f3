// The unique-ownership intra-process path (as rclcpp's publish(std::unique_ptr<T>)): when every
// subscriber of a topic lives in this process, the publisher hands its heap message over instead
// of writing shared memory; the last subscription gets the very object, earlier ones copies.
// If any subscriber is in another process, baton publishes through shared memory instead, so no
// subscriber ever receives a message twice.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/topic_layout.hpp"

namespace baton {

template <typename T>
class IntraQueue {
 public:
  IntraQueue(std::size_t depth, topic::SubscriberSlot* slot) : depth_(depth), slot_(slot) {}

  void push(std::unique_ptr<T> msg) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.size() >= depth_) queue_.pop_front();  // keep-last
      queue_.push_back(std::move(msg));
      // seq_cst: the data store of sync point "sleeper-dekker" (shm/sleeper_word.hpp).
      size_.store(queue_.size(), std::memory_order_seq_cst);
    }
    // Same wake protocol as a shared-memory publish, so waits and WaitSets see it.
    shm::wake_armed_sleepers(&slot_->waiters, &slot_->wake_seq);
  }
  std::unique_ptr<T> pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return nullptr;
    auto m = std::move(queue_.front());
    queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_release);
    return m;
  }
  // Lock-free: polled by busy-poll and adaptive waits.
  bool empty() const { return size_.load(std::memory_order_seq_cst) == 0; }  // "sleeper-dekker"

 private:
  mutable std::mutex mutex_;
  std::deque<std::unique_ptr<T>> queue_;
  std::atomic<std::size_t> size_{0};
  std::size_t depth_;
  topic::SubscriberSlot* slot_;
};

// Per-process map from topic name to the intra-process queues of its subscriptions.
class IntraProcessRegistry {
 public:
  static IntraProcessRegistry& instance() {
    static IntraProcessRegistry* r = new IntraProcessRegistry();  // outlives static destructors
    return *r;
  }
  template <typename T>
  void add(const std::string& topic, const std::shared_ptr<IntraQueue<T>>& q) {
    std::lock_guard<std::mutex> lock(mutex_);
    queues_[topic].push_back(std::static_pointer_cast<void>(q));
  }
  // Live queues of `topic` (same type guaranteed: the topic's type is checked on attach).
  template <typename T>
  std::vector<std::shared_ptr<IntraQueue<T>>> queues(const std::string& topic) {
    std::vector<std::shared_ptr<IntraQueue<T>>> out;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = queues_.find(topic);
    if (it == queues_.end()) return out;
    auto& v = it->second;
    for (auto w = v.begin(); w != v.end();) {
      if (auto q = w->lock()) {
        out.push_back(std::static_pointer_cast<IntraQueue<T>>(q));
        ++w;
      } else {
        w = v.erase(w);
      }
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::weak_ptr<void>>> queues_;
};

}  // namespace baton
