// Quality of service, shaped like rclcpp::QoS: a value type with chaining setters.
//
// Defaults (QoS{}): keep_last(10), reliable, volatile — rclcpp's default profile.
// sensor_data(): keep_last(5), best_effort, volatile — as rmw_qos_profile_sensor_data.
// Reliable: the publisher waits (up to reliable_timeout, default 1 s) while a reliable
// subscriber's keep-last queue is full. Best effort: a slow subscriber loses its oldest messages.
// Transient local: a late-joining transient-local subscriber gets the last `depth` messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"

namespace baton {

using topic::Durability;
using topic::Reliability;
using topic::WaitMode;

class QoS {
 public:
  explicit QoS(std::uint32_t depth = 10) : depth_(depth) {}
  static QoS sensor_data() { return QoS(5).best_effort(); }

  QoS& keep_last(std::uint32_t depth) {
    depth_ = depth;
    return *this;
  }
  QoS& reliable() {
    reliability_ = Reliability::Reliable;
    return *this;
  }
  QoS& best_effort() {
    reliability_ = Reliability::BestEffort;
    return *this;
  }
  QoS& transient_local() {
    durability_ = Durability::TransientLocal;
    return *this;
  }
  QoS& durability_volatile() {
    durability_ = Durability::Volatile;
    return *this;
  }
  QoS& reliable_timeout(std::chrono::nanoseconds t) {
    timeout_ = t;
    return *this;
  }

  std::uint32_t depth() const { return depth_; }
  Reliability reliability() const { return reliability_; }
  Durability durability() const { return durability_; }
  std::chrono::nanoseconds timeout() const { return timeout_; }

  topic::PublisherOptions publisher_options() const {
    topic::PublisherOptions o;
    o.depth = depth_;
    o.reliability = reliability_;
    o.durability = durability_;
    o.reliable_timeout = timeout_;
    return o;
  }
  topic::SubscriberOptions subscriber_options() const {
    topic::SubscriberOptions o;
    o.depth = depth_;
    o.reliability = reliability_;
    o.durability = durability_;
    return o;
  }

 private:
  std::uint32_t depth_;
  Reliability reliability_ = Reliability::Reliable;
  Durability durability_ = Durability::Volatile;
  std::chrono::nanoseconds timeout_ = std::chrono::seconds(1);
};

// A verdict on whether a publisher and subscription QoS can talk, with the reason if not.
struct QoSCompatibility {
  bool compatible = true;
  std::string reason;
};
inline QoSCompatibility qos_compatible(const QoS& pub, const QoS& sub) {
  if (pub.reliability() == Reliability::BestEffort && sub.reliability() == Reliability::Reliable) {
    return {false,
            "reliable subscription, best-effort publisher: baton delivers, but without "
            "flow control (DDS would not match them)"};
  }
  if (pub.durability() == Durability::Volatile && sub.durability() == Durability::TransientLocal) {
    return {false, "transient-local subscription, volatile publisher: no history for late joiners"};
  }
  return {};
}

}  // namespace baton
