// Ros1Mirror (ros1_mirror.hpp): one reader thread per mirrored topic; it sleeps on a WaitSet of
// the shared-memory subscription and a stop guard (no polling) and converts each sample in place.
#include "baton/bridge/ros1_mirror.hpp"

#include <cstdio>
#include <utility>

#include "baton/api/wait_set.hpp"
#include "baton/common/thread_name.hpp"
#include "baton/ros2/type_hash.hpp"

namespace baton::bridge {

namespace {

using Err = Error<MirrorError>;

Unexpected<Err> fail(MirrorError code, std::string detail) {
  return unexpected(Err{code, std::move(detail)});
}

ros1::LogHandler or_stderr(ros1::LogHandler log) {
  if (log) return log;
  return [](ros1::LogLevel level, std::string_view text) {
    if (level >= ros1::LogLevel::Warn)
      std::fprintf(stderr, "[baton_bridge] %s: %.*s\n", std::string(to_string(level)).c_str(),
                   static_cast<int>(text.size()), text.data());
  };
}

}  // namespace

Result<std::unique_ptr<Ros1Mirror>, Err> Ros1Mirror::create(ros1::Node& ros1_node, Node& shm_node,
                                                            const ros2::MessageDescription& type,
                                                            const std::string& ros2_topic,
                                                            MirrorOptions options) {
  const std::string ros1_type =
      options.ros1_type.empty() ? ros1_type_name(type.full_name()) : options.ros1_type;
  auto counterpart = ros1_node.types().message(ros1_type);
  if (!counterpart)
    return fail(MirrorError::Types, type.full_name() + " has no ROS 1 counterpart " + ros1_type +
                                        ": " + counterpart.error().detail);
  auto conversion = CdrToRos1::create(type, **counterpart);
  if (!conversion)
    return fail(MirrorError::Types,
                type.full_name() + " -> " + ros1_type + ": " + conversion.error().detail);
  auto subscription =
      shm_node.raw_subscription(ros2_topic, ros2::type_info(type))
          .qos(options.reliable ? QoS(options.depth) : QoS(options.depth).best_effort())
          .create();
  if (!subscription)
    return fail(MirrorError::Endpoint,
                "shared-memory subscription of " + ros2_topic + ": " + subscription.error().detail);
  const std::string topic = options.ros1_topic.empty() ? ros2_topic : options.ros1_topic;
  auto publisher = ros1_node.advertise(topic, ros1_type,
                                       {.latch = options.latch, .queue_size = options.queue_size});
  if (!publisher)
    return fail(MirrorError::Endpoint, "ROS 1 publisher of " + topic + " (" + ros1_type +
                                           "): " + publisher.error().detail);
  options.log = or_stderr(std::move(options.log));
  return std::unique_ptr<Ros1Mirror>(new Ros1Mirror(std::move(*conversion), std::move(*publisher),
                                                    std::move(*subscription), std::move(options)));
}

Result<std::unique_ptr<Ros1Mirror>, Err> Ros1Mirror::create(ros1::Node& ros1_node,
                                                            ros2::Node& ros2_node,
                                                            const ros2::Publisher& publisher,
                                                            MirrorOptions options) {
  return create(ros1_node, ros2_node.node(), publisher.type(), publisher.topic(),
                std::move(options));
}

Ros1Mirror::Ros1Mirror(CdrToRos1 conversion, std::unique_ptr<ros1::Publisher> publisher,
                       std::shared_ptr<RawSubscription> subscription, MirrorOptions options)
    : conversion_(std::move(conversion)),
      publisher_(std::move(publisher)),
      subscription_(std::move(subscription)),
      options_(std::move(options)) {
  thread_ = std::thread([this] {
    name_this_thread("ros1-mirror");
    run();
  });
}

Ros1Mirror::~Ros1Mirror() {
  stopping_ = true;
  stop_->trigger();
  if (thread_.joinable()) thread_.join();
}

MirrorStats Ros1Mirror::stats() const {
  return MirrorStats{.taken = taken_,
                     .converted = converted_,
                     .unread = unread_,
                     .malformed = malformed_,
                     .bytes = bytes_,
                     .skipped = skipped_};
}

void Ros1Mirror::skip_publisher(ros2::Publisher& publisher) {
  std::lock_guard lock(skip_mutex_);
  skip_.insert(publisher.shm_writer());
}

void Ros1Mirror::run() {
  WaitSet waits;
  (void)waits.add_subscription(subscription_);
  (void)waits.add_guard_condition(stop_);
  while (!stopping_) {
    (void)waits.wait();  // until a sample or the stop guard
    while (!stopping_) {
      auto sample = subscription_->take();
      if (!sample) break;
      mirror_one(*sample);
    }  // the sample's loan goes back here
  }
}

void Ros1Mirror::mirror_one(const RawSample& sample) {
  ++taken_;
  {
    std::lock_guard lock(skip_mutex_);
    if (skip_.count({sample.publisher_slot(), sample.publisher_generation()}) != 0) {
      ++skipped_;
      return;
    }
  }
  if (!options_.latch && publisher_->subscriber_count() == 0) {  // nobody on ROS 1: no work
    ++unread_;
    return;
  }
  // The port checked size() against the chunk; the bytes are still the publisher's memory, so
  // every length in them is checked again by the walk that uses it.
  const std::span cdr(reinterpret_cast<const uint8_t*>(sample.data()), sample.size());
  const auto dropped = [&](const std::string& why) {
    ++malformed_;
    options_.log(ros1::LogLevel::Error, "mirror " + publisher_->topic() + ": a sample of " +
                                            std::to_string(cdr.size()) +
                                            " bytes does not convert (" + why + "): dropped");
  };
  auto size = conversion_.converted_size(cdr, options_.limits);
  if (!size) {
    dropped(std::string(to_string(size.error().code)) + ": " + size.error().detail);
    return;
  }
  // Converted straight into the buffer it is sent from: the BATONSHM loan, else the TCPROS frame.
  bool converted = false;
  auto sent =
      publisher_->publish_filled(*size, [&](std::span<uint8_t> room) -> Result<Ok, std::string> {
        auto written = conversion_.convert_into(cdr, room, seq_ + 1, options_.limits);
        if (!written)
          return unexpected(std::string(to_string(written.error().code)) + ": " +
                            written.error().detail);
        if (*written != room.size())  // the publisher rewrote the sample between the two passes
          return unexpected(std::string("the sample changed while it was converted"));
        converted = true;
        return Ok{};
      });
  if (converted) {
    ++seq_;
    ++converted_;
    bytes_ += *size;
  } else if (!sent && sent.error().code == ros1::WireError::TypeMismatch) {
    dropped(sent.error().detail);
  } else if (!sent) {
    options_.log(ros1::LogLevel::Warn,
                 "mirror " + publisher_->topic() + ": " + sent.error().detail);
  }
}

}  // namespace baton::bridge
