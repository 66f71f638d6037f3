// ros1::TypeRegistry::service against what genmsg / genpy computed for Debian's python3-std-srvs
// and python3-sensor-msgs: every .srv of std_srvs and sensor_msgs, the service md5sum, both halves'
// md5sums and full definitions, and their default instances serialized byte for byte.
#include <gtest/gtest.h>

#include "baton/ros1/type_registry.hpp"
#include "genpy_dump.hpp"
#include "ros1_test_env.hpp"

namespace baton::ros1 {
namespace {

const char* PACKAGES[] = {"std_srvs", "sensor_msgs"};

TEST(Ros1ServiceType, srv_text_is_cut_as_genmsg_cuts_it) {
  auto t = split_service_text("int64 a # first\nint64 b\n---\nint64 sum\n");
  EXPECT_EQ(t.request, "int64 a # first\nint64 b\n");
  EXPECT_EQ(t.response, "int64 sum\n\n");  // the empty last line counts, as in str.split
  t = split_service_text("---");
  EXPECT_EQ(t.request, "");
  EXPECT_EQ(t.response, "");
  t = split_service_text("bool x\n---- lenient\nbool y\n---\nbool z");
  EXPECT_EQ(t.request, "bool x\n");
  EXPECT_EQ(t.response, "bool y\nbool z\n");
  t = split_service_text("bool only_a_request");
  EXPECT_EQ(t.request, "bool only_a_request\n");
  EXPECT_EQ(t.response, "");
}

TEST(Ros1ServiceType, bad_names_and_missing_files_are_errors) {
  TypeRegistry sut;
  sut.add_default_roots();
  EXPECT_EQ(sut.service("NoSlash").error().code, TypeLoadError::BadTypeName);
  EXPECT_EQ(sut.service("no_such_package_x/Foo").error().code, TypeLoadError::PackageNotFound);
  auto missing = sut.service("sensor_msgs/NoSuchService");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, TypeLoadError::FileNotFound);
  EXPECT_NE(missing.error().detail.find("srv/NoSuchService.srv"), std::string::npos);
}

TEST(Ros1ServiceType, every_std_srvs_and_sensor_msgs_service_matches_genmsg) {
  if (auto why = test::missing_ros1(); !why.empty()) GTEST_FAIL() << why;
  if (::access("/usr/share/std_srvs/srv", R_OK) != 0)
    GTEST_FAIL() << "ros-std-srvs / python3-std-srvs are not installed (scripts/install-ros1.sh)";
  test::TempDir dir;
  ASSERT_TRUE(test::dump_genpy("srv-types", dir, {std::begin(PACKAGES), std::end(PACKAGES)}));
  TypeRegistry sut;
  sut.add_default_roots();
  int checked = 0;
  for (const char* pkg : PACKAGES) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string("/usr/share/") + pkg + "/srv")) {
      const std::string name = entry.path().stem().string();
      SCOPED_TRACE(std::string(pkg) + "/" + name);
      auto s = sut.service(std::string(pkg) + "/srv/" + name);
      ASSERT_TRUE(s) << s.error().detail;
      const std::string stem = (dir.path() / (std::string(pkg) + "__" + name)).string();
      EXPECT_EQ((*s)->name, std::string(pkg) + "/" + name);
      EXPECT_EQ((*s)->md5sum, test::slurp(stem + ".md5"));
      {
        SCOPED_TRACE("request");
        test::expect_matches_genpy(*(*s)->request, stem + ".req");
      }
      {
        SCOPED_TRACE("response");
        test::expect_matches_genpy(*(*s)->response, stem + ".res");
      }
      // Loaded once: the same object again, and its halves are messages of the registry.
      EXPECT_EQ(*sut.service(std::string(pkg) + "/" + name), *s);
      EXPECT_EQ(*sut.message(std::string(pkg) + "/" + name + "Request"), (*s)->request);
      ++checked;
    }
  }
  std::printf("[ros1] %d service types: md5sums, definitions and serialization equal genmsg's\n",
              checked);
  EXPECT_GE(checked, 4);  // std_srvs: Empty, SetBool, Trigger; sensor_msgs: SetCameraInfo
}

}  // namespace
}  // namespace baton::ros1
