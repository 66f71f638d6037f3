// Ros2Mirror (ros2_mirror.hpp): a ROS 1 subscription whose sink maps each message onto the ROS 2
// type and publishes it with a native Publisher.
#include "baton/bridge/ros2_mirror.hpp"

#include <cstdio>
#include <utility>

#include "baton/ros1/serialization.hpp"

namespace baton::bridge {

struct Ros2Mirror::State {
  State(CdrToRos1 p, ros2::Publisher* pub, std::string own, ros1::LogHandler l)
      : pairing(std::move(p)), publisher(pub), own_name(std::move(own)), log(std::move(l)) {}
  CdrToRos1 pairing;
  ros2::Publisher* publisher = nullptr;
  std::string own_name;  // this mirror's ROS 1 node: its messages are not fed back
  ros1::LogHandler log;
  std::atomic<uint64_t> received{0}, published{0}, own{0}, dropped{0};

  void handle(const ros1::WireSample& s) {
    if (s.source == own_name) {
      ++own;
      return;
    }
    ++received;
    auto drop = [&](const std::string& why) {
      ++dropped;
      log(ros1::LogLevel::Error, "mirror " + publisher->topic() + ": a message from " +
                                     std::string(s.source) + " (" + std::to_string(s.bytes.size()) +
                                     " bytes): " + why + ": dropped");
    };
    // Arrays stay where they arrived (the TCPROS buffer, or the BATONSHM chunk) until the encode
    // below copies them into the ROS 2 loan: one copy.
    auto v1 = ros1::deserialize(*pairing.ros1_type().description, s.bytes, ros1::DecodeMode::View);
    if (!v1) return drop(std::string(to_string(v1.error().code)) + ": " + v1.error().detail);
    auto v2 = pairing.ros2_value(*v1);
    if (!v2) return drop(std::string(to_string(v2.error().code)) + ": " + v2.error().detail);
    if (auto st = publisher->publish(*v2); !st)
      return drop(std::string(to_string(st.error().code)) + ": " + st.error().detail);
    ++published;
  }
};

Result<std::unique_ptr<Ros2Mirror>, Error<MirrorError>> Ros2Mirror::create(
    ros1::Node& ros1_node, ros2::Node& ros2_node, const ros2::MessageDescription& type,
    const std::string& ros1_topic, Ros2MirrorOptions options) {
  using Err = Error<MirrorError>;
  const std::string ros1_type =
      options.ros1_type.empty() ? ros1_type_name(type.full_name()) : options.ros1_type;
  auto counterpart = ros1_node.types().message(ros1_type);
  if (!counterpart)
    return unexpected(Err{MirrorError::Types, type.full_name() + " has no ROS 1 counterpart " +
                                                  ros1_type + ": " + counterpart.error().detail});
  auto pairing = CdrToRos1::create(type, **counterpart);
  if (!pairing)
    return unexpected(Err{MirrorError::Types,
                          ros1_type + " -> " + type.full_name() + ": " + pairing.error().detail});
  const std::string topic = options.ros2_topic.empty() ? ros1_topic : options.ros2_topic;
  auto publisher = ros2::Publisher::create(ros2_node, type, topic, options.qos);
  if (!publisher)
    return unexpected(Err{MirrorError::Endpoint,
                          "ROS 2 publisher of " + topic + ": " + publisher.error().detail});
  auto owned = std::make_unique<ros2::Publisher>(std::move(*publisher));
  auto state = std::make_shared<State>(std::move(*pairing), owned.get(), ros1_node.name(),
                                       std::move(options.log));
  if (!state->log)
    state->log = [](ros1::LogLevel level, std::string_view text) {
      if (level >= ros1::LogLevel::Warn)
        std::fprintf(stderr, "[baton_bridge] %.*s\n", static_cast<int>(text.size()), text.data());
    };
  auto subscription = ros1_node.subscribe(ros1_topic, ros1_type,
                                          [state](const ros1::WireSample& s) { state->handle(s); });
  if (!subscription)
    return unexpected(Err{MirrorError::Endpoint, "ROS 1 subscription of " + ros1_topic + " (" +
                                                     ros1_type +
                                                     "): " + subscription.error().detail});
  std::unique_ptr<Ros2Mirror> mirror(new Ros2Mirror(std::move(owned), std::move(state)));
  mirror->subscription_ = std::move(*subscription);
  return mirror;
}

Ros2Mirror::~Ros2Mirror() { subscription_.reset(); }

Ros2MirrorStats Ros2Mirror::stats() const {
  return Ros2MirrorStats{.received = state_->received,
                         .published = state_->published,
                         .own = state_->own,
                         .dropped = state_->dropped};
}

}  // namespace baton::bridge
