// ROS 1 serialization and TCPROS connection headers: known bytes, round trips, and bad input
// (truncated, oversized, malformed) refused with errors that say what was wrong.
#include <gtest/gtest.h>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/serialization.hpp"
#include "baton/ros1/type_registry.hpp"

namespace baton::ros1 {
namespace {

using ros2::Value;

std::span<const uint8_t> as_bytes(const std::vector<uint8_t>& v) { return v; }

class Ros1WireFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    types_.add_default_roots();
    auto s = types_.message("std_msgs/String");
    if (!s) GTEST_FAIL() << "ros-std-msgs is not installed: " << s.error().detail;
  }
  const MessageType& type(const char* name) { return **types_.message(name); }
  TypeRegistry types_;
};

TEST_F(Ros1WireFormat, serialize_with_a_wrong_shape_returns_type_mismatch_naming_the_field) {
  const auto& header = type("std_msgs/Header");
  Value v;
  v.items = {Value::of<uint32_t>(1), Value{}, Value::of_string("x")};  // stamp has no fields
  auto r = serialize(*header.description, v);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, SerializationError::TypeMismatch);
  EXPECT_NE(r.error().detail.find("stamp"), std::string::npos) << r.error().detail;
  // A number where a string belongs is refused, not written as an empty string.
  Value number;
  number.items = {Value::of<int32_t>(7)};
  auto n = serialize(*type("std_msgs/String").description, number);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, SerializationError::TypeMismatch);
  EXPECT_NE(n.error().detail.find("data"), std::string::npos) << n.error().detail;
  std::vector<uint8_t> small(3);
  Value s;
  s.items = {Value::of_string("hello")};
  EXPECT_EQ(serialize_into(*type("std_msgs/String").description, s, small).error().code,
            SerializationError::BufferTooSmall);
}

TEST_F(Ros1WireFormat, header_serializes_little_endian_without_alignment) {
  const auto& header = type("std_msgs/Header");
  Value stamp;
  stamp.items = {Value::of<uint32_t>(0x01020304), Value::of<uint32_t>(5)};
  Value v;
  v.items = {Value::of<uint32_t>(7), stamp, Value::of_string("ab")};
  auto bytes = serialize(*header.description, v);
  ASSERT_TRUE(bytes);
  const std::vector<uint8_t> expected = {7, 0, 0, 0, 4, 3, 2, 1, 5, 0, 0, 0, 2, 0, 0, 0, 'a', 'b'};
  EXPECT_EQ(*bytes, expected);
  auto back = deserialize(*header.description, *bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, v);
}

TEST_F(Ros1WireFormat, deserialize_view_points_into_the_input_for_primitive_arrays) {
  const auto& image = type("sensor_msgs/Image");
  Value v = ros2::default_value(*image.description);
  // default_value gives the nested builtins no fields: fill the header's stamp.
  v.at(*image.description, "header").items[1].items = {Value::of<uint32_t>(0),
                                                       Value::of<uint32_t>(0)};
  std::vector<uint8_t> pixels(300, 9);
  v.at(*image.description, "data").raw = pixels;
  auto bytes = serialize(*image.description, v);
  ASSERT_TRUE(bytes) << bytes.error().detail;
  auto view = deserialize(*image.description, *bytes, DecodeMode::View);
  ASSERT_TRUE(view);
  const auto& data = view->at(*image.description, "data");
  ASSERT_TRUE(data.is_view());
  EXPECT_GE(data.view.data(), bytes->data());
  EXPECT_EQ(data.view.data() + data.view.size(), bytes->data() + bytes->size());
}

TEST_F(Ros1WireFormat, deserialize_truncated_or_lying_input_returns_errors) {
  const auto& s = type("std_msgs/String");
  const std::vector<uint8_t> ok = {3, 0, 0, 0, 'a', 'b', 'c'};
  ASSERT_TRUE(deserialize(*s.description, ok));
  for (size_t n = 0; n < ok.size(); ++n) {
    auto r = deserialize(*s.description, as_bytes(ok).first(n));
    ASSERT_FALSE(r) << n;
  }
  const std::vector<uint8_t> huge = {0xff, 0xff, 0xff, 0xff, 'a'};
  EXPECT_EQ(deserialize(*s.description, huge).error().code, SerializationError::OversizeLength);
  const std::vector<uint8_t> trailing = {1, 0, 0, 0, 'a', 'z'};
  EXPECT_EQ(deserialize(*s.description, trailing).error().code, SerializationError::TrailingBytes);
  // An array of 2^32-1 empty messages is not believed: a count never exceeds the bytes left.
  const auto& arr = type("std_msgs/MultiArrayLayout");
  const std::vector<uint8_t> many = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
  EXPECT_EQ(deserialize(*arr.description, many).error().code, SerializationError::OversizeLength);
}

TEST(Ros1ConnectionHeader, decode_of_malformed_headers_returns_errors) {
  EXPECT_EQ(check_header_length(MAX_HEADER_BYTES + 1).error().code, HeaderError::TooLarge);
  const std::vector<uint8_t> short_len = {1, 0};
  EXPECT_EQ(decode_connection_header(short_len).error().code, HeaderError::Truncated);
  const std::vector<uint8_t> past_end = {9, 0, 0, 0, 'a', '=', 'b'};
  EXPECT_EQ(decode_connection_header(past_end).error().code, HeaderError::Truncated);
  const std::vector<uint8_t> no_eq = {3, 0, 0, 0, 'a', 'b', 'c'};
  EXPECT_EQ(decode_connection_header(no_eq).error().code, HeaderError::MalformedField);
  const std::vector<uint8_t> empty_key = {2, 0, 0, 0, '=', 'x'};
  EXPECT_EQ(decode_connection_header(empty_key).error().code, HeaderError::MalformedField);
  auto missing = require_field({{"callerid", "/x"}}, "md5sum");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().detail.find("/x"), std::string::npos);
}

TEST(Ros1ConnectionHeader, encode_then_decode_round_trips_values_with_equals_signs) {
  const ConnectionHeader h = {{"callerid", "/talker"},
                              {"message_definition", "string data\nint32 X=3\n"},
                              {"md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"}};
  const auto bytes = encode_connection_header(h);
  const uint32_t total = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24;
  ASSERT_EQ(total + 4, bytes.size());
  auto back = decode_connection_header(std::span<const uint8_t>(bytes).subspan(4));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, h);
}

}  // namespace
}  // namespace baton::ros1
