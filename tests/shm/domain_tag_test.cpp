// The tag naming this process's shared-memory domain (who can open whose segments).
#include "baton/shm/domain_tag.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace baton::shm {
namespace {

TEST(DomainTag, differs_per_baton_namespace_and_holds_no_separator) {
  const char* old = std::getenv("BATON_NAMESPACE");
  const std::string saved = old != nullptr ? old : "";
  const std::string a = domain_tag();
  ::setenv("BATON_NAMESPACE", (saved + "-other").c_str(), 1);
  const std::string b = domain_tag();
  ::setenv("BATON_NAMESPACE", saved.c_str(), 1);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, domain_tag());
  EXPECT_EQ(a.find_first_of(";="), std::string::npos);  // it travels inside "key=value;" lists
}

}  // namespace
}  // namespace baton::shm
