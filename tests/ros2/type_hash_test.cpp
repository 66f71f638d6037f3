// RIHS01 hashes computed from the .msg files against the ones rosidl shipped in the wheels
// (share/<pkg>/msg/<Name>.json, "type_hashes"[0].hash_string).
#include "baton/ros2/type_hash.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

using test::hex;

TEST(TypeHash, sha256_of_known_vectors) {
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(std::string(1000, 'a'))),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

// The hash_string rosidl wrote for the file's own type.
std::string shipped_hash(const std::filesystem::path& json) {
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string key = "\"hash_string\": \"";
  auto at = text.find(key, text.find("\"type_hashes\""));
  if (at == std::string::npos) return {};
  at += key.size();
  return text.substr(at, text.find('"', at) - at);
}

TEST(TypeHash, type_hash_matches_rosidl_for_every_shipped_message) {
  BATON_REQUIRE_ROS_VENV();
  TypeRegistry registry;
  registry.add_share_root(test::ros_venv() / "share");
  int checked = 0;
  for (const char* pkg : {"builtin_interfaces", "std_msgs", "geometry_msgs", "sensor_msgs",
                          "rcl_interfaces", "rosgraph_msgs", "type_description_interfaces"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(test::ros_venv() / "share" / pkg / "msg")) {
      if (e.path().extension() != ".json") continue;
      auto d = registry.message(std::string(pkg) + "/msg/" + e.path().stem().string());
      ASSERT_TRUE(d.has_value()) << d.error().detail;
      const std::string expected = shipped_hash(e.path());
      ASSERT_FALSE(expected.empty()) << e.path();
      EXPECT_EQ(type_hash(**d), expected) << (*d)->full_name() << "\n"
                                          << type_description_json(**d);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  // Spot values, so a regression shows a name rather than a count.
  EXPECT_EQ(type_hash(**registry.message("std_msgs/msg/String")),
            "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18");
}

TEST(TypeHash, type_hash_matches_rosidl_for_every_shipped_service) {
  BATON_REQUIRE_ROS_VENV();
  TypeRegistry registry;
  registry.add_share_root(test::ros_venv() / "share");
  int checked = 0;
  for (const char* pkg : {"rcl_interfaces", "type_description_interfaces", "std_srvs"}) {
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(test::ros_venv() / "share" / pkg / "srv", ec)) {
      if (e.path().extension() != ".json") continue;
      auto svc = registry.service(std::string(pkg) + "/srv/" + e.path().stem().string());
      ASSERT_TRUE(svc.has_value()) << svc.error().detail;
      ASSERT_NE((*svc)->description, nullptr) << "service_msgs not loadable";
      EXPECT_EQ(type_hash(*(*svc)->description), shipped_hash(e.path()))
          << (*svc)->full_name() << "\n"
          << type_description_json(*(*svc)->description);
      ++checked;
    }
  }
  EXPECT_GT(checked, 5);
}

}  // namespace
}  // namespace baton::ros2
