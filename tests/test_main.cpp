// gtest main for baton's tests: each test process runs in its own BATON_NAMESPACE (inherited by
// forked and exec'd children) and removes its leftover segments at exit, so runs never collide
// and /dev/shm does not fill up with test topics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "baton/topic/cleanup.hpp"

int main(int argc, char** argv) {
  if (std::getenv("BATON_NAMESPACE") == nullptr) {
    const std::string ns = "test-" + std::to_string(::getpid());
    ::setenv("BATON_NAMESPACE", ns.c_str(), 1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  baton::topic::clean_segments(/*dry_run=*/false, /*remove_corrupt=*/true);
  return rc;
}
