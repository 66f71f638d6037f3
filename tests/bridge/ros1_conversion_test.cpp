// CdrToRos1 against real types: every message of std_msgs, geometry_msgs and sensor_msgs that
// both the ROS 2 wheels and Debian's ROS 1 packages have pairs, and random values converted from
// CDR equal the oracle (conversion_samples.hpp) serialized by baton's ROS 1 serializer, byte for
// byte; types that do not pair are refused naming the field; corrupt CDR is a clear error.
#include "baton/bridge/ros1_conversion.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <map>

#include "baton/ros1/serialization.hpp"
#include "baton/ros2/cdr.hpp"
#include "child_process.hpp"
#include "conversion_samples.hpp"
#include "ros2/cdr_corruption.hpp"

namespace baton::bridge {
namespace {

class Ros1Conversion : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    if (!std::filesystem::exists("/usr/share/std_msgs/msg/Header.msg"))
      GTEST_FAIL() << "Debian's ROS 1 messages are missing: scripts/install-ros1.sh";
    ros2_.add_share_root(ros2::test::ros_venv() / "share");
    ros1_.add_default_roots();
  }
  Result<CdrToRos1, Error<ConversionError>> pair(const std::string& ros2_name) {
    auto a = ros2_.message(ros2_name);
    EXPECT_TRUE(a) << ros2_name << ": " << a.error().detail;
    auto b = ros1_.message(ros1_type_name(ros2_name));
    EXPECT_TRUE(b) << ros2_name << ": " << b.error().detail;
    return CdrToRos1::create(**a, **b);
  }
  const CdrToRos1& conversion(const std::string& ros2_name) {
    auto c = pair(ros2_name);
    EXPECT_TRUE(c) << ros2_name << ": " << c.error().detail;
    return kept_.emplace_back(std::move(*c));
  }
  // The common types that pair (the others are refused: see the test of refusals).
  std::vector<std::string> paired() {
    std::vector<std::string> out;
    for (const auto& name : test::paired_type_names())
      if (pair(name)) out.push_back(name);
    return out;
  }
  ros2::TypeRegistry ros2_;
  ros1::TypeRegistry ros1_;
  std::deque<CdrToRos1> kept_;
};

TEST_F(Ros1Conversion, ros1_type_names_drop_the_interface_folder) {
  EXPECT_EQ(ros1_type_name("sensor_msgs/msg/Image"), "sensor_msgs/Image");
  EXPECT_EQ(ros1_type_name("std_msgs/String"), "std_msgs/String");
}

// The common types whose fields differ between the generations are refused at create(), each with
// the field that differs. Every other common type pairs.
TEST_F(Ros1Conversion, common_types_that_differ_are_refused_naming_the_field) {
  std::map<std::string, std::string> refused;
  for (const auto& name : test::paired_type_names())
    if (auto c = pair(name); !c) refused[name] = c.error().detail;
  const std::map<std::string, std::string> expected = {
      {"sensor_msgs/msg/Range",
       "sensor_msgs/msg/Range.variance: the ROS 2 field (float32) has no ROS 1 counterpart in "
       "sensor_msgs/Range"},
  };
  EXPECT_EQ(refused, expected);
}

TEST_F(Ros1Conversion,
       every_common_type_converts_random_values_as_the_ros1_serializer_writes_them) {
  const auto names = paired();
  ASSERT_GE(names.size(), 80u) << "the common packages are not all there";
  std::mt19937_64 rng(19004);
  size_t samples = 0;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const auto& c = conversion(name);
    if (HasFailure()) return;
    for (int i = 0; i < 20; ++i) {
      const auto value = test::random_value(c.ros2_type(), rng);
      auto cdr = ros2::encode(c.ros2_type(), value);
      ASSERT_TRUE(cdr) << cdr.error().detail;
      const uint32_t seq = static_cast<uint32_t>(rng());
      auto got = c.convert(*cdr, seq);
      ASSERT_TRUE(got) << got.error().detail;
      auto want = ros1::serialize(
          *c.ros1_type().description,
          test::to_ros1_value(c.ros2_type(), *c.ros1_type().description, value, seq));
      ASSERT_TRUE(want) << want.error().detail;
      ASSERT_EQ(*got, *want) << "sample " << i;
      // The pairing applied to the decoded Value gives the same message.
      auto mapped = c.ros1_value(value, seq);
      ASSERT_TRUE(mapped) << mapped.error().detail;
      ASSERT_EQ(*ros1::serialize(*c.ros1_type().description, *mapped), *want) << "sample " << i;
      // And back: the ROS 1 message read by baton's ROS 1 decoder is the ROS 2 value again
      // (std_msgs/Empty aside: its ROS 2 placeholder byte comes back as 0).
      auto back = c.ros2_value(*ros1::deserialize(*c.ros1_type().description, *got));
      ASSERT_TRUE(back) << back.error().detail;
      if (name != "std_msgs/msg/Empty") {
        ASSERT_EQ(*back, value) << "sample " << i;
      }
      ++samples;
    }
  }
  EXPECT_EQ(samples, names.size() * 20);
}

// genpy itself: 3 random samples of every paired type, converted from CDR, are read by genpy's
// generated class and written back byte for byte (genpy_reserialize.py under /usr/bin/python3).
TEST_F(Ros1Conversion, converted_samples_are_what_genpy_serializes_for_the_same_message) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("baton-bridge-genpy-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  struct Removed {
    std::filesystem::path p;
    ~Removed() { std::filesystem::remove_all(p); }
  } removed{dir};
  std::mt19937_64 rng(4);
  size_t files = 0;
  for (const auto& name : paired()) {
    const auto& c = conversion(name);
    const auto& t = c.ros2_type();
    for (int i = 0; i < 3; ++i) {
      auto cdr = ros2::encode(t, test::random_value(t, rng));
      ASSERT_TRUE(cdr);
      auto got = c.convert(*cdr, static_cast<uint32_t>(i));
      ASSERT_TRUE(got) << got.error().detail;
      std::ofstream(dir / (t.package + "__" + t.name + "__" + std::to_string(i) + ".bin"),
                    std::ios::binary)
          .write(reinterpret_cast<const char*>(got->data()),
                 static_cast<std::streamsize>(got->size()));
      ++files;
    }
  }
  baton::test::ChildProcess genpy(
      {"/usr/bin/python3", std::string(BATON_SOURCE_DIR) + "/tests/bridge/genpy_reserialize.py",
       dir.string()},
      {});
  int code = -1;
  ASSERT_TRUE(genpy.wait_exit(std::chrono::seconds(120), &code)) << genpy.output();
  EXPECT_EQ(code, 0) << genpy.output();
  const std::string out = genpy.output();
  EXPECT_NE(out.find("checked " + std::to_string(files) + "\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("DIFFERENT"), std::string::npos) << out;
}

TEST_F(Ros1Conversion, the_top_level_header_gets_the_seq_and_time_keeps_its_words) {
  const auto& c = conversion("std_msgs/msg/Header");
  ros2::Value stamp;
  stamp.items = {ros2::Value::of<int32_t>(-2), ros2::Value::of<uint32_t>(999999999u)};
  ros2::Value header;
  header.items = {stamp, ros2::Value::of_string("cam")};
  auto cdr = ros2::encode(c.ros2_type(), header);
  ASSERT_TRUE(cdr);
  auto got = c.convert(*cdr, 7);
  ASSERT_TRUE(got) << got.error().detail;
  // A Header at the top is not "the message's header": seq 0. Nested in PointStamped it is 7.
  const std::vector<uint8_t> want = {0,    0,    0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xc9,
                                     0x9a, 0x3b, 3, 0, 0,    0,    'c',  'a',  'm'};
  EXPECT_EQ(*got, want);
  const auto& p = conversion("geometry_msgs/msg/PointStamped");
  ros2::Value point;
  point.items = {ros2::Value::of<double>(1), ros2::Value::of<double>(2),
                 ros2::Value::of<double>(3)};
  ros2::Value stamped;
  stamped.items = {header, point};
  auto pcdr = ros2::encode(p.ros2_type(), stamped);
  ASSERT_TRUE(pcdr);
  auto pgot = p.convert(*pcdr, 7);
  ASSERT_TRUE(pgot);
  ASSERT_EQ(pgot->size(), want.size() + 24);
  EXPECT_EQ((*pgot)[0], 7);
}

TEST_F(Ros1Conversion, an_image_is_converted_with_its_data_where_cdr_had_it) {
  const auto& c = conversion("sensor_msgs/msg/Image");
  const auto* d = &c.ros2_type();
  auto v = ros2::default_value(*d);
  std::vector<uint8_t> pixels(640 * 480 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7 + 13);
  v.at(*d, "height") = ros2::Value::of<uint32_t>(480);
  v.at(*d, "width") = ros2::Value::of<uint32_t>(640);
  v.at(*d, "encoding") = ros2::Value::of_string("rgb8");
  v.at(*d, "step") = ros2::Value::of<uint32_t>(640 * 3);
  v.at(*d, "data").view = pixels;
  auto cdr = ros2::encode(*d, v);
  ASSERT_TRUE(cdr);
  auto got = c.convert(*cdr, 1);
  ASSERT_TRUE(got) << got.error().detail;
  auto back = ros1::deserialize(*c.ros1_type().description, *got);
  ASSERT_TRUE(back) << back.error().detail;
  const auto& b = *c.ros1_type().description;
  EXPECT_EQ(back->at(b, "height").as<uint32_t>(), 480u);
  EXPECT_EQ(back->at(b, "encoding").str, "rgb8");
  EXPECT_EQ(back->at(b, "header").items[0].as<uint32_t>(), 1u);  // seq
  const auto data = back->at(b, "data").bytes();
  EXPECT_TRUE(std::equal(data.begin(), data.end(), pixels.begin(), pixels.end()));
}

// A ROS 2 / ROS 1 package pair written here: types that cannot pair are refused at create(),
// the error naming the field and why.
TEST_F(Ros1Conversion, types_that_do_not_pair_are_refused_naming_the_field) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("baton-bridge-types-" + std::to_string(::getpid()));
  struct Removed {
    std::filesystem::path p;
    ~Removed() { std::filesystem::remove_all(p); }
  } removed{dir};
  auto write = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  };
  write("two/fz/msg/Extra.msg", "int32 a\nint32 b\n");
  write("one/fz/msg/Extra.msg", "int32 a\n");
  write("two/fz/msg/Missing.msg", "int32 a\n");
  write("one/fz/msg/Missing.msg", "int32 a\nstring note\n");
  write("two/fz/msg/Renamed.msg", "int32 a\nfloat64 speed\n");
  write("one/fz/msg/Renamed.msg", "int32 a\nfloat64 velocity\n");
  write("two/fz/msg/Retyped.msg", "uint32 a\n");
  write("one/fz/msg/Retyped.msg", "int32 a\n");
  write("two/fz/msg/Resized.msg", "float64[9] k\n");
  write("one/fz/msg/Resized.msg", "float64[] k\n");
  write("two/fz/msg/Wide.msg", "wstring w\n");
  write("one/fz/msg/Wide.msg", "string w\n");
  write("two/fz/msg/Outer.msg", "Retyped inner\n");
  write("one/fz/msg/Outer.msg", "Retyped inner\n");
  write("two/fz/msg/Bytes.msg", "byte b\nchar c\nuint8[2] u\n");
  write("one/fz/msg/Bytes.msg", "int8 b\nuint8 c\nbyte[2] u\n");
  ros2::TypeRegistry two;
  two.add_share_root(dir / "two");
  ros1::TypeRegistry one;
  one.add_share_root(dir / "one");
  auto refused = [&](const std::string& name) {
    auto a = two.message("fz/msg/" + name);
    auto b = one.message("fz/" + name);
    EXPECT_TRUE(a && b) << name;
    auto c = CdrToRos1::create(**a, **b);
    EXPECT_FALSE(c) << name << " paired";
    return c ? std::string() : c.error().detail;
  };
  EXPECT_EQ(refused("Extra"),
            "fz/msg/Extra.b: the ROS 2 field (int32) has no ROS 1 counterpart in fz/Extra");
  EXPECT_EQ(refused("Missing"),
            "fz/msg/Missing.note: the ROS 1 field (string) has no ROS 2 counterpart in "
            "fz/msg/Missing");
  EXPECT_EQ(refused("Renamed"),
            "fz/msg/Renamed.speed: ROS 2 field 'speed' stands where ROS 1 fz/Renamed has "
            "'velocity' (fields pair by name, in order)");
  EXPECT_EQ(refused("Retyped"),
            "fz/msg/Retyped.a: ROS 2 uint32 vs ROS 1 int32 (different primitive types)");
  EXPECT_EQ(refused("Resized"),
            "fz/msg/Resized.k: ROS 2 float64[9] vs ROS 1 float64[] (array shapes differ)");
  EXPECT_EQ(refused("Wide"),
            "fz/msg/Wide.w: ROS 2 wstring vs ROS 1 string (no conversion between these types)");
  EXPECT_EQ(refused("Outer"),
            "fz/msg/Outer.inner.a: ROS 2 uint32 vs ROS 1 int32 (different primitive types)");
  // 1-byte integers pair whatever their spelling: the bytes are the same.
  auto a = two.message("fz/msg/Bytes");
  auto b = one.message("fz/Bytes");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(CdrToRos1::create(**a, **b));
}

TEST_F(Ros1Conversion, cdr_that_lies_is_a_clear_error_naming_the_field) {
  const auto& c = conversion("sensor_msgs/msg/Image");
  auto v = ros2::default_value(c.ros2_type());
  v.at(c.ros2_type(), "data").raw.assign(64, 1);
  auto cdr = ros2::encode(c.ros2_type(), v);
  ASSERT_TRUE(cdr);
  auto cut = *cdr;
  cut.resize(cut.size() - 10);
  auto e = c.convert(cut);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ros2::CdrError::Truncated);
  EXPECT_NE(e.error().detail.find("sensor_msgs/msg/Image.data"), std::string::npos)
      << e.error().detail;
  auto bad = *cdr;
  bad[1] = 0;  // big-endian encapsulation
  EXPECT_EQ(c.convert(bad).error().code, ros2::CdrError::BadEncapsulation);
  // The room given is checked too: one byte short is refused, not overrun.
  auto size = c.converted_size(*cdr);
  ASSERT_TRUE(size);
  std::vector<uint8_t> out(*size - 1);
  auto short_room = c.convert_into(*cdr, out);
  ASSERT_FALSE(short_room);
  EXPECT_EQ(short_room.error().code, ros2::CdrError::OversizeMessage);
}

// BATON_FUZZ_CASES (default 100 000) corruptions of valid samples of every common type: each
// converts or is refused with an error; what converts has the size converted_size promised and
// deserializes as the ROS 1 type. Run under ASan + UBSan by scripts/sanitize.sh.
TEST_F(Ros1Conversion, corrupt_cdr_never_crashes_the_converter) {
  const auto names = paired();
  ASSERT_FALSE(names.empty());
  std::vector<const CdrToRos1*> all;
  for (const auto& n : names) all.push_back(&conversion(n));
  if (HasFailure()) return;
  const char* env = std::getenv("BATON_FUZZ_CASES");
  const long cases = env != nullptr ? std::atol(env) : 100000;
  std::mt19937_64 rng(20261126);
  long converted = 0, refused = 0;
  for (long i = 0; i < cases; ++i) {
    const auto& c = *all[rng() % all.size()];
    auto cdr = ros2::encode(c.ros2_type(), test::random_value(c.ros2_type(), rng));
    ASSERT_TRUE(cdr);
    if (cdr->size() < 12) cdr->resize(12, 0);  // corrupt_cdr needs 12 (trailing bytes are ignored)
    ros2::test::corrupt_cdr(*cdr, rng);
    auto size = c.converted_size(*cdr);
    auto got = c.convert(*cdr);
    ASSERT_EQ(size.has_value(), got.has_value()) << c.ros2_type().full_name();
    if (!got) {
      ASSERT_FALSE(got.error().detail.empty());
      ++refused;
      continue;
    }
    ++converted;
    ASSERT_EQ(got->size(), *size);
    ASSERT_TRUE(ros1::deserialize(*c.ros1_type().description, *got))
        << c.ros2_type().full_name() << " converted to bytes its ROS 1 type does not read";
  }
  EXPECT_EQ(converted + refused, cases);
  EXPECT_GT(refused, 0);
  EXPECT_GT(converted, 0);
}

}  // namespace
}  // namespace baton::bridge
