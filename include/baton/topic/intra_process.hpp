// The unique-ownership intra-process transport (as rclcpp's publish(std::unique_ptr<T>)): when
// every subscriber of a topic lives in this process, a typed publisher hands its heap message
// over instead of writing shared memory; the last subscription gets the very object, earlier
// ones copies. If any subscriber is in another process (or is not a typed subscription), the
// message goes through shared memory instead, so no subscriber ever receives it twice.
//
// The queues belong to the process-local Topic handle (Topic::intra()), so only endpoints that
// share that handle — the same topic segment, opened through one Context — hand over to each
// other; a publisher never reaches a queue of another topic of the same name.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/shm/sleeper_word.hpp"
#include "baton/topic/topic_layout.hpp"

namespace baton::topic {

// One typed subscription's queue of handed-over messages (keep-last `depth`).
template <typename T>
class IntraQueue {
 public:
  // `topic`: the header whose wake pair the subscription sleeps on (shared by all of the topic's
  // subscribers, topic_layout.hpp).
  IntraQueue(std::size_t depth, TopicHeader* topic) : depth_(depth), topic_(topic) {}

  void push(std::unique_ptr<T> msg) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.size() >= depth_) queue_.pop_front();  // keep-last
      queue_.push_back(std::move(msg));
      // seq_cst: the data store of sync point "sleeper-dekker" (shm/sleeper_word.hpp).
      size_.store(queue_.size(), std::memory_order_seq_cst);
    }
    // Same wake protocol as a shared-memory publish, so waits and WaitSets see it.
    shm::wake_armed_sleepers(&topic_->waiters, &topic_->wake_seq);
  }
  // Null when empty. An empty queue is seen without the lock: a take that finds nothing here
  // (the common case once a publisher is in another process) costs one atomic load.
  std::unique_ptr<T> pop() {
    if (size_.load(std::memory_order_acquire) == 0) return nullptr;
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
  TopicHeader* topic_;
};

// The intra-process queues of one Topic handle. Type-erased: every endpoint of the handle has
// the topic's type (checked when it attaches), so live<T>() casts back safely.
class IntraQueues {
 public:
  template <typename T>
  void add(const std::shared_ptr<IntraQueue<T>>& q) {
    std::lock_guard<std::mutex> lock(mutex_);
    queues_.push_back(std::static_pointer_cast<void>(q));
  }
  // The queues whose subscriptions still exist (dropping the others).
  template <typename T>
  std::vector<std::shared_ptr<IntraQueue<T>>> live() {
    std::vector<std::shared_ptr<IntraQueue<T>>> out;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto w = queues_.begin(); w != queues_.end();) {
      if (auto q = w->lock()) {
        out.push_back(std::static_pointer_cast<IntraQueue<T>>(q));
        ++w;
      } else {
        w = queues_.erase(w);
      }
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<void>> queues_;
};

}  // namespace baton::topic
