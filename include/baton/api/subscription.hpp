// Subscriptions: Subscription<T> for fixed-size message types, RawSubscription for bytes.
//
// Ownership contract: take() returns a Sample that *borrows* the message read-only, in place in
// the publisher's shared memory (zero-copy). The Sample is valid until destroyed, even if the
// publisher exits; destroying it returns the loan. At most 16 samples per subscription at once.
// A subscription is used by one thread at a time; samples may be destroyed on any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <variant>

#include "baton/api/message_traits.hpp"
#include "baton/api/qos.hpp"
#include "baton/topic/subscriber_port.hpp"

namespace baton {

using topic::TakeError;

// A read-only view of one received message's bytes.
using RawSample = topic::TakenSample;

template <Message T>
class Sample {
 public:
  Sample() = default;
  explicit Sample(RawSample raw) : v_(std::move(raw)) {}
  explicit Sample(std::unique_ptr<T> owned) : v_(std::move(owned)) {}

  const T* get() const noexcept {
    if (auto* raw = std::get_if<RawSample>(&v_)) return reinterpret_cast<const T*>(raw->data());
    return std::get<std::unique_ptr<T>>(v_).get();
  }
  const T* operator->() const noexcept { return get(); }
  const T& operator*() const noexcept { return *get(); }
  // True if it came through the unique-ownership intra-process path (no shared memory).
  bool is_intra_process() const noexcept { return v_.index() == 1; }

 private:
  std::variant<RawSample, std::unique_ptr<T>> v_;
};

// What executors and wait sets need from any subscription, whatever its message type.
class SubscriptionBase {
 public:
  virtual ~SubscriptionBase() = default;
  // Takes one message and hands it to the callback; false if there was nothing to take.
  virtual bool execute_one() = 0;
  virtual bool has_data() = 0;
  virtual bool has_callback() const = 0;
  topic::SubscriberPort& port() { return *port_; }
  std::atomic<std::uint32_t>* wake_word() const { return port_->wake_word(); }
  std::atomic<std::uint32_t>* waiters_word() const { return port_->waiters_word(); }
  // Waits in the subscription's wait mode until a message is available.
  bool wait(std::chrono::nanoseconds timeout) {
    if (has_data()) return true;
    return port_->wait(timeout) || has_data();
  }

  // The subscription's graph registration (set by the builder; null without discovery).
  std::shared_ptr<void> graph_handle;

 protected:
  std::shared_ptr<topic::SubscriberPort> port_;
};

class RawSubscription : public SubscriptionBase {
 public:
  using Callback = std::function<void(const RawSample&)>;
  RawSubscription(std::unique_ptr<topic::SubscriberPort> port, Callback cb = {})
      : callback_(std::move(cb)) {
    port_ = std::move(port);
  }

  [[nodiscard]] Result<RawSample, TakeError> take() noexcept { return port_->take(); }
  bool has_data() override { return port_->has_data(); }
  bool has_callback() const override { return static_cast<bool>(callback_); }
  bool execute_one() override {
    auto s = take();
    if (!s) return false;
    if (callback_) callback_(*s);
    return true;
  }
  std::uint64_t lost() const { return port_->lost(); }
  std::uint32_t publisher_count() const { return port_->publisher_count(); }

 private:
  Callback callback_;
};

template <Message T>
class Subscription : public SubscriptionBase {
 public:
  using Callback = std::function<void(const Sample<T>&)>;
  Subscription(std::unique_ptr<topic::SubscriberPort> port, Callback cb = {})
      : callback_(std::move(cb)) {
    port_ = std::move(port);
    intra_ =
        std::make_shared<topic::IntraQueue<T>>(port_->options().depth, port_->topic().header());
    port_->topic().intra().add(intra_);
    // A unique-ownership push rings our topic's futex word; make wait() look at the queue too.
    port_->set_also_ready([q = std::weak_ptr<topic::IntraQueue<T>>(intra_)] {
      auto locked = q.lock();
      return locked && !locked->empty();
    });
  }

  // Intra-process (unique ownership) messages first, then shared memory.
  [[nodiscard]] Result<Sample<T>, TakeError> take() noexcept {
    if (auto owned = intra_->pop()) return Sample<T>(std::move(owned));
    auto raw = port_->take();
    if (!raw) return unexpected(raw.error());
    if (raw->size() < sizeof(T)) return unexpected(TakeError::NoData);  // malformed: dropped
    return Sample<T>(std::move(*raw));
  }
  // The message as an owned object: moved if it came through the unique-ownership path, one
  // copy out of shared memory otherwise.
  [[nodiscard]] Result<std::unique_ptr<T>, TakeError> take_unique() {
    if (auto owned = intra_->pop()) return owned;
    auto s = take();
    if (!s) return unexpected(s.error());
    return std::make_unique<T>(**s);
  }
  bool has_data() override { return !intra_->empty() || port_->has_data(); }
  bool has_callback() const override { return static_cast<bool>(callback_); }
  bool execute_one() override {
    auto s = take();
    if (!s) return false;
    if (callback_) callback_(*s);
    return true;
  }
  std::uint64_t lost() const { return port_->lost(); }
  std::uint32_t publisher_count() const { return port_->publisher_count(); }

 private:
  Callback callback_;
  std::shared_ptr<topic::IntraQueue<T>> intra_;
};

}  // namespace baton
