// rmw_baton_cpp with C++ type supports (rosidl_typesupport_introspection_cpp, what rclcpp hands
// over), called through dlopen as rcl would with the wheels' real rosidl_typesupport_cpp
// dispatchers and the generated C++ message classes: the CDR of a C++ message is byte for byte
// the CDR of the same C message (and of baton's Value codec, which matches Fast CDR), decoding
// back gives an equal message, hostile bytes give an error and leave a valid message, C++ and C
// endpoints share a topic both ways, fixed-size C++ types are loaned in place.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/rmw.h>
#include <rosidl_runtime_c/message_type_support_struct.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "cdr_corruption.hpp"
#include "cpp_message_samples.hpp"
#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "ros2_test_env.hpp"
#include "wheel_cpp_type_support.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;
using test::WheelCppTypeSupport;
using test::WheelMessageType;
namespace samples = test::samples;

class RmwBatonCppTypes : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    registry_.add_share_root(test::ros_venv() / "share");
  }

  // rmw_serialize of `msg` with `ts`; empty (and a failure) on error.
  std::vector<uint8_t> serialize(const void* msg, const rosidl_message_type_support_t* ts) {
    RMW_FN(rmw_, rmw_serialize);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rmw_serialized_message_t out{nullptr, 0, 0, rcutils_get_default_allocator()};
    const rmw_ret_t ret = rmw_serialize(msg, ts, &out);
    EXPECT_EQ(ret, RMW_RET_OK) << test::take_error(rmw_);
    std::vector<uint8_t> bytes(out.buffer, out.buffer + out.buffer_length);
    out.allocator.deallocate(out.buffer, out.allocator.state);
    return bytes;
  }
  rmw_ret_t deserialize(std::vector<uint8_t> bytes, const rosidl_message_type_support_t* ts,
                        void* msg) {
    RMW_FN(rmw_, rmw_deserialize);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rmw_serialized_message_t in{bytes.data(), bytes.size(), bytes.size(),
                                rcutils_get_default_allocator()};
    return rmw_deserialize(&in, ts, msg);
  }

  // The C++ sample through the C++ type support, decoded into the C message of the same type and
  // encoded again through the C type support: the same bytes; decoded back into C++: equal; and
  // what baton's Value codec makes of the bytes (the encoder RmwBatonRclpy compares with Fast CDR).
  template <typename T>
  void expect_same_cdr_as_the_c_path(const std::string& package, const std::string& name,
                                     const T& sample) {
    SCOPED_TRACE(package + "/msg/" + name);
    WheelCppTypeSupport cpp(package, name);
    WheelMessageType c(package, name);
    ASSERT_TRUE(cpp.loaded() && c.loaded()) << ::dlerror();
    const std::vector<uint8_t> from_cpp = serialize(&sample, cpp.message());
    ASSERT_GT(from_cpp.size(), 4u);
    void* c_msg = c.create();
    ASSERT_EQ(deserialize(from_cpp, c.type_support(), c_msg), RMW_RET_OK) << test::take_error(rmw_);
    const std::vector<uint8_t> from_c = serialize(c_msg, c.type_support());
    c.destroy(c_msg);
    EXPECT_EQ(from_c, from_cpp);
    T back;
    ASSERT_EQ(deserialize(from_c, cpp.message(), &back), RMW_RET_OK) << test::take_error(rmw_);
    EXPECT_TRUE(back == sample);
    auto type = registry_.message(package + "/msg/" + name);
    ASSERT_TRUE(type.has_value()) << type.error().detail;
    auto value = decode(**type, from_cpp);
    ASSERT_TRUE(value.has_value()) << value.error().detail;
    auto reencoded = encode(**type, *value);
    ASSERT_TRUE(reencoded.has_value()) << reencoded.error().detail;
    EXPECT_EQ(*reencoded, from_cpp);
  }

  // Publishers and subscriptions of one context, destroyed with this object (before the
  // context: declare it after the RmwContext). Null (and a failure) if one cannot be made.
  struct Endpoints {
    const test::Rmw& rmw;
    RmwContext& c;
    rmw_qos_profile_t qos = test::test_qos(true, 10);
    std::vector<rmw_publisher_t*> pubs;
    std::vector<rmw_subscription_t*> subs;
    rmw_publisher_t* pub(const rosidl_message_type_support_t* ts, const std::string& topic) {
      pubs.push_back(test::create_publisher(rmw, c, ts, topic.c_str(), qos));
      EXPECT_NE(pubs.back(), nullptr) << test::take_error(rmw);
      return pubs.back();
    }
    rmw_subscription_t* sub(const rosidl_message_type_support_t* ts, const std::string& topic) {
      subs.push_back(test::create_subscription(rmw, c, ts, topic.c_str(), qos));
      EXPECT_NE(subs.back(), nullptr) << test::take_error(rmw);
      return subs.back();
    }
    ~Endpoints() {
      for (auto* s : subs) test::destroy(rmw, c, s);
      for (auto* p : pubs) test::destroy(rmw, c, p);
    }
  };

  TypeRegistry registry_;
};

// A type support that offers neither introspection (a foreign typesupport library, a missing
// introspection library): refused with an error naming both, nothing else happens.
const rosidl_message_type_support_t* offers_nothing(const rosidl_message_type_support_t*,
                                                    const char*) {
  return nullptr;
}

TEST_F(RmwBatonCppTypes, type_support_without_introspection_is_refused_naming_both_languages) {
  RMW_FN(rmw_, rmw_serialize);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  rosidl_message_type_support_t ts{};
  ts.typesupport_identifier = "some_other_typesupport";
  ts.func = offers_nothing;
  const auto sample = samples::string_msg(0);
  rmw_serialized_message_t out{nullptr, 0, 0, rcutils_get_default_allocator()};
  EXPECT_EQ(rmw_serialize(&sample, &ts, &out), RMW_RET_ERROR);
  const std::string error = test::take_error(rmw_);
  EXPECT_NE(error.find("'some_other_typesupport' offers neither "
                       "rosidl_typesupport_introspection_c nor "
                       "rosidl_typesupport_introspection_cpp"),
            std::string::npos)
      << error;
  RmwContext c(rmw_, "cpp_refused");
  EXPECT_EQ(test::create_publisher(rmw_, c, &ts, topic_.c_str(), test::test_qos(true, 10)),
            nullptr);
  EXPECT_NE(test::take_error(rmw_).find("offers neither"), std::string::npos);
}

TEST_F(RmwBatonCppTypes, cpp_messages_serialize_to_the_bytes_of_the_same_c_messages) {
  expect_same_cdr_as_the_c_path("std_msgs", "String", samples::string_msg(3));
  expect_same_cdr_as_the_c_path("std_msgs", "String", std_msgs::msg::String());
  expect_same_cdr_as_the_c_path("sensor_msgs", "Image", samples::image(1, 64, 48));
  expect_same_cdr_as_the_c_path("sensor_msgs", "JointState", samples::joint_state(2));
  expect_same_cdr_as_the_c_path("sensor_msgs", "CameraInfo", samples::camera_info(4));
  expect_same_cdr_as_the_c_path("rcl_interfaces", "ParameterEvent", samples::parameter_event(5));
  expect_same_cdr_as_the_c_path("rcl_interfaces", "ParameterEvent",
                                rcl_interfaces::msg::ParameterEvent());
  expect_same_cdr_as_the_c_path("rcl_interfaces", "ParameterDescriptor",
                                samples::parameter_descriptor(6));
  expect_same_cdr_as_the_c_path("rmw_dds_common", "ParticipantEntitiesInfo",
                                samples::participant_info(7));
  expect_same_cdr_as_the_c_path("geometry_msgs", "Point", samples::point(8));
}

// std::vector<bool> has no contiguous data: its elements go through fetch / assign_function. The
// bool array of a ParameterValue lies where the Value codec says, one byte per element.
TEST_F(RmwBatonCppTypes, bool_sequence_is_written_one_byte_per_element) {
  WheelCppTypeSupport cpp("rcl_interfaces", "ParameterValue");
  ASSERT_TRUE(cpp.loaded()) << ::dlerror();
  rcl_interfaces::msg::ParameterValue v;
  v.bool_array_value = {true, false, false, true, true};
  const auto bytes = serialize(&v, cpp.message());
  auto type = registry_.message("rcl_interfaces/msg/ParameterValue");
  ASSERT_TRUE(type.has_value());
  auto value = decode(**type, bytes);
  ASSERT_TRUE(value.has_value()) << value.error().detail;
  const Value& bools = value->at(**type, "bool_array_value");
  ASSERT_EQ(bools.bytes().size(), 5u);
  EXPECT_EQ(std::vector<uint8_t>(bools.bytes().begin(), bools.bytes().end()),
            (std::vector<uint8_t>{1, 0, 0, 1, 1}));
}

TEST_F(RmwBatonCppTypes, string_over_its_bound_is_refused_both_ways) {
  WheelCppTypeSupport cpp("rmw_dds_common", "NodeEntitiesInfo");
  ASSERT_TRUE(cpp.loaded()) << ::dlerror();
  RMW_FN(rmw_, rmw_serialize);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  rmw_dds_common::msg::NodeEntitiesInfo node;
  node.node_name = std::string(257, 'n');  // string<=256
  rmw_serialized_message_t out{nullptr, 0, 0, rcutils_get_default_allocator()};
  EXPECT_EQ(rmw_serialize(&node, cpp.message(), &out), RMW_RET_ERROR);
  EXPECT_NE(test::take_error(rmw_).find("node_name: 257 bytes > bound 256"), std::string::npos);
  if (out.buffer != nullptr) out.allocator.deallocate(out.buffer, out.allocator.state);
  // The same string on the wire (written by the Value codec, which does not check bounds on
  // write for this test): refused on read, the message stays usable.
  auto type = registry_.message("rmw_dds_common/msg/NodeEntitiesInfo");
  ASSERT_TRUE(type.has_value());
  node.node_name = std::string(256, 'n');
  auto bytes = serialize(&node, cpp.message());
  ASSERT_FALSE(bytes.empty());
  // [header 4][node_namespace "": length 1, NUL, 3 pad][node_name: length at offset 12]: make
  // the name one byte longer than its bound.
  uint32_t len = 0;
  std::memcpy(&len, bytes.data() + 12, 4);
  ASSERT_EQ(len, 257u);  // 256 + NUL
  len = 258;
  std::memcpy(bytes.data() + 12, &len, 4);
  bytes.insert(bytes.begin() + 16, 'n');
  rmw_dds_common::msg::NodeEntitiesInfo back;
  EXPECT_EQ(deserialize(bytes, cpp.message(), &back), RMW_RET_ERROR);
  EXPECT_NE(test::take_error(rmw_).find("node_name: length 257 > bound 256"), std::string::npos);
  rmw_dds_common::msg::NodeEntitiesInfo copy = back;
  EXPECT_TRUE(copy == back);
}

TEST_F(RmwBatonCppTypes, bounded_sequence_over_its_bound_is_refused_on_read) {
  WheelCppTypeSupport cpp("rcl_interfaces", "ParameterDescriptor");
  ASSERT_TRUE(cpp.loaded()) << ::dlerror();
  const auto descriptor = samples::parameter_descriptor(0);
  auto bytes = serialize(&descriptor, cpp.message());
  ASSERT_FALSE(bytes.empty());
  // floating_point_range's count (1) is the 4-aligned uint32 right after the two bools:
  // find it by the value 1 followed by from_value = -1.0 (8-aligned).
  const double from = -1.0;
  size_t at = 0;
  for (size_t k = 4; k + 16 <= bytes.size(); k += 4) {
    uint32_t n = 0;
    std::memcpy(&n, bytes.data() + k, 4);
    const size_t value_at = 4 + ((k - 4 + 4 + 7) / 8) * 8;
    if (n == 1 && value_at + 8 <= bytes.size() &&
        std::memcmp(bytes.data() + value_at, &from, 8) == 0) {
      at = k;
      break;
    }
  }
  ASSERT_NE(at, 0u);
  const uint32_t two = 2;
  std::memcpy(bytes.data() + at, &two, 4);
  rcl_interfaces::msg::ParameterDescriptor back;
  EXPECT_EQ(deserialize(bytes, cpp.message(), &back), RMW_RET_ERROR);
  EXPECT_NE(test::take_error(rmw_).find("floating_point_range: length 2 > bound 1"),
            std::string::npos);
  EXPECT_LE(back.floating_point_range.size(), 1u);
}

// A subscription decodes samples from shared memory (another process's) the same way: this is
// the hostile-publisher case for C++ messages. Every outcome leaves a valid message: copying it,
// encoding the copy and the original (UBSan checks every bool loaded; a decoded double may be a
// NaN, so bytes are compared, not values) and destroying both (ASan) must be clean.
TEST_F(RmwBatonCppTypes, random_corruption_gives_an_error_or_a_message_never_a_crash) {
  WheelCppTypeSupport cpp("rcl_interfaces", "ParameterEvent");
  ASSERT_TRUE(cpp.loaded()) << ::dlerror();
  RMW_FN(rmw_, rcutils_reset_error);
  const auto sample = samples::parameter_event(1);
  const auto valid = serialize(&sample, cpp.message());
  ASSERT_GT(valid.size(), 100u);
  std::mt19937_64 rng(20260522);
  size_t accepted = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = valid;
    if (i % 5 == 0) {  // a byte set to 2..255 somewhere (a bool's byte must be 0 or 1)
      b[4 + rng() % (b.size() - 4)] = static_cast<uint8_t>(2 + rng() % 254);
    } else {
      test::corrupt_cdr(b, rng);
    }
    rcl_interfaces::msg::ParameterEvent msg = samples::parameter_event(2);
    (deserialize(b, cpp.message(), &msg) == RMW_RET_OK ? accepted : refused)++;
    rcutils_reset_error();
    const rcl_interfaces::msg::ParameterEvent copy = msg;
    RMW_FN(rmw_, rmw_serialize);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rmw_serialized_message_t a{nullptr, 0, 0, rcutils_get_default_allocator()};
    rmw_serialized_message_t b2{nullptr, 0, 0, rcutils_get_default_allocator()};
    const rmw_ret_t ra = rmw_serialize(&msg, cpp.message(), &a);
    const rmw_ret_t rb = rmw_serialize(&copy, cpp.message(), &b2);
    rcutils_reset_error();  // an embedded NUL in a decoded string is refused on encode
    ASSERT_EQ(ra, rb);
    if (ra == RMW_RET_OK) {
      ASSERT_EQ(std::vector<uint8_t>(a.buffer, a.buffer + a.buffer_length),
                std::vector<uint8_t>(b2.buffer, b2.buffer + b2.buffer_length));
    }
    for (auto* m : {&a, &b2})
      if (m->buffer != nullptr) m->allocator.deallocate(m->buffer, m->allocator.state);
  }
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(accepted, 100u);
}

// One topic, four endpoints: a C++ and a C publisher, a C++ and a C subscription. Each
// subscription gets each message once, equal to what was published whatever the language.
TEST_F(RmwBatonCppTypes, cpp_and_c_endpoints_share_a_topic_both_ways) {
  WheelCppTypeSupport cpp("rcl_interfaces", "ParameterEvent");
  WheelMessageType c_type("rcl_interfaces", "ParameterEvent");
  ASSERT_TRUE(cpp.loaded() && c_type.loaded()) << ::dlerror();
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_take);
  RmwContext c(rmw_, "cpp_and_c");
  Endpoints e{rmw_, c};
  auto* pub_cpp = e.pub(cpp.message(), topic_);
  auto* pub_c = e.pub(c_type.type_support(), topic_);
  auto* sub_cpp = e.sub(cpp.message(), topic_);
  auto* sub_c = e.sub(c_type.type_support(), topic_);
  ASSERT_TRUE(pub_cpp && pub_c && sub_cpp && sub_c);
  const auto from_cpp = samples::parameter_event(10);
  const auto from_c_value = samples::parameter_event(11);
  void* c_msg = c_type.create();
  ASSERT_EQ(deserialize(serialize(&from_c_value, cpp.message()), c_type.type_support(), c_msg),
            RMW_RET_OK);
  ASSERT_EQ(rmw_publish(pub_cpp, &from_cpp, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  ASSERT_EQ(rmw_publish(pub_c, c_msg, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  c_type.destroy(c_msg);
  // Takes one message into `msg` (waiting as rcl would); false if none came.
  auto take = [&](rmw_subscription_t* sub, void* msg) {
    for (int attempt = 0; attempt < 30; ++attempt) {
      bool taken = false;
      EXPECT_EQ(rmw_take(sub, msg, &taken, nullptr), RMW_RET_OK) << test::take_error(rmw_);
      if (taken) return true;
      test::wait_for_subscription(rmw_, c, sub, 1);
    }
    return false;
  };
  // C++ subscription: both (the two publishers' samples in any order), equal.
  std::vector<int32_t> seen;
  for (int k = 0; k < 2; ++k) {
    rcl_interfaces::msg::ParameterEvent got;
    ASSERT_TRUE(take(sub_cpp, &got));
    seen.push_back(got.stamp.sec);
    EXPECT_TRUE(got == (got.stamp.sec == 10 ? from_cpp : from_c_value)) << got.stamp.sec;
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int32_t>{10, 11}));
  // C subscription: both, encoded back to the C++ samples' bytes.
  std::vector<std::vector<uint8_t>> c_got;
  for (int k = 0; k < 2; ++k) {
    void* got = c_type.create();
    EXPECT_TRUE(take(sub_c, got));
    c_got.push_back(serialize(got, c_type.type_support()));
    c_type.destroy(got);
  }
  std::vector<std::vector<uint8_t>> expected = {serialize(&from_cpp, cpp.message()),
                                                serialize(&from_c_value, cpp.message())};
  std::sort(c_got.begin(), c_got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(c_got, expected);
  bool taken = true;
  rcl_interfaces::msg::ParameterEvent none;
  EXPECT_EQ(rmw_take(sub_cpp, &none, &taken, nullptr), RMW_RET_OK);
  EXPECT_FALSE(taken);  // exactly once
}

// A fixed-size C++ class (std::array / primitives) lies as its CDR, like the C struct: loaned on
// both ends, in place in shared memory; a C subscription reads the same sample with rmw_take.
TEST_F(RmwBatonCppTypes, fixed_size_cpp_type_is_loaned_in_place_on_both_ends) {
  WheelCppTypeSupport cpp("geometry_msgs", "Point");
  ASSERT_TRUE(cpp.loaded()) << ::dlerror();
  RmwContext c(rmw_, "cpp_loan");
  Endpoints e{rmw_, c};
  auto* pub = e.pub(cpp.message(), topic_);
  auto* sub = e.sub(cpp.message(), topic_);
  auto* sub_c = e.sub(point_.type_support(), topic_);
  ASSERT_TRUE(pub && sub && sub_c);
  EXPECT_TRUE(pub->can_loan_messages && sub->can_loan_messages);
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  RMW_FN(rmw_, rmw_publish_loaned_message);
  RMW_FN(rmw_, rmw_take_loaned_message);
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  RMW_FN(rmw_, rmw_take);
  void* loaned = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(pub, cpp.message(), &loaned), RMW_RET_OK)
      << test::take_error(rmw_);
  EXPECT_TRUE(test::in_baton_mapping(loaned));
  auto* point = static_cast<geometry_msgs::msg::Point*>(loaned);
  // A fresh chunk is zero; a reused one keeps its bytes (no defaults in Point: nothing set).
  EXPECT_TRUE(*point == geometry_msgs::msg::Point());
  *point = samples::point(3);
  ASSERT_EQ(rmw_publish_loaned_message(pub, loaned, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  ASSERT_TRUE(test::wait_for_subscription(rmw_, c, sub, 10));
  void* taken_msg = nullptr;
  bool taken = false;
  ASSERT_EQ(rmw_take_loaned_message(sub, &taken_msg, &taken, nullptr), RMW_RET_OK)
      << test::take_error(rmw_);
  ASSERT_TRUE(taken);
  EXPECT_TRUE(test::in_baton_mapping(taken_msg));
  EXPECT_TRUE(*static_cast<const geometry_msgs::msg::Point*>(taken_msg) == samples::point(3));
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, taken_msg), RMW_RET_OK);
  double c_point[3] = {};
  taken = false;
  ASSERT_EQ(rmw_take(sub_c, c_point, &taken, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  ASSERT_TRUE(taken);
  EXPECT_EQ(c_point[0], samples::point(3).x);
  EXPECT_EQ(c_point[2], samples::point(3).z);
}

// A C++ class with a std::string or a std::vector cannot lie in a chunk as its CDR, and a
// std::vector cannot point into one: C++ String publishers and Image subscriptions do not loan.
TEST_F(RmwBatonCppTypes, variable_size_cpp_types_are_not_loaned) {
  WheelCppTypeSupport string_t("std_msgs", "String");
  WheelCppTypeSupport image_t("sensor_msgs", "Image");
  ASSERT_TRUE(string_t.loaded() && image_t.loaded()) << ::dlerror();
  RmwContext c(rmw_, "cpp_no_loan");
  Endpoints e{rmw_, c};
  auto* pub = e.pub(string_t.message(), topic_);
  auto* sub = e.sub(image_t.message(), topic_ + "_image");
  ASSERT_TRUE(pub && sub);
  EXPECT_FALSE(pub->can_loan_messages || sub->can_loan_messages);
  // Each loan call answers UNSUPPORTED with an error naming the type (and the field that
  // prevents it), as for C type supports.
  void* msg = nullptr;
  bool taken = true;
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  RMW_FN(rmw_, rmw_take_loaned_message);
  auto expect_unsupported = [&](rmw_ret_t ret, const char* why) {
    EXPECT_EQ(ret, RMW_RET_UNSUPPORTED);
    EXPECT_NE(test::take_error(rmw_).find(why), std::string::npos) << why;
  };
  expect_unsupported(rmw_borrow_loaned_message(pub, string_t.message(), &msg),
                     "std_msgs/msg/String.data is a string");
  expect_unsupported(rmw_take_loaned_message(sub, &msg, &taken, nullptr), "sensor_msgs/msg/Image");
  EXPECT_FALSE(taken);
  EXPECT_EQ(msg, nullptr);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
