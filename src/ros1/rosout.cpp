#include "rosout.hpp"

#include <chrono>
#include <utility>

#include "baton/common/thread_name.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros1::detail {
namespace {

// rosgraph_msgs/Log's level constants.
uint8_t log_level(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return 1;
    case LogLevel::Info:
      return 2;
    case LogLevel::Warn:
      return 4;
    case LogLevel::Error:
      return 8;
  }
  return 8;
}

// Set on the publishing thread: what it logs (a failed publish) is not queued again.
thread_local bool on_rosout_thread = false;

}  // namespace

Rosout::Rosout(std::string node_name, LogLevel min_level)
    : node_name_(std::move(node_name)), min_level_(min_level) {}

Rosout::~Rosout() { stop(); }

void Rosout::push(LogLevel level, std::string_view text) {
  if (level < min_level_ || on_rosout_thread) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (lines_.size() == MAX_QUEUED) {
      lines_.pop_front();
      ++dropped_;
    }
    lines_.push_back({level, std::string(text), now});
  }
  queued_.notify_one();
}

void Rosout::start(Publisher& publisher, Topics topics) {
  thread_ = std::thread([this, &publisher, topics = std::move(topics)] {
    name_this_thread("ros1-rosout");
    on_rosout_thread = true;
    run(publisher, topics);
  });
}

void Rosout::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Rosout::run(Publisher& publisher, const Topics& topics) {
  std::unique_lock lock(mutex_);
  while (true) {
    queued_.wait(lock, [&] { return stopping_ || !lines_.empty(); });
    if (stopping_) return;  // what is still queued goes with the node
    const Line line = std::move(lines_.front());
    lines_.pop_front();
    const uint64_t dropped = std::exchange(dropped_, 0);
    lock.unlock();
    if (dropped > 0) {
      publish(publisher, topics,
              {LogLevel::Warn,
               std::to_string(dropped) + " earlier lines were not sent to /rosout: more than " +
                   std::to_string(MAX_QUEUED) + " were waiting",
               line.wall_ns});
    }
    publish(publisher, topics, line);
    lock.lock();
  }
}

void Rosout::publish(Publisher& publisher, const Topics& topics, const Line& line) {
  using ros2::Value;
  const auto& d = *publisher.type().description;
  Value log = ros2::default_value(d);
  auto& header = log.at(d, "header");
  header.items[0] = Value::of<uint32_t>(seq_++);
  header.items[1].items = {Value::of<uint32_t>(static_cast<uint32_t>(line.wall_ns / 1000000000)),
                           Value::of<uint32_t>(static_cast<uint32_t>(line.wall_ns % 1000000000))};
  log.at(d, "level") = Value::of<uint8_t>(log_level(line.level));
  log.at(d, "name") = Value::of_string(node_name_);
  log.at(d, "msg") = Value::of_string(line.text);
  auto& published = log.at(d, "topics");
  published.items.clear();
  for (const auto& t : topics()) published.items.push_back(Value::of_string(t));
  // Nobody subscribed (rosout not up yet, or a graph without it): the line is not sent, as
  // roscpp's; a failure is the publisher's to log (not queued again: this thread's).
  (void)publisher.publish(log);
}

}  // namespace baton::ros1::detail
