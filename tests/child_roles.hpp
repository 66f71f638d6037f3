// Child roles: code a test runs in a fresh copy of its own binary (fork + exec), to play the other
// side of a cross-process exchange or a process that dies holding something. A role is a function
// registered by name (BATON_CHILD_ROLE) and run by test_main, before gtest, when the environment
// variable BATON_CHILD_ROLE names it; so a role is no test of the binary's own, and a normal run
// lists no skipped placeholders. The role's return value is the child's exit code (0: done);
// child_role_failed() says why on stderr, which the parent's test output shows.
#pragma once

#include <cstdio>
#include <map>
#include <string>

namespace baton::testing {

using ChildRole = int (*)();

inline std::map<std::string, ChildRole>& child_roles() {
  static std::map<std::string, ChildRole> roles;
  return roles;
}

inline bool register_child_role(const char* name, ChildRole role) {
  return child_roles().emplace(name, role).second;
}

// The exit code of role `name`, or 127 if this binary has no such role.
inline int run_child_role(const std::string& name) {
  const auto it = child_roles().find(name);
  if (it == child_roles().end()) {
    std::fprintf(stderr, "child role '%s': not in this test binary\n", name.c_str());
    return 127;
  }
  return it->second();
}

inline int child_role_failed(const std::string& why) {
  std::fprintf(stderr, "child role failed: %s\n", why.c_str());
  return 1;
}

}  // namespace baton::testing

// BATON_CHILD_ROLE(name) { ...; return 0; } defines and registers role `name`.
#define BATON_CHILD_ROLE(name)                                         \
  static int name##_child_role();                                      \
  [[maybe_unused]] static const bool name##_child_role_registered =    \
      ::baton::testing::register_child_role(#name, name##_child_role); \
  static int name##_child_role()
