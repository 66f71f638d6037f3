// ROS 1 roscpp (Debian's 1.15, TCPROS) as a bench/stream transport, shared by
// baton-peer-roscpp (scenario C ping-pong) and baton-peer-roscpp-stream (the open-loop
// scenarios). Messages are std_msgs/UInt8MultiArray (as the rospy peer's), TCP_NODELAY on every
// subscription. Queue sizes: `depth` on both ends; 0 = unbounded, ROS 1's only delivery
// guarantee (a full bounded queue drops its oldest message; nothing ever blocks the publisher).
// Callbacks run on a private CallbackQueue that receive() drains, so the timing is taken in the
// caller's thread as with every other transport.
// Also: start_rosmaster(), a private rosmaster per run on a free port.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "bench/stream/stream_roles.hpp"
#include "ros/callback_queue.h"
#include "ros/ros.h"
#include "std_msgs/UInt8MultiArray.h"

namespace baton::bench::roscpp {

namespace st = baton::bench::stream;

// A free TCP port on 127.0.0.1 (bound, read back, released).
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    st::fail("cannot find a free TCP port for rosmaster");
  ::close(fd);
  return ntohs(a.sin_port);
}

inline bool port_open(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

// Starts `rosmaster --core -p <free port>` (dies with us), sets ROS_MASTER_URI / ROS_IP /
// ROS_HOME for this process and its children, waits up to 15 s for it; returns its pid.
inline pid_t start_rosmaster() {
  const int port = free_port();
  ::setenv("ROS_MASTER_URI", ("http://127.0.0.1:" + std::to_string(port)).c_str(), 1);
  ::setenv("ROS_IP", "127.0.0.1", 1);
  ::setenv("ROS_HOME", "/tmp/baton-ros1-home", 0);  // rosmaster's logs: one shared place
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) st::fail("fork for rosmaster failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    const std::string p = std::to_string(port);
    ::execlp("rosmaster", "rosmaster", "--core", "-p", p.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 1500; ++i) {
    if (port_open(port)) return pid;
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid)
      st::fail(
          "rosmaster exited during start-up (is ros-core installed? "
          "scripts/install-ros1.sh)");
    ::usleep(10000);
  }
  ::kill(pid, SIGKILL);
  st::fail("rosmaster did not start within 15 s");
}

inline void init_node(std::string name) {
  for (auto& c : name)  // ROS 1 graph names: letters, digits and underscores
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  int argc = 1;
  char arg0[] = "baton_bench";
  char* argv[] = {arg0, nullptr};
  ros::init(argc, argv, name,
            ros::init_options::AnonymousName | ros::init_options::NoSigintHandler |
                ros::init_options::NoRosout);
  if (!ros::master::check()) st::fail("roscpp: rosmaster at $ROS_MASTER_URI not reachable");
}

class RoscppTransport final : public st::Transport {
 public:
  RoscppTransport(std::uint32_t depth, bool busy_poll) : depth_(depth), busy_poll_(busy_poll) {
    nh_ = std::make_unique<ros::NodeHandle>();
    nh_->setCallbackQueue(&queue_);
  }

  void advertise(const std::string& topic, std::uint64_t) override {
    pub_ = nh_->advertise<std_msgs::UInt8MultiArray>(topic, depth_);
  }

  void subscribe(const std::string& topic, std::uint64_t) override {
    sub_ = nh_->subscribe(topic, depth_, &RoscppTransport::on_message, this,
                          ros::TransportHints().tcpNoDelay());
  }

  void send(std::uint32_t seq, std::uint32_t value, std::uint64_t size) override {
    out_.data.resize(size);
    std::memcpy(out_.data.data(), &seq, 4);
    std::memcpy(out_.data.data() + 4, &value, 4);
    pub_.publish(out_);
  }

  bool receive(std::uint32_t* seq, std::uint32_t* value, std::uint64_t* size,
               std::uint64_t timeout_ns) override {
    // The deadline is read only once the inbox was empty (one clock read per message, as the
    // sender; bench/stream/baton_stream.cpp).
    std::uint64_t until = 0;
    while (inbox_.empty()) {
      const std::uint64_t now = now_ns();
      if (until == 0) until = now + timeout_ns;
      if (now >= until || !ros::ok()) return false;
      queue_.callOne(busy_poll_ ? ros::WallDuration(0)
                                : ros::WallDuration(static_cast<double>(until - now) * 1e-9));
    }
    const Header h = inbox_.front();
    inbox_.pop_front();
    *seq = h.seq;
    *value = h.value;
    *size = h.size;
    return true;
  }

  std::uint32_t subscriber_count() const { return pub_.getNumSubscribers(); }
  std::uint32_t publisher_count() const { return sub_.getNumPublishers(); }

 private:
  struct Header {
    std::uint32_t seq, value;
    std::uint64_t size;
  };

  void on_message(const std_msgs::UInt8MultiArray::ConstPtr& m) {
    if (m->data.size() < st::kHeaderBytes) st::fail("roscpp: payload too short");
    Header h{};
    std::memcpy(&h.seq, m->data.data(), 4);
    std::memcpy(&h.value, m->data.data() + 4, 4);
    h.size = m->data.size();
    inbox_.push_back(h);
  }

  std::uint32_t depth_;
  bool busy_poll_;
  ros::CallbackQueue queue_;
  std::unique_ptr<ros::NodeHandle> nh_;
  ros::Publisher pub_;
  ros::Subscriber sub_;
  std_msgs::UInt8MultiArray out_;
  std::deque<Header> inbox_;
};

}  // namespace baton::bench::roscpp
