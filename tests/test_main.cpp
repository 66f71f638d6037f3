// gtest main for baton's tests: each test process runs in its own BATON_NAMESPACE (inherited by
// forked and exec'd children) and removes its leftover segments at exit, so runs never collide
// and /dev/shm does not fill up with test topics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "baton/topic/cleanup.hpp"

int main(int argc, char** argv) {
  // Always a namespace of this process's own (children inherit it), even when a script set one
  // for a whole run: parallel test processes must never see, or clean, each other's segments.
  const char* outer = std::getenv("BATON_NAMESPACE");
  const std::string ns = std::string(outer != nullptr ? outer : "test") + "-" +
                         std::to_string(::getpid());
  ::setenv("BATON_NAMESPACE", ns.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  baton::topic::clean_segments(/*dry_run=*/false, /*remove_corrupt=*/true);
  return rc;
}
