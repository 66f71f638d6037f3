// Child roles: code a test runs in a fresh copy of its own binary (fork + exec), to play the other
// side of a cross-process exchange or a process that dies holding something. A role is a function
// registered by name (BATON_CHILD_ROLE) and run by test_main, before gtest, when the environment
// variable BATON_CHILD_ROLE names it; so a role is no test of the binary's own, and a normal run
// lists no skipped placeholders. The role's return value is the child's exit code (0: done);
// child_role_failed() says why on stderr, which the parent's test output shows.
//
// A role may also be a gtest body (BATON_CHILD_TEST_F): it runs with its fixture's SetUp and
// TearDown and may use gtest's assertions, whose failures the child prints and turns into exit
// code 1. Such a role is still no test of the binary's own: gtest never lists or skips it.
#pragma once

#include <gtest/gtest.h>

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

// The body of a BATON_CHILD_TEST_F role, run outside RUN_ALL_TESTS as gtest would run a test:
// SetUp, then the body unless SetUp failed or skipped, then TearDown. An assertion's failure is
// printed by gtest's default printer and recorded in its ad-hoc result, which Test::HasFailure()
// reads when no test is running. A skip (a missing prerequisite) fails the role too: the parent
// asked for a peer, and a peer that did nothing must not pass for one that did its job.
template <class Fixture>
class FixtureChildRole : public Fixture {
 public:
  int run_role() {
    this->SetUp();
    const bool set_up = !::testing::Test::HasFatalFailure() && !::testing::Test::IsSkipped();
    if (set_up) body();
    this->TearDown();
    if (::testing::Test::IsSkipped()) return child_role_failed("skipped (see above)");
    if (::testing::Test::HasFailure()) return child_role_failed("an assertion failed (see above)");
    return 0;
  }

 protected:
  virtual void body() = 0;  // the role's code (gtest keeps TestBody private)

 private:
  void TestBody() override {}
};

}  // namespace baton::testing

// BATON_CHILD_ROLE(name) { ...; return 0; } defines and registers role `name`.
#define BATON_CHILD_ROLE(name)                                         \
  static int name##_child_role();                                      \
  [[maybe_unused]] static const bool name##_child_role_registered =    \
      ::baton::testing::register_child_role(#name, name##_child_role); \
  static int name##_child_role()

// BATON_CHILD_TEST_F(Fixture, name) { ...gtest body... } defines role `name` as a test body of
// `Fixture` (FixtureChildRole); BATON_CHILD_TEST(name) is the same without a fixture.
#define BATON_CHILD_TEST_F(Fixture, name)                                           \
  class name##_ChildRoleBody : public ::baton::testing::FixtureChildRole<Fixture> { \
   public:                                                                          \
    void body() override;                                                           \
  };                                                                                \
  BATON_CHILD_ROLE(name) { return name##_ChildRoleBody().run_role(); }              \
  void name##_ChildRoleBody::body()
#define BATON_CHILD_TEST(name) BATON_CHILD_TEST_F(::testing::Test, name)
