// A child process of a ROS 2 test: .venv-ros's python on one of the rclpy peer scripts next to the
// ros2 tests, or any program (this test binary re-run in a child role, the rcl C++ peer). Its own
// environment is the test's plus overrides (ROS_DOMAIN_ID, LD_PRELOAD for rmw_baton_cpp, ...);
// output, exit and stop are test::ChildProcess's.
#pragma once

#include <string>
#include <vector>

#include "child_process.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2::test {

using Env = baton::test::Env;

class RclpyProcess : public baton::test::ChildProcess {
 public:
  // Starts `python tests/ros2/<script> args...` with the test's environment plus `env`
  // (a value of "" removes the variable). pid() is -1 if it could not start.
  RclpyProcess(const std::string& script, const std::vector<std::string>& args, const Env& env)
      : ChildProcess(python_argv(script, args), env) {}
  // Any program (argv[0] = its path), e.g. this test binary re-run as a baton child process.
  struct Command {
    std::vector<std::string> argv;
  };
  RclpyProcess(const Command& command, const Env& env) : ChildProcess(command.argv, env) {}
  // This test binary re-run as child role `name` (tests/child_roles.hpp).
  struct ChildRole {
    std::string name;
  };
  RclpyProcess(const ChildRole& role, Env env)
      : ChildProcess({"/proc/self/exe"}, with_role(role.name, std::move(env))) {}

 private:
  static std::vector<std::string> python_argv(const std::string& script,
                                              const std::vector<std::string>& args) {
    std::vector<std::string> argv = {(ros_venv() / "bin" / "python").string(),
                                     std::string(BATON_SOURCE_DIR) + "/tests/ros2/" + script};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  static Env with_role(const std::string& role, Env env) {
    env["BATON_CHILD_ROLE"] = role;
    return env;
  }
};

}  // namespace baton::ros2::test
