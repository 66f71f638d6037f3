// ros1::TypeRegistry against what genmsg / genpy computed for Debian's python3-*-msgs packages:
// the md5sum and the full definition of every message of std_msgs, geometry_msgs and
// sensor_msgs, and ROS 1 serialization byte for byte against genpy's serialize().
#include "baton/ros1/type_registry.hpp"

#include <gtest/gtest.h>

#include "baton/ros1/serialization.hpp"
#include "genpy_dump.hpp"
#include "ros1_test_env.hpp"

namespace baton::ros1 {
namespace {

const char* PACKAGES[] = {"std_msgs", "geometry_msgs", "sensor_msgs"};

TEST(Ros1TypeRegistry, message_with_bad_names_returns_errors) {
  TypeRegistry sut;
  sut.add_default_roots();
  EXPECT_EQ(sut.message("NoSlash").error().code, TypeLoadError::BadTypeName);
  EXPECT_EQ(sut.message("no_such_package_x/Foo").error().code, TypeLoadError::PackageNotFound);
  EXPECT_EQ(sut.message("std_msgs/NoSuchType").error().code, TypeLoadError::FileNotFound);
}

TEST(Ros1TypeRegistry, time_duration_and_header_are_the_ros1_builtins) {
  TypeRegistry sut;
  sut.add_default_roots();
  auto header = sut.message("std_msgs/Header");
  if (!header) GTEST_FAIL() << "ros-std-msgs is not installed: " << header.error().detail;
  const auto& d = *(*header)->description;
  ASSERT_EQ(d.fields.size(), 3u);
  EXPECT_EQ(d.fields[0].name, "seq");
  EXPECT_EQ(d.fields[1].nested_type_name, "time");
  ASSERT_NE(d.fields[1].nested, nullptr);
  EXPECT_EQ(d.fields[1].nested->fields[0].type, ros2::BaseType::UInt32);
  EXPECT_EQ((*header)->md5sum, "2176decaecbce78abc3b96ef049fabed");
  auto empty = sut.message("std_msgs/Empty");
  ASSERT_TRUE(empty);
  EXPECT_TRUE((*empty)->description->fields.empty());
  EXPECT_EQ((*empty)->md5sum, "d41d8cd98f00b204e9800998ecf8427e");  // md5 of ""
  auto dur = sut.message("std_msgs/Duration");
  ASSERT_TRUE(dur);
  EXPECT_EQ((*dur)->description->fields[0].nested->fields[0].type, ros2::BaseType::Int32);
}

// Every message of the three packages: md5sum, message_definition and the serialized default
// instance equal genmsg's / genpy's.
TEST(Ros1TypeRegistry, every_std_geometry_sensor_message_matches_genmsg) {
  if (auto why = test::missing_ros1(); !why.empty()) GTEST_FAIL() << why;
  test::TempDir dir;
  ASSERT_TRUE(test::dump_genpy("types", dir, {std::begin(PACKAGES), std::end(PACKAGES)}));
  TypeRegistry sut;
  sut.add_default_roots();
  int checked = 0;
  for (const char* pkg : PACKAGES) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string("/usr/share/") + pkg + "/msg")) {
      const std::string name = entry.path().stem().string();
      const std::string type_name = std::string(pkg) + "/" + name;
      SCOPED_TRACE(type_name);
      auto t = sut.message(type_name);
      ASSERT_TRUE(t) << t.error().detail;
      test::expect_matches_genpy(**t, (dir.path() / (std::string(pkg) + "__" + name)).string());
      ++checked;
    }
  }
  std::printf("[ros1] %d message types: md5sum, definition and serialization equal genmsg's\n",
              checked);
  EXPECT_GE(checked, 88);  // 32 + 29 + 27 in Debian 12
}

// rosgraph_msgs/Log, what /rosout carries, has no .msg file in Debian: the registry's bundled
// definition must give what genpy's class has.
TEST(Ros1TypeRegistry, bundled_rosgraph_log_matches_genmsg) {
  if (auto why = test::missing_ros1(); !why.empty()) GTEST_FAIL() << why;
  test::TempDir dir;
  ASSERT_TRUE(test::dump_genpy("types", dir, {"rosgraph_msgs"}));
  TypeRegistry sut;
  sut.add_default_roots();
  auto t = sut.message("rosgraph_msgs/Log");
  ASSERT_TRUE(t) << t.error().detail;
  EXPECT_EQ((*t)->md5sum, "acffd30cd6b6de30f120938c17c593fb");
  test::expect_matches_genpy(**t, (dir.path() / "rosgraph_msgs__Log").string());
  // Only what is bundled: another type of the package is still looked for on disk (Debian has
  // /usr/share/rosgraph_msgs/cmake only).
  auto clock = sut.message("rosgraph_msgs/Clock");
  ASSERT_FALSE(clock);
  EXPECT_EQ(clock.error().code, TypeLoadError::FileNotFound) << clock.error().detail;
}

}  // namespace
}  // namespace baton::ros1
