// What genmsg / genpy say about ROS 1 types, dumped by rospy_peer.py ("types" / "srv-types" into
// a scratch directory), and the check that a baton MessageType agrees: md5sum, full definition,
// and genpy's serialized default instance decoding and re-serializing to the same bytes.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "baton/ros1/message_type.hpp"
#include "baton/ros1/serialization.hpp"
#include "ros1_test_env.hpp"

namespace baton::ros1::test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs rospy_peer.py MODE DIR PACKAGES...; true when it succeeded.
inline bool dump_genpy(const std::string& mode, const TempDir& dir,
                       const std::vector<std::string>& packages) {
  std::string cmd =
      std::string(PYTHON) + " " + peer_script() + " " + mode + " " + dir.path().string();
  for (const auto& p : packages) cmd += " " + p;
  return std::system((cmd + " >/dev/null").c_str()) == 0;
}

// `t` against genpy's STEM.md5, STEM.def and STEM.bin.
inline void expect_matches_genpy(const MessageType& t, const std::string& stem) {
  EXPECT_EQ(t.md5sum, slurp(stem + ".md5"));
  EXPECT_EQ(t.definition, slurp(stem + ".def"));
  const std::string bin = slurp(stem + ".bin");
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(bin.data()), bin.size());
  auto value = deserialize(*t.description, bytes);
  ASSERT_TRUE(value) << value.error().detail;
  auto again = serialize(*t.description, *value);
  ASSERT_TRUE(again) << again.error().detail;
  EXPECT_TRUE(std::equal(again->begin(), again->end(), bytes.begin(), bytes.end()));
}

}  // namespace baton::ros1::test
