// gtest main for baton's tests: each test process runs in its own BATON_NAMESPACE (inherited by
// forked and exec'd children) and removes its leftover segments at exit, so runs never collide
// and /dev/shm does not fill up with test topics.
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "baton/graph/cleanup.hpp"
#include "child_roles.hpp"
#include "fork_guard.hpp"

namespace {

// Before every fork() of a test process (fork_guard.hpp): a child that does not exec must come
// from a single-threaded parent.
void check_fork() {
  if (baton::testing::forking_to_exec) return;
  const std::size_t threads = baton::testing::thread_count();
  if (threads > baton::testing::runtime_threads) {
    ADD_FAILURE() << "fork() without exec from a process with " << threads
                  << " threads: the child may inherit a lock held for good (fork_guard.hpp)";
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A namespace of this test process's own, even when a script set one for a whole run:
  // parallel test processes must never see, or clean, each other's segments. Children (forked,
  // or this binary exec'd as a helper) inherit it unchanged and leave the cleaning to the owner.
  const std::string me = std::to_string(::getpid());
  const char* owner = std::getenv("BATON_TEST_NAMESPACE_OWNER");
  const bool is_owner = owner == nullptr;
  if (is_owner) {
    const char* outer = std::getenv("BATON_NAMESPACE");
    const std::string ns = std::string(outer != nullptr ? outer : "test") + "-" + me;
    ::setenv("BATON_NAMESPACE", ns.c_str(), 1);
    ::setenv("BATON_TEST_NAMESPACE_OWNER", me.c_str(), 1);
  }
  // A child role (child_roles.hpp): this process is a test's peer, not a test run.
  if (const char* role = std::getenv("BATON_CHILD_ROLE"))
    return baton::testing::run_child_role(role);
  std::thread([] {}).join();  // starts the thread the runtime keeps, if any (fork_guard.hpp)
  baton::testing::runtime_threads = baton::testing::thread_count();
  ::pthread_atfork(check_fork, nullptr, nullptr);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  if (is_owner) baton::graph::clean_segments(/*dry_run=*/false, /*remove_corrupt=*/true);
  return rc;
}
