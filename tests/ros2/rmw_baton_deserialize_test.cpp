// rmw_baton_cpp's CDR walker over rosidl introspection members, through rmw_deserialize /
// rmw_serialize with the wheels' real sensor_msgs/JointState C type support: a valid sample round
// trips byte for byte, and seeded corruptions of it (flipped bytes, huge lengths, truncation) give
// an error or a value, never a crash. A subscription decodes samples from shared memory the same
// way, so this is the hostile-publisher case.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/rmw.h>
#include <rosidl_runtime_c/message_type_support_struct.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "cdr_corruption.hpp"
#include "rmw_dlopen.hpp"
#include "ros2_test_env.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using test::Rmw;

class RmwBatonDeserialize : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    if (std::string_view(BATON_RMW_LIB).empty()) GTEST_SKIP() << "rmw_baton_cpp was not built";
    ASSERT_TRUE(rmw_.loaded()) << ::dlerror();
    lib_path_ = std::make_unique<test::WheelLibraryPath>();
    ASSERT_TRUE(joint_state_.loaded()) << ::dlerror();
    registry_.add_share_root(test::ros_venv() / "share");
    auto type = registry_.message("sensor_msgs/msg/JointState");
    ASSERT_TRUE(type.has_value()) << type.error().detail;
    type_ = *type;
    Value v = default_value(*type_);
    v.at(*type_, "header").at(*type_->fields[0].nested, "frame_id").str = "arm";
    for (const char* n : {"shoulder", "elbow", "wrist"})
      v.at(*type_, "name").items.push_back(Value::of_string(n));
    const double pos[] = {0.5, -1.25, 3.0};
    v.at(*type_, "position") = Value::of_array(std::span<const double>(pos));
    v.at(*type_, "effort") = Value::of_array(std::span<const double>(pos, 1));
    auto bytes = encode(*type_, v);
    ASSERT_TRUE(bytes.has_value()) << bytes.error().detail;
    valid_ = *bytes;
  }
  void TearDown() override { lib_path_.reset(); }
  // rmw_deserialize of `bytes` into a fresh JointState; the return code.
  rmw_ret_t deserialize(std::vector<uint8_t>& bytes, std::vector<uint8_t>* reserialized = nullptr) {
    RMW_FN(rmw_, rmw_deserialize);
    RMW_FN(rmw_, rmw_serialize);
    RMW_FN(rmw_, rcutils_reset_error);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    void* msg = joint_state_.create();
    rmw_serialized_message_t in{bytes.data(), bytes.size(), bytes.size(),
                                rcutils_get_default_allocator()};
    rmw_ret_t ret = rmw_deserialize(&in, joint_state_.type_support(), msg);
    if (ret == RMW_RET_OK && reserialized != nullptr) {
      std::vector<uint8_t> out(bytes.size() + 64);
      rmw_serialized_message_t o{out.data(), 0, out.size(), rcutils_get_default_allocator()};
      EXPECT_EQ(rmw_serialize(msg, joint_state_.type_support(), &o), RMW_RET_OK);
      out.resize(o.buffer_length);
      *reserialized = out;
    }
    rcutils_reset_error();
    joint_state_.destroy(msg);
    return ret;
  }

  Rmw rmw_;
  std::unique_ptr<test::WheelLibraryPath> lib_path_;
  test::WheelMessageType joint_state_{"sensor_msgs", "JointState"};
  TypeRegistry registry_;
  const MessageDescription* type_ = nullptr;
  std::vector<uint8_t> valid_;
};

TEST_F(RmwBatonDeserialize, empty_buffer_is_an_error) {
  std::vector<uint8_t> empty;
  EXPECT_EQ(deserialize(empty), RMW_RET_ERROR);
}

TEST_F(RmwBatonDeserialize, valid_sample_round_trips_byte_for_byte) {
  std::vector<uint8_t> back;
  ASSERT_EQ(deserialize(valid_, &back), RMW_RET_OK);
  EXPECT_EQ(back, valid_);
}

// Fast CDR may write "" as length 0 without a NUL; the shared reader takes that as ""
// (detail/cdr_stream.hpp), and so must the C walker (it used to refuse the empty view: "out of
// memory for a string"). An all-empty JointState: no array is aligned, so the sample can shrink.
TEST_F(RmwBatonDeserialize, zero_length_string_is_read_as_empty) {
  auto standard = encode(*type_, default_value(*type_));
  ASSERT_TRUE(standard.has_value()) << standard.error().detail;
  // [encapsulation 4][stamp 8][frame_id: 01 00 00 00, NUL, 3 pad][4 empty sequence counts]
  ASSERT_EQ(standard->size(), 36u);
  std::vector<uint8_t> zero(standard->begin(), standard->begin() + 12);
  zero.insert(zero.end(), {0, 0, 0, 0});
  zero.insert(zero.end(), standard->begin() + 20, standard->end());
  std::vector<uint8_t> back;
  ASSERT_EQ(deserialize(zero, &back), RMW_RET_OK);
  EXPECT_EQ(back, *standard);  // re-serialised in the usual form: length 1, NUL
}

TEST_F(RmwBatonDeserialize, random_corruption_never_crashes) {
  std::mt19937_64 rng(20251122);
  size_t accepted = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = valid_;
    test::corrupt_cdr(b, rng);
    (deserialize(b) == RMW_RET_OK ? accepted : refused)++;
  }
  // Both outcomes occur: the corruptions reach the checks, and harmless ones still decode.
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(accepted, 100u);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
