// What the ros1::Node tests share: a gtest fixture with a private roscore per test and nodes on
// it, a log capture for asserting refusals, and a std_msgs/String sink that waits on a condition
// variable (never a sleep) for what it expects.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "baton/ros1/node.hpp"
#include "baton/ros1/serialization.hpp"
#include "ros1_test_env.hpp"

namespace baton::ros1::test {

constexpr auto GUARD = std::chrono::seconds(120);  // only keeps a broken build from hanging

// Log lines of a node, for asserting that bad input was refused with a reason.
struct LogCapture {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> lines;
  LogHandler handler() {
    return [this](LogLevel level, std::string_view text) {
      {
        std::lock_guard lock(mutex);
        lines.push_back(std::string(to_string(level)) + ": " + std::string(text));
      }
      changed.notify_all();
    };
  }
  bool has(const std::string& a, const std::string& b = "") {
    std::lock_guard lock(mutex);
    return has_locked(a, b);
  }
  // Waits until a line holds `a` and `b` (true) or GUARD passes.
  bool wait_for(const std::string& a, const std::string& b = "") {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, GUARD, [&] { return has_locked(a, b); });
  }

 private:
  bool has_locked(const std::string& a, const std::string& b) const {
    for (const auto& l : lines)
      if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    return false;
  }
};

// std_msgs/String messages received, in order, with the transport each came by.
struct Strings {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> got;
  std::vector<std::string> sources;
  std::vector<std::string> transports;
  const MessageType* type = nullptr;
  // Called in the sink with the sample, before it is recorded (e.g. to look where its bytes are).
  std::function<void(const WireSample&)> inspect;
  bool held = false;  // hold(): the sink waits before each message until release()
  WireReader::Sink sink() {
    return [this](const WireSample& s) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return !held; });  // the reading thread reads nothing more
      }
      if (inspect) inspect(s);
      auto v = deserialize(*type->description, s.bytes);
      {
        std::lock_guard lock(mutex);
        got.push_back(v ? v->items[0].str : "<undecodable: " + v.error().detail + ">");
        sources.emplace_back(s.source);
        transports.emplace_back(s.transport);
      }
      changed.notify_all();
    };
  }
  void hold() {
    std::lock_guard lock(mutex);
    held = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      held = false;
    }
    changed.notify_all();
  }
  size_t size() {
    std::lock_guard lock(mutex);
    return got.size();
  }
  bool contains(const std::string& s) {
    std::lock_guard lock(mutex);
    return std::find(got.begin(), got.end(), s) != got.end();
  }
  // Waits until at least `n` messages were received (true) or GUARD passes.
  bool wait_for_count(size_t n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, GUARD, [&] { return got.size() >= n; });
  }
  // Waits until `s` was received (true) or GUARD passes.
  bool wait_for(const std::string& s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, GUARD,
                            [&] { return std::find(got.begin(), got.end(), s) != got.end(); });
  }
};

inline ros2::Value string_value(const std::string& s) {
  ros2::Value v;
  v.items = {ros2::Value::of_string(s)};
  return v;
}

inline std::vector<std::string> numbered(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("msg " + std::to_string(i));
  return out;
}

// A TCP connection to 127.0.0.1:port (-1 if refused).
inline int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  ::close(fd);
  return -1;
}

// A private roscore per test, nodes on it logging into log_, and a topic of the test's own.
// How a test starts its stock peer (rospy or roscpp) with the peer's command line: checks shared by
// both peers take one (both peers take the same modes for them).
using PeerStarter = std::function<std::unique_ptr<Child>(const std::vector<std::string>& args)>;

class Ros1Graph : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_ros1(); !why.empty()) GTEST_FAIL() << why;
    core_ = std::make_unique<Roscore>();
    ASSERT_TRUE(core_->ready()) << "roscore did not start:\n" << core_->log();
    topic_ = "/baton_test/" + std::to_string(::getpid());
  }
  NodeOptions options() {
    NodeOptions o;
    o.master_uri = core_->uri();
    o.host = "127.0.0.1";
    o.log = log_.handler();
    return o;
  }
  std::shared_ptr<Node> node(const std::string& name) { return node(name, options()); }
  std::shared_ptr<Node> node(const std::string& name, const NodeOptions& o) {
    auto n = Node::create(name, o);
    EXPECT_TRUE(n) << n.error().detail;
    return n ? *n : nullptr;
  }
  // Starts rospy peers (tests/ros1/rospy_peer.py).
  PeerStarter rospy_peer() {
    return [this](const std::vector<std::string>& args) { return core_->peer(args); };
  }
  // The lines "got ..." a string-listener peer printed.
  static std::vector<std::string> listener_lines(Child& peer) {
    std::vector<std::string> out;
    std::istringstream in(peer.output());
    for (std::string line; std::getline(in, line);)
      if (line.rfind("got ", 0) == 0) out.push_back(line.substr(4));
    return out;
  }
  // A string-listener that `start`s now gets `latched` (what it is owed on connecting), then
  // `messages` and "end" published once it is connected, exactly: `pub` still serves.
  void expect_a_new_listener_gets(Publisher& pub, const PeerStarter& start,
                                  const std::vector<std::string>& messages,
                                  std::vector<std::string> latched = {}) {
    auto listener = start({"string-listener", topic_});
    ASSERT_TRUE(listener->listening()) << listener->output();
    ASSERT_TRUE(pub.wait_for_tcpros_subscribers(1, GUARD)) << listener->output();
    for (const auto& m : messages) ASSERT_TRUE(pub.publish(string_value(m)));
    ASSERT_TRUE(pub.publish(string_value("end")));
    EXPECT_EQ(listener->wait(), 0) << listener->output();
    latched.insert(latched.end(), messages.begin(), messages.end());
    latched.push_back("end");
    EXPECT_EQ(listener_lines(*listener), latched);
  }
  std::unique_ptr<Roscore> core_;
  std::string topic_;
  LogCapture log_;
};

}  // namespace baton::ros1::test
