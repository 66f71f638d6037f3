// Private to baton_ros1: a node's /rosout. What the node logs at NodeOptions::rosout_level or
// above (Node::log's lines and the node's own) is published as rosgraph_msgs/Log, as roscpp and
// rospy nodes do, for rqt_console, `rostopic echo /rosout` and roscore's rosout node (which
// aggregates every node's lines on /rosout_agg and into ~/.ros/log/.../rosout.log).
//
// Lines come from any thread, some of which hold a lock of the publishing path when they log:
// push() only queues (bounded: the oldest line goes first, and the next line published is preceded
// by a warning that says how many went), and a thread of its own ("ros1-rosout") publishes. What
// that thread logs itself is not queued, so a failing publish cannot feed itself. Lines pushed
// before start() wait for it (the node's creation).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "baton/ros1/log.hpp"
#include "baton/ros1/publisher.hpp"

namespace baton::ros1::detail {

class Rosout {
 public:
  // The node's published topics, for Log.topics (roscpp fills it the same way).
  using Topics = std::function<std::vector<std::string>()>;

  Rosout(std::string node_name, LogLevel min_level);
  ~Rosout();  // stop()
  Rosout(const Rosout&) = delete;
  Rosout& operator=(const Rosout&) = delete;

  // Queues `text` if `level` is at least the minimum; thread-safe, never blocks on the network.
  void push(LogLevel level, std::string_view text);
  // Publishes what was and will be pushed on `publisher` (rosgraph_msgs/Log), which must outlive
  // stop().
  void start(Publisher& publisher, Topics topics);
  // Ends the thread; later lines are dropped. Idempotent.
  void stop();

  static constexpr size_t MAX_QUEUED = 1000;

 private:
  struct Line {
    LogLevel level;
    std::string text;
    int64_t wall_ns;  // when it was logged
  };
  void run(Publisher& publisher, const Topics& topics);
  void publish(Publisher& publisher, const Topics& topics, const Line& line);

  const std::string node_name_;
  const LogLevel min_level_;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<Line> lines_;
  bool stopping_ = false;
  uint64_t dropped_ = 0;  // lines pushed out of a full queue since the last one published
  uint32_t seq_ = 0;      // Log.header.seq (the publishing thread's)
  std::thread thread_;
};

}  // namespace baton::ros1::detail
