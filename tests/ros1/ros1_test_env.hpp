// What the ROS 1 tests run beside themselves: child processes (Debian's roscore, rospy peers,
// rostopic) with their output captured, and a private roscore on a free port with its own
// ROS_MASTER_URI and ROS_HOME, stopped (the whole process group) when the test ends.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "baton/ros1/master_client.hpp"
#include "child_process.hpp"
#include "test_util.hpp"

namespace baton::ros1::test {

inline const char* PYTHON = "/usr/bin/python3";  // Debian's rospy runs with the system Python

inline std::string peer_script() {
  return std::string(BATON_SOURCE_DIR) + "/tests/ros1/rospy_peer.py";
}

// A scratch directory removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "baton-ros1-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

using Env = baton::test::Env;

// A ROS 1 test's child process (roscore, rospy / roscpp peers, rostopic): a ChildProcess (its own
// process group, output through a pipe, exit through a pidfd) stopped with SIGINT, as roslaunch
// expects of a Ctrl-C, then SIGKILL if it lingers 5 s.
class Child : public baton::test::ChildProcess {
 public:
  Child(std::vector<std::string> argv, const Env& overrides)
      : ChildProcess(std::move(argv), overrides) {}
  ~Child() { stop(SIGINT, std::chrono::seconds(5)); }
  // Signals the child's process group.
  void kill(int sig) const { signal(sig); }
  // Waits for the child to exit by itself; returns its exit status (-1 if killed by a signal).
  int wait() {
    int code = -1;
    while (!wait_exit(std::chrono::hours(1), &code)) {
    }
    return code;
  }
  bool output_has(const std::string& text) { return output().find(text) != std::string::npos; }
  // For a rospy listener peer (string-listener, image-listener): true once its callback is
  // attached, which it prints as "ready". A publisher's count of connected subscribers does not
  // say that: rospy.Subscriber() registers and connects to the publishers before it attaches the
  // callback, and rospy drops what arrives on the connection in between.
  bool listening() { return wait_for_output("ready", std::chrono::seconds(60)); }
};

// A port nobody listens on now (bound, read, released).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Pids of the processes whose command line holds `text` (read from /proc).
inline std::vector<pid_t> processes_with_argument(const std::string& text) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (cmdline.find(text) != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

// /proc/<pid>/stat after the command name ("S 1234 ...": state, parent pid, ...); empty if the
// process is gone.
inline std::string proc_stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? "" : stat.substr(close + 2);
}

// True once `pid` has exited (gone, or a zombie its new parent has not reaped yet).
inline bool process_ended(pid_t pid) {
  const std::string fields = proc_stat_fields(pid);
  return fields.empty() || fields[0] == 'Z';
}

// Why the ROS 1 interop tests cannot run here, or "" when they can.
inline std::string missing_ros1() {
  if (::access("/usr/bin/roscore", X_OK) != 0)
    return "Debian's ros-core is not installed (scripts/install-ros1.sh)";
  if (std::system("/usr/bin/python3 -c 'import rospy, std_msgs.msg, sensor_msgs.msg, std_srvs.srv' "
                  ">/dev/null 2>&1") != 0)
    return "rospy / python3-sensor-msgs / python3-std-srvs are not installed "
           "(scripts/install-ros1.sh)";
  return "";
}

// A roscore of the test's own: port, ROS_HOME and logs in a scratch directory.
class Roscore {
 public:
  Roscore() : Roscore(free_port()) {}
  // On a given port: a master started again where a stopped one was (same ROS_MASTER_URI).
  explicit Roscore(int port) : port_(port) {
    uri_ = "http://127.0.0.1:" + std::to_string(port_) + "/";
    core_ = std::make_unique<Child>(
        std::vector<std::string>{"/usr/bin/roscore", "-p", std::to_string(port_)}, env());
    // Ready once roslaunch has started rosout too: a roscore interrupted while it is still
    // launching takes seconds to stop.
    MasterClient master(uri_, "/baton_test_probe", std::chrono::seconds(1));
    ready_ = baton::testing::eventually([&] { return master.lookup_node("/rosout").has_value(); },
                                        std::chrono::seconds(60));
  }
  // Stops roslaunch, then what it started. roslaunch starts rosmaster and rosout in sessions of
  // their own, so when it is killed after its grace (a loaded machine), they stayed: the master
  // kept answering on its port after the test had stopped its roscore ("no provider" where
  // MasterUnreachable was expected) and lived on after the test. They name the scratch
  // directory in their arguments (__log:=...), which is how they are found.
  ~Roscore() {
    core_.reset();
    const std::vector<pid_t> left = processes_with_argument(dir_.path().string());
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    for (pid_t pid : left) {
      (void)baton::testing::eventually([&] { return process_ended(pid); },
                                       std::chrono::seconds(10));
    }
  }
  Roscore(const Roscore&) = delete;
  Roscore& operator=(const Roscore&) = delete;
  bool ready() const { return ready_; }
  const std::string& uri() const { return uri_; }
  int port() const { return port_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::string log() { return core_->output(); }
  // The environment of a ROS 1 process on this master: loopback only.
  Env env() const {
    return {{"ROS_MASTER_URI", uri_},
            {"ROS_HOME", (dir_.path() / "ros_home").string()},
            {"ROS_LOG_DIR", (dir_.path() / "log").string()},
            {"ROS_IP", "127.0.0.1"},
            {"ROS_HOSTNAME", ""},
            {"PYTHONUNBUFFERED", "1"}};
  }
  // A rospy peer (rospy_peer.py MODE ARGS...) on this master.
  std::unique_ptr<Child> peer(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {PYTHON, peer_script()};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Child>(argv, env());
  }
  // Runs a ROS 1 command line tool to completion; returns its output.
  std::string run(const std::vector<std::string>& argv, int* status = nullptr) {
    Child c(argv, env());
    const int st = c.wait();
    if (status != nullptr) *status = st;
    return c.output();
  }

 private:
  TempDir dir_;
  int port_;
  std::string uri_;
  std::unique_ptr<Child> core_;
  bool ready_ = false;
};

}  // namespace baton::ros1::test
