#include "baton/ros2/msg_parser.hpp"

#include <gtest/gtest.h>

#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

TEST(MsgParser, parse_when_field_name_missing_returns_syntax_with_line) {
  auto sut = parse_message("int32 a\nint32\n", "p", "msg", "M");
  ASSERT_FALSE(sut.has_value());
  EXPECT_EQ(sut.error().code, TypeLoadError::Syntax);
  EXPECT_NE(sut.error().detail.find("p/msg/M:2"), std::string::npos) << sut.error().detail;
}

TEST(MsgParser, parse_when_bad_array_bound_returns_syntax) {
  for (const char* text : {"int32[<=x] a", "int32[0] a", "int32[3 a", "string<=0 s", "int8<=3 a",
                           "int32 a\nint32 a", "int32 9a", "foo/ba-r x"}) {
    auto sut = parse_message(text, "p", "msg", "M");
    EXPECT_FALSE(sut.has_value()) << text;
  }
}

TEST(MsgParser, parse_all_field_kinds_gives_description) {
  auto sut = parse_message(
      "# comment\n"
      "int32 FOO=3 # comment\n"
      "string GREETING = hello # not a comment\n"
      "uint8 a 7   # default ignored\n"
      "float64[3] fixed\n"
      "int16[<=4] bounded\n"
      "string[] strings\n"
      "string<=10 short_s\n"
      "wstring<=5[<=2] wide\n"
      "geometry_msgs/Pose pose\n"
      "Other other\n"
      "Header header\n"
      "byte b\n"
      "char c\n",
      "pkg", "msg", "M");
  ASSERT_TRUE(sut.has_value()) << sut.error().detail;
  const auto& d = *sut;
  ASSERT_EQ(d.constants.size(), 2u);
  EXPECT_EQ(d.constants[0].name, "FOO");
  EXPECT_EQ(d.constants[0].value, "3");
  EXPECT_EQ(d.constants[1].value, "hello # not a comment");
  ASSERT_EQ(d.fields.size(), 11u);
  EXPECT_EQ(d.fields[0].type, BaseType::UInt8);
  EXPECT_EQ(d.fields[1].array, ArrayKind::Fixed);
  EXPECT_EQ(d.fields[1].array_size, 3u);
  EXPECT_EQ(d.fields[2].array, ArrayKind::Bounded);
  EXPECT_EQ(d.fields[2].array_size, 4u);
  EXPECT_EQ(d.fields[3].array, ArrayKind::Unbounded);
  EXPECT_EQ(d.fields[3].type, BaseType::String);
  EXPECT_EQ(d.fields[4].string_bound, 10u);
  EXPECT_EQ(d.fields[5].type, BaseType::WString);
  EXPECT_EQ(d.fields[5].string_bound, 5u);
  EXPECT_EQ(d.fields[5].array_size, 2u);
  EXPECT_EQ(d.fields[6].nested_type_name, "geometry_msgs/msg/Pose");
  EXPECT_EQ(d.fields[7].nested_type_name, "pkg/msg/Other");
  EXPECT_EQ(d.fields[8].nested_type_name, "std_msgs/msg/Header");
  EXPECT_EQ(d.fields[9].type, BaseType::Byte);
  EXPECT_EQ(d.fields[10].type, BaseType::Char);
  EXPECT_EQ(d.dds_type_name(), "pkg::msg::dds_::M_");
}

TEST(MsgParser, parse_empty_message_adds_placeholder_member) {
  auto sut = parse_message("# nothing\n", "p", "msg", "Empty");
  ASSERT_TRUE(sut.has_value());
  ASSERT_EQ(sut->fields.size(), 1u);
  EXPECT_EQ(sut->fields[0].name, "structure_needs_at_least_one_member");
}

TEST(MsgParser, parse_service_splits_request_and_response) {
  auto sut =
      parse_service("int64 a\nint64 b\n---\nint64 sum\n", "example_interfaces", "AddTwoInts");
  ASSERT_TRUE(sut.has_value());
  EXPECT_EQ(sut->first.full_name(), "example_interfaces/srv/AddTwoInts_Request");
  EXPECT_EQ(sut->first.fields.size(), 2u);
  EXPECT_EQ(sut->second.full_name(), "example_interfaces/srv/AddTwoInts_Response");
  EXPECT_EQ(sut->second.fields[0].name, "sum");
  EXPECT_FALSE(parse_service("int64 a\n", "p", "S").has_value());
}

TEST(TypeRegistry, message_when_package_unknown_returns_package_not_found) {
  TypeRegistry sut;
  auto r = sut.message("no_such_pkg/msg/X");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TypeLoadError::PackageNotFound);
  EXPECT_EQ(sut.message("bad").error().code, TypeLoadError::BadTypeName);
}

TEST(TypeRegistry, message_loads_wheel_types_with_nested) {
  BATON_REQUIRE_ROS_VENV();
  TypeRegistry sut;
  sut.add_share_root(test::ros_venv() / "share");
  auto img = sut.message("sensor_msgs/msg/Image");
  ASSERT_TRUE(img.has_value()) << img.error().detail;
  EXPECT_EQ((*img)->fields[0].name, "header");
  ASSERT_NE((*img)->fields[0].nested, nullptr);
  EXPECT_EQ((*img)->fields[0].nested->full_name(), "std_msgs/msg/Header");
  auto refs = TypeRegistry::referenced_types(**img);
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0]->full_name(), "builtin_interfaces/msg/Time");
  EXPECT_EQ(refs[1]->full_name(), "std_msgs/msg/Header");
  EXPECT_EQ(sut.message("std_msgs/msg/NoSuch").error().code, TypeLoadError::FileNotFound);
  // Every .msg of the shipped packages parses.
  int n = 0;
  for (const char* pkg : {"std_msgs", "builtin_interfaces", "sensor_msgs", "geometry_msgs",
                          "rcl_interfaces", "type_description_interfaces", "rmw_dds_common"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(test::ros_venv() / "share" / pkg / "msg")) {
      if (e.path().extension() != ".msg") continue;
      auto r = sut.message(std::string(pkg) + "/msg/" + e.path().stem().string());
      EXPECT_TRUE(r.has_value()) << e.path() << ": " << r.error().detail;
      ++n;
    }
  }
  EXPECT_GT(n, 100);
  auto svc = sut.service("rcl_interfaces/srv/GetParameters");
  ASSERT_TRUE(svc.has_value()) << svc.error().detail;
  EXPECT_EQ((*svc)->request->full_name(), "rcl_interfaces/srv/GetParameters_Request");
}

}  // namespace
}  // namespace baton::ros2
