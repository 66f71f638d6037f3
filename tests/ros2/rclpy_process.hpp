// A child process running .venv-ros's python on one of the rclpy peer scripts next to the ros2
// tests, with its stdout + stderr in a log file and its own environment (the test process's plus
// overrides: ROS_DOMAIN_ID, LD_PRELOAD for rmw_baton_cpp, ...). The destructor stops it (SIGTERM)
// and removes the log.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ros2_test_env.hpp"

extern char** environ;

namespace baton::ros2::test {

using Env = std::map<std::string, std::string>;

class RclpyProcess {
 public:
  // Starts `python tests/ros2/<script> args...` with the test's environment plus `env`
  // (a value of "" removes the variable). pid() is -1 if it could not start.
  RclpyProcess(const std::string& script, const std::vector<std::string>& args, const Env& env) {
    std::vector<std::string> argv = {(ros_venv() / "bin" / "python").string(),
                                     std::string(BATON_SOURCE_DIR) + "/tests/ros2/" + script};
    argv.insert(argv.end(), args.begin(), args.end());
    start(argv, env);
  }
  // Any program (argv[0] = its path), e.g. this test binary re-run as a baton child process.
  struct Command {
    std::vector<std::string> argv;
  };
  RclpyProcess(const Command& command, const Env& env) { start(command.argv, env); }
  ~RclpyProcess() {
    stop();
    std::filesystem::remove(log_);
  }

 private:
  void start(std::vector<std::string> argv, const Env& env) {
    static std::atomic<int> counter{0};
    log_ = std::filesystem::temp_directory_path() /
           ("baton-rclpy-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".log");
    Env all;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos) all[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : env) {
      if (v.empty()) {
        all.erase(k);
      } else {
        all[k] = v;
      }
    }
    std::vector<std::string> envs;
    for (const auto& [k, v] : all) envs.push_back(k + "=" + v);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : envs) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }

 public:
  RclpyProcess(const RclpyProcess&) = delete;
  RclpyProcess& operator=(const RclpyProcess&) = delete;

  pid_t pid() const { return pid_; }
  // True once the process has exited; `status` gets its wait status.
  bool exited(int* status = nullptr) {
    if (pid_ > 0 && ::waitpid(pid_, &status_, WNOHANG) == pid_) pid_ = -1;
    if (status != nullptr) *status = status_;
    return pid_ <= 0;
  }
  // Waits for the exit up to `timeout`; true with its exit code in `code` (-1: killed by a
  // signal) if it exited.
  bool wait_exit(std::chrono::milliseconds timeout, int* code = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (code != nullptr) *code = WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
    return true;
  }
  // Waits until the output holds `text` (true) or the process exits / `timeout` passes (false).
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output().find(text) == std::string::npos) {
      if (exited() || std::chrono::steady_clock::now() >= deadline)
        return output().find(text) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // SIGTERM, then SIGKILL after 10 s: a peer busy inside its DDS library (a 24 MB sample being
  // reassembled on a loaded machine) may not run Python's signal handler for minutes, and a test
  // must end with a verdict, never hang in its teardown.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      if (::waitpid(pid_, &status_, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int status_ = 0;
};

}  // namespace baton::ros2::test
