// Byte identity with real rclpy: tests/ros2/rclpy_samples.py serializes samples with
// rclpy.serialization (rmw_fastrtps_cpp); baton builds the same values, encodes them and compares,
// decodes rclpy's bytes and re-encodes them, and hands its own bytes back to rclpy to decode.
//
// "Identical" means every byte of the value is equal; alignment bytes are skipped (Fast CDR leaves
// them uninitialised) and so are the bytes rclpy returns after the value (serialize_message
// returns Fast CDR's *estimated* size, rounded to 4).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

template <typename T>
Value doubles(std::initializer_list<T> v) {
  return Value::of_array(std::span<const T>(v.begin(), v.size()));
}

Value build_string(const MessageDescription& d) {
  Value v = default_value(d);
  v.at(d, "data").str = "hello baton \xe2\x9c\x93";
  return v;
}
Value build_time(const MessageDescription& d) {
  Value v = default_value(d);
  v.at(d, "sec") = Value::of<int32_t>(-3);
  v.at(d, "nanosec") = Value::of<uint32_t>(999999999);
  return v;
}
Value build_empty(const MessageDescription& d) { return default_value(d); }
Value build_uint8_multi_array(const MessageDescription& d) {
  const auto& layout_t = *d.fields[0].nested;
  const auto& dim_t = *layout_t.fields[0].nested;
  Value v = default_value(d);
  Value& layout = v.at(d, "layout");
  for (auto [label, size, stride] : {std::tuple{"rows", 3u, 12u}, std::tuple{"cols", 4u, 4u}}) {
    Value dim = default_value(dim_t);
    dim.at(dim_t, "label").str = label;
    dim.at(dim_t, "size") = Value::of<uint32_t>(size);
    dim.at(dim_t, "stride") = Value::of<uint32_t>(stride);
    layout.at(layout_t, "dim").items.push_back(dim);
  }
  layout.at(layout_t, "data_offset") = Value::of<uint32_t>(5);
  for (uint8_t i = 0; i < 12; ++i) v.at(d, "data").raw.push_back(i);
  return v;
}
Value build_pose_stamped(const MessageDescription& d) {
  const auto& header_t = *d.fields[0].nested;
  const auto& pose_t = *d.fields[1].nested;
  const auto& point_t = *pose_t.fields[0].nested;
  const auto& quat_t = *pose_t.fields[1].nested;
  Value v = default_value(d);
  Value& header = v.at(d, "header");
  header.items[0].items[0] = Value::of<int32_t>(5);
  header.items[0].items[1] = Value::of<uint32_t>(6);
  header.at(header_t, "frame_id").str = "map";
  Value& pos = v.at(d, "pose").at(pose_t, "position");
  pos.at(point_t, "x") = Value::of(1.5);
  pos.at(point_t, "y") = Value::of(-2.25);
  pos.at(point_t, "z") = Value::of(3.0);
  Value& q = v.at(d, "pose").at(pose_t, "orientation");
  q.at(quat_t, "z") = Value::of(0.7071067811865476);
  q.at(quat_t, "w") = Value::of(0.7071067811865476);
  return v;
}
Value build_joint_state(const MessageDescription& d) {
  Value v = default_value(d);
  v.at(d, "header").items[1].str = "base_link_";
  for (const char* n : {"a", "bb", "ccc"}) v.at(d, "name").items.push_back(Value::of_string(n));
  v.at(d, "position") = doubles({1.0, 2.0, 3.0});
  v.at(d, "effort") = doubles({0.5});
  return v;
}
Value build_image_4k(const MessageDescription& d) {
  Value v = default_value(d);
  Value& header = v.at(d, "header");
  header.items[0].items[0] = Value::of<int32_t>(1700000000);
  header.items[0].items[1] = Value::of<uint32_t>(123456789);
  header.items[1].str = "camera";
  v.at(d, "height") = Value::of<uint32_t>(2160);
  v.at(d, "width") = Value::of<uint32_t>(3840);
  v.at(d, "encoding").str = "rgb8";
  v.at(d, "step") = Value::of<uint32_t>(3840 * 3);
  auto& data = v.at(d, "data").raw;
  data.resize(size_t{2160} * 3840 * 3);
  for (uint64_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i * 7) % 251);
  return v;
}

struct Sample {
  const char* name;
  const char* type;
  Value (*build)(const MessageDescription&);
};

constexpr Sample SAMPLES[] = {
    {"string", "std_msgs/msg/String", build_string},
    {"time", "builtin_interfaces/msg/Time", build_time},
    {"empty", "std_msgs/msg/Empty", build_empty},
    {"uint8_multi_array", "std_msgs/msg/UInt8MultiArray", build_uint8_multi_array},
    {"pose_stamped", "geometry_msgs/msg/PoseStamped", build_pose_stamped},
    {"joint_state", "sensor_msgs/msg/JointState", build_joint_state},
    {"image_4k", "sensor_msgs/msg/Image", build_image_4k},
};

// rclpy's samples, generated once per user and script version (ctest runs every test in its own
// process; the Python start-up costs ~2 s). Written to a private directory, then renamed.
std::filesystem::path rclpy_samples_dir() {
  const auto script = std::filesystem::path(BATON_SOURCE_DIR) / "tests/ros2/rclpy_samples.py";
  const auto stamp =
      std::to_string(std::filesystem::file_size(script)) + "-" +
      std::to_string(std::filesystem::last_write_time(script).time_since_epoch().count());
  const auto dir = std::filesystem::temp_directory_path() /
                   ("baton-rclpy-samples-" + std::to_string(::getuid()) + "-" + stamp);
  if (std::filesystem::exists(dir / "image_4k.cdr")) return dir;
  auto tmp = dir;
  tmp += "." + std::to_string(::getpid());
  std::filesystem::create_directories(tmp);
  const std::string cmd = (test::ros_venv() / "bin" / "python").string() + " " + script.string() +
                          " write " + tmp.string();
  if (std::system(cmd.c_str()) != 0) return {};
  std::error_code ec;
  std::filesystem::rename(tmp, dir, ec);  // loses the race harmlessly if another process won
  if (ec) std::filesystem::remove_all(tmp);
  return dir;
}

class CdrRclpy : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    ref_dir_ = rclpy_samples_dir();
    ASSERT_FALSE(ref_dir_.empty()) << "tests/ros2/rclpy_samples.py write failed";
    out_dir_ =
        std::filesystem::temp_directory_path() / ("baton-ros2-cdr-" + std::to_string(::getpid()));
    std::filesystem::create_directories(out_dir_);
    registry_.add_share_root(test::ros_venv() / "share");
  }
  void TearDown() override { std::filesystem::remove_all(out_dir_); }

  const MessageDescription& type(const char* name) {
    auto r = registry_.message(name);
    if (!r) ADD_FAILURE() << r.error().detail;
    return **r;
  }

  static const Sample& sample(std::string_view name) {
    for (const auto& s : SAMPLES)
      if (s.name == name) return s;
    std::abort();
  }

  // Encode baton's value, compare with rclpy's sample; decode rclpy's and re-encode; save
  // baton's bytes as <name>.baton.cdr for the Python side.
  void check_identity(const Sample& s) {
    SCOPED_TRACE(s.name);
    const auto& d = type(s.type);
    const Value ours = s.build(d);
    std::vector<uint8_t> mask;
    auto enc = encode(d, ours, &mask);
    ASSERT_TRUE(enc.has_value()) << enc.error().detail;
    const auto ref = read_file(ref_dir_ / (std::string(s.name) + ".cdr"));
    ASSERT_GE(ref.size(), enc->size());
    EXPECT_LT(ref.size() - enc->size(), 16u) << "rclpy's sample is much longer than the value";
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < enc->size(); ++i) {
      if (mask[i] == 0 && (*enc)[i] != ref[i] && differing++ == 0) first = i;
    }
    EXPECT_EQ(differing, 0u) << "first difference at byte " << first << " of " << enc->size();
    auto dec = decode(d, ref);
    ASSERT_TRUE(dec.has_value()) << dec.error().detail;
    EXPECT_TRUE(*dec == ours) << "decoded rclpy sample differs from baton's value";
    auto again = encode(d, *dec);
    ASSERT_TRUE(again.has_value()) << again.error().detail;
    EXPECT_EQ(*again, *enc);
    write_file(out_dir_ / (std::string(s.name) + ".baton.cdr"), *enc);
  }

  std::filesystem::path ref_dir_, out_dir_;
  TypeRegistry registry_;
};

TEST_F(CdrRclpy, decode_rclpy_sample_with_wrong_type_fails_cleanly) {
  // Bad-parameter case first: a Time sample read as an Image must be refused, not crash.
  auto r = decode(type("sensor_msgs/msg/Image"), read_file(ref_dir_ / "time.cdr"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::Truncated) << r.error().detail;
}

TEST_F(CdrRclpy, string_is_byte_identical) { check_identity(sample("string")); }
TEST_F(CdrRclpy, time_is_byte_identical) { check_identity(sample("time")); }
TEST_F(CdrRclpy, empty_is_byte_identical) { check_identity(sample("empty")); }
TEST_F(CdrRclpy, uint8_multi_array_is_byte_identical) {
  check_identity(sample("uint8_multi_array"));
}
TEST_F(CdrRclpy, pose_stamped_is_byte_identical) { check_identity(sample("pose_stamped")); }
TEST_F(CdrRclpy, joint_state_is_byte_identical) { check_identity(sample("joint_state")); }
TEST_F(CdrRclpy, image_4k_is_byte_identical) { check_identity(sample("image_4k")); }

// rclpy decodes every sample baton encodes to the message rclpy_samples.py builds.
TEST_F(CdrRclpy, rclpy_decodes_baton_bytes_to_the_same_messages) {
  for (const auto& s : SAMPLES) {
    auto enc = encode(type(s.type), s.build(type(s.type)));
    ASSERT_TRUE(enc.has_value()) << s.name << ": " << enc.error().detail;
    write_file(out_dir_ / (std::string(s.name) + ".baton.cdr"), *enc);
  }
  const std::string cmd = (test::ros_venv() / "bin" / "python").string() + " " +
                          std::string(BATON_SOURCE_DIR) + "/tests/ros2/rclpy_samples.py check " +
                          out_dir_.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

}  // namespace
}  // namespace baton::ros2
