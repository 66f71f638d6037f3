// What the ROS 1 tests run beside themselves: child processes (Debian's roscore, rospy peers,
// rostopic) with their output in a log file, and a private roscore on a free port with its own
// ROS_MASTER_URI and ROS_HOME, stopped (the whole process group) when the test ends.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "baton/ros1/master_client.hpp"
#include "test_util.hpp"

extern char** environ;

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

using Env = std::map<std::string, std::string>;

// A child in its own process group, stdout + stderr in `log_path`, killed with the test process
// (PR_SET_PDEATHSIG). The destructor stops the group: SIGINT, then SIGKILL if it lingers.
class Child {
 public:
  Child(std::vector<std::string> argv, const Env& overrides, std::filesystem::path log_path)
      : log_(std::move(log_path)) {
    // The test's environment minus every overridden name, then the overrides ("" removes).
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view kv = *e;
      if (overrides.count(std::string(kv.substr(0, kv.find('=')))) == 0)
        env_strings.emplace_back(kv);
    }
    for (const auto& [k, v] : overrides)
      if (!v.empty()) env_strings.push_back(k + "=" + v);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env_strings) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    const int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {  // only async-signal-safe calls until execve
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execve(cargv[0], cargv.data(), cenv.data());
      ::_exit(127);
    }
    ::close(out);
  }
  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void kill(int sig) const {
    if (pid_ > 0 && !exited_) ::kill(-pid_, sig);
  }
  // Waits for the child to exit by itself; returns its exit status (-1 if killed by a signal).
  int wait() {
    if (!exited_) reap(0);
    return status_;
  }
  bool exited() {
    if (!exited_) reap(WNOHANG);
    return exited_;
  }
  // SIGINT, then SIGKILL if the child has not exited within 5 s: its exit is watched through a
  // pidfd (poll sleeps until it happens), not by polling waitpid.
  void stop() {
    if (pid_ <= 0 || exited_) return;
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    kill(SIGINT);
    pollfd exit{pidfd, POLLIN, 0};
    if (pidfd < 0 || ::poll(&exit, 1, 5000) != 1) kill(SIGKILL);
    if (pidfd >= 0) ::close(pidfd);
    reap(0);
  }
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  bool output_has(const std::string& text) const {
    return output().find(text) != std::string::npos;
  }

 private:
  void reap(int flags) {
    int st = 0;
    if (::waitpid(pid_, &st, flags) == pid_) {
      exited_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
  }
  std::filesystem::path log_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = -1;
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

// Why the ROS 1 interop tests cannot run here, or "" when they can.
inline std::string missing_ros1() {
  if (::access("/usr/bin/roscore", X_OK) != 0)
    return "Debian's ros-core is not installed (scripts/install-ros1.sh)";
  if (std::system("/usr/bin/python3 -c 'import rospy, std_msgs.msg, sensor_msgs.msg' "
                  ">/dev/null 2>&1") != 0)
    return "rospy / python3-sensor-msgs are not installed (scripts/install-ros1.sh)";
  return "";
}

// A roscore of the test's own: port, ROS_HOME and logs in a scratch directory.
class Roscore {
 public:
  Roscore() : port_(free_port()) {
    uri_ = "http://127.0.0.1:" + std::to_string(port_) + "/";
    core_ = std::make_unique<Child>(
        std::vector<std::string>{"/usr/bin/roscore", "-p", std::to_string(port_)}, env(),
        dir_.path() / "roscore.log");
    // Ready once roslaunch has started rosout too: a roscore interrupted while it is still
    // launching takes seconds to stop.
    MasterClient master(uri_, "/baton_test_probe", std::chrono::seconds(1));
    ready_ = baton::testing::eventually([&] { return master.lookup_node("/rosout").has_value(); },
                                        std::chrono::seconds(60));
  }
  bool ready() const { return ready_; }
  const std::string& uri() const { return uri_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::string log() const { return core_->output(); }
  // The environment of a ROS 1 process on this master: loopback only.
  Env env() const {
    return {{"ROS_MASTER_URI", uri_},
            {"ROS_HOME", (dir_.path() / "ros_home").string()},
            {"ROS_LOG_DIR", (dir_.path() / "log").string()},
            {"ROS_IP", "127.0.0.1"},
            {"ROS_HOSTNAME", ""},
            {"PYTHONUNBUFFERED", "1"}};
  }
  // A rospy peer (rospy_peer.py MODE ARGS...), output in the scratch directory.
  std::unique_ptr<Child> peer(const std::vector<std::string>& args, const std::string& log_name) {
    std::vector<std::string> argv = {PYTHON, peer_script()};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Child>(argv, env(), dir_.path() / log_name);
  }
  // Runs a ROS 1 command line tool to completion; returns its output.
  std::string run(const std::vector<std::string>& argv, int* status = nullptr) {
    static int n = 0;
    Child c(argv, env(), dir_.path() / ("tool-" + std::to_string(n++) + ".log"));
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
