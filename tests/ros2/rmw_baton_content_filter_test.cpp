// rmw_baton_cpp's content filters (src/ros2/rmw/content_filter*.cpp, rmw_content_filter.cpp),
// called through dlopen as rcl would, on shared memory: what rmw_subscription_set_content_filter
// accepts and refuses (and the error it gives), what get_content_filter answers, and which samples
// a filtered subscription hands out for std_msgs/String, sensor_msgs/JointState (nested, sequences,
// strings, integers, floats) and sensor_msgs/NavSatFix (signed bytes, a fixed array), with the C
// and the C++ type supports. Parser fuzzing: 100 000+ random and mutated expressions. The real
// rclpy end to end: rmw_baton_rclpy_content_filter_test.cpp.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rmw/rmw.h>
#include <rmw/subscription_content_filter_options.h>
#include <std_msgs/msg/detail/string__struct.h>

#include <random>
#include <sensor_msgs/msg/joint_state.hpp>
#include <std_msgs/msg/string.hpp>
#include <string>
#include <vector>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "wheel_cpp_type_support.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using test::RmwContext;

struct Joint {
  int32_t sec = 0;
  uint32_t nanosec = 0;
  std::string frame;
  std::vector<std::string> names;
  std::vector<double> position;
};

class RmwBatonContentFilter : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped()) return;
    registry_.add_share_root(test::ros_venv() / "share");
    ASSERT_TRUE(string_.loaded() && joint_.loaded() && nav_.loaded()) << ::dlerror();
  }

  const MessageDescription& type(const char* name) {
    auto t = registry_.message(name);
    EXPECT_TRUE(t.has_value()) << name;
    return **t;
  }

  // rmw_subscription_set_content_filter with `expression` and `params`; the return code.
  rmw_ret_t set_filter(rmw_subscription_t* sub, const char* expression,
                       std::vector<const char*> params = {}) {
    RMW_FN(rmw_, rmw_subscription_set_content_filter);
    RMW_FN(rmw_, rmw_get_zero_initialized_content_filter_options);
    RMW_FN(rmw_, rmw_subscription_content_filter_options_init);
    RMW_FN(rmw_, rmw_subscription_content_filter_options_fini);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rcutils_allocator_t alloc = rcutils_get_default_allocator();
    auto options = rmw_get_zero_initialized_content_filter_options();
    EXPECT_EQ(
        rmw_subscription_content_filter_options_init(
            expression, params.size(), params.empty() ? nullptr : params.data(), &alloc, &options),
        RMW_RET_OK);
    const rmw_ret_t ret = rmw_subscription_set_content_filter(sub, &options);
    EXPECT_EQ(rmw_subscription_content_filter_options_fini(&options, &alloc), RMW_RET_OK);
    return ret;
  }
  // The error of a refused filter (and that it was refused with RMW_RET_ERROR).
  std::string refusal(rmw_subscription_t* sub, const char* expression,
                      std::vector<const char*> params = {}) {
    EXPECT_EQ(set_filter(sub, expression, std::move(params)), RMW_RET_ERROR) << expression;
    return test::take_error(rmw_);
  }

  void publish(rmw_publisher_t* pub, const MessageDescription& t, const Value& v) {
    RMW_FN(rmw_, rmw_publish_serialized_message);
    auto bytes = encode(t, v);
    ASSERT_TRUE(bytes.has_value()) << bytes.error().detail;
    rmw_serialized_message_t m{};
    m.buffer = bytes->data();
    m.buffer_length = bytes->size();
    m.buffer_capacity = bytes->size();
    ASSERT_EQ(rmw_publish_serialized_message(pub, &m, nullptr), RMW_RET_OK)
        << test::take_error(rmw_);
  }
  // Every sample the subscription hands out now (serialized takes), decoded.
  std::vector<Value> take_all(rmw_subscription_t* sub, const MessageDescription& t) {
    RMW_FN(rmw_, rmw_take_serialized_message);
    RMW_FN(rmw_, rcutils_get_zero_initialized_uint8_array);
    RMW_FN(rmw_, rcutils_uint8_array_init);
    RMW_FN(rmw_, rcutils_uint8_array_fini);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rcutils_allocator_t alloc = rcutils_get_default_allocator();
    rmw_serialized_message_t m = rcutils_get_zero_initialized_uint8_array();
    EXPECT_EQ(rcutils_uint8_array_init(&m, 0, &alloc), RCUTILS_RET_OK);
    std::vector<Value> out;
    for (bool taken = true; taken;) {
      EXPECT_EQ(rmw_take_serialized_message(sub, &m, &taken, nullptr), RMW_RET_OK);
      if (!taken) break;
      auto v = decode(t, std::span<const uint8_t>(m.buffer, m.buffer_length));
      EXPECT_TRUE(v.has_value());
      if (v) out.push_back(std::move(*v));
    }
    EXPECT_EQ(rcutils_uint8_array_fini(&m), RCUTILS_RET_OK);
    return out;
  }

  Value joint(const Joint& j) {
    const MessageDescription& t = type("sensor_msgs/msg/JointState");
    const MessageDescription& header = *t.fields[0].nested;
    const MessageDescription& stamp = *header.fields[0].nested;
    Value v = default_value(t);
    v.at(t, "header").at(header, "stamp").at(stamp, "sec") = Value::of(j.sec);
    v.at(t, "header").at(header, "stamp").at(stamp, "nanosec") = Value::of(j.nanosec);
    v.at(t, "header").at(header, "frame_id").str = j.frame;
    for (const auto& n : j.names) v.at(t, "name").items.push_back(Value::of_string(n));
    v.at(t, "position") = Value::of_array(std::span<const double>(j.position));
    return v;
  }
  // The frame_ids of the JointStates the subscription hands out now.
  std::vector<std::string> frames(rmw_subscription_t* sub) {
    const MessageDescription& t = type("sensor_msgs/msg/JointState");
    std::vector<std::string> out;
    for (const Value& v : take_all(sub, t))
      out.push_back(v.at(t, "header").at(*t.fields[0].nested, "frame_id").str);
    return out;
  }

  // A publisher and a subscription of `ts` on this test's topic, reliable keep-last 100.
  struct Pair {
    RmwContext& c;
    const test::Rmw& rmw;
    rmw_publisher_t* pub = nullptr;
    rmw_subscription_t* sub = nullptr;
    ~Pair() {
      test::destroy(rmw, c, sub);
      test::destroy(rmw, c, pub);
    }
  };
  std::unique_ptr<Pair> pair(RmwContext& c, const rosidl_message_type_support_t* ts) {
    auto p = std::unique_ptr<Pair>(new Pair{c, rmw_});
    p->pub = test::create_publisher(rmw_, c, ts, topic_.c_str(), test::test_qos(true, 100));
    p->sub = test::create_subscription(rmw_, c, ts, topic_.c_str(), test::test_qos(true, 100));
    EXPECT_TRUE(p->pub && p->sub) << test::take_error(rmw_);
    return p;
  }

  TypeRegistry registry_;
  test::WheelMessageType string_{"std_msgs", "String"};
  test::WheelMessageType joint_{"sensor_msgs", "JointState"};
  test::WheelMessageType nav_{"sensor_msgs", "NavSatFix"};
};

TEST_F(RmwBatonContentFilter, expressions_of_the_dds_subset_are_accepted) {
  RmwContext c(rmw_, "cft_valid");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  EXPECT_FALSE(p->sub->is_cft_enabled);
  const std::vector<std::pair<const char*, std::vector<const char*>>> valid = {
      {"header.frame_id = 'arm'", {}},
      {"header.stamp.sec > 5 AND header.stamp.nanosec <= 10", {}},
      {"position[0] BETWEEN -1.5 AND 2e3", {}},
      {"NOT (name[1] LIKE 'el%')", {}},
      {"header.stamp.sec NOT BETWEEN %0 AND %1", {"1", "0x10"}},
      {"header.frame_id <> %0 or header.frame_id = %1", {"'a'", "'b c'"}},
      {"header.stamp.sec != 16 OR (header.stamp.sec = 3)", {}},
      {"header.stamp.sec between 1 and 2 and not header.frame_id like '_x%'", {}},
      {"5 < header.stamp.sec", {}},
      {"position[0] = velocity[2]", {}},
      {"position[1] >= .5 AND effort[0] < -7.25e-3", {}},
      {"header.stamp.sec = %99",
       {"0",  "1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9",  "10", "11", "12", "13", "14",
        "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29",
        "30", "31", "32", "33", "34", "35", "36", "37", "38", "39", "40", "41", "42", "43", "44",
        "45", "46", "47", "48", "49", "50", "51", "52", "53", "54", "55", "56", "57", "58", "59",
        "60", "61", "62", "63", "64", "65", "66", "67", "68", "69", "70", "71", "72", "73", "74",
        "75", "76", "77", "78", "79", "80", "81", "82", "83", "84", "85", "86", "87", "88", "89",
        "90", "91", "92", "93", "94", "95", "96", "97", "98", "99"}},
      {"position[0] > %0 AND header.stamp.sec = %1", {"-1.5", "TRUE"}},
  };
  for (const auto& [expression, params] : valid) {
    EXPECT_EQ(set_filter(p->sub, expression, params), RMW_RET_OK)
        << expression << ": " << test::take_error(rmw_);
    EXPECT_TRUE(p->sub->is_cft_enabled) << expression;
  }
}

TEST_F(RmwBatonContentFilter, malformed_expressions_are_refused_with_the_position_and_why) {
  RmwContext c(rmw_, "cft_malformed");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"header.stamp.sec >", "at character 19: expected a field, a value or a %n parameter"},
      {"(header.stamp.sec = 1", "at character 22: expected ')'"},
      {"header.frame_id = 'arm", "at character 19: string not closed"},
      {"header.stamp.sec = = 1", "at character 20: expected a field, a value"},
      {"header.stamp.sec = %100", "at character 20: parameter numbers go from %0 to %99"},
      {"1 = 2", "at character 1: a comparison needs a field on one side"},
      {"header.stamp.sec BETWEEN 1 2", "at character 28: expected AND in BETWEEN"},
      {"header.stamp.sec ! 3", "'!' must be followed by '='"},
      {"header.stamp.sec = 1 header", "expected AND, OR or the end"},
      {"header.stamp.sec = 99999999999999999999", "integer out of the 64-bit range"},
      {"header.stamp.sec = 1e", "exponent without digits"},
      {"header.stamp.sec = 1 AND", "at character 25: expected a field"},
      {"header.stamp.sec NOT 1", "expected BETWEEN after NOT"},
      {"name[x] = 'a'", "an array index is an integer"},
      {"header.stamp.sec = #", "unexpected character '#'"},
      {"'a' LIKE header.frame_id", "LIKE needs a field on its left"},
  };
  for (const auto& [expression, why] : cases)
    EXPECT_NE(refusal(p->sub, expression).find(why), std::string::npos) << expression;
  std::string deep;
  for (int i = 0; i < 150; ++i) deep += "(";
  deep += "header.stamp.sec = 1";
  for (int i = 0; i < 150; ++i) deep += ")";
  EXPECT_NE(refusal(p->sub, deep.c_str()).find("nested deeper than 100"), std::string::npos);
  EXPECT_FALSE(p->sub->is_cft_enabled);
}

TEST_F(RmwBatonContentFilter, unknown_fields_and_mismatched_types_are_refused_naming_the_field) {
  RmwContext c(rmw_, "cft_fields");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  const std::vector<std::tuple<const char*, std::vector<const char*>, const char*>> cases = {
      {"header.stmp.sec = 1",
       {},
       "field 'header.stmp.sec': std_msgs/msg/Header has no member "
       "'stmp' (it has: stamp, frame_id)"},
      {"position = 1.0", {}, "field 'position': 'position' is an array or sequence"},
      {"header = 1", {}, "field 'header': 'header' is a message (std_msgs/msg/Header)"},
      {"header.frame_id.x = 1", {}, "'frame_id' is not a message, so it has no member 'x'"},
      {"header[0].frame_id = 'a'", {}, "'header' is not an array"},
      {"header.frame_id = 5",
       {},
       "cannot compare field 'header.frame_id' (a string) with an "
       "integer value"},
      {"header.stamp.sec = 'x'",
       {},
       "cannot compare field 'header.stamp.sec' (an integer) with "
       "a string value"},
      {"header.stamp.sec LIKE 'x'", {}, "LIKE compares a string field with a string pattern"},
      {"header.frame_id = %0", {}, "%0 has no value (0 expression parameters given)"},
      {"header.frame_id = %1", {"'a'"}, "%1 has no value (1 expression parameters given)"},
      {"header.frame_id = %0", {"arm"}, "its value 'arm' is not one value"},
      {"header.stamp.sec = %0", {"1 2"}, "expected one value only"},
  };
  for (const auto& [expression, params, why] : cases)
    EXPECT_NE(refusal(p->sub, expression, params).find(why), std::string::npos) << expression;
}

TEST_F(RmwBatonContentFilter, an_index_past_a_fixed_array_is_refused) {
  RmwContext c(rmw_, "cft_fixed");
  auto n = pair(c, nav_.type_support());
  ASSERT_TRUE(n->sub);
  EXPECT_NE(refusal(n->sub, "position_covariance[9] = 0")
                .find("index 9 is past the end of 'position_covariance' (9 elements)"),
            std::string::npos);
  EXPECT_EQ(set_filter(n->sub, "position_covariance[8] = 0"), RMW_RET_OK);
}

TEST_F(RmwBatonContentFilter, null_options_and_foreign_handles_get_the_documented_codes) {
  RmwContext c(rmw_, "cft_args");
  RMW_FN(rmw_, rmw_subscription_set_content_filter);
  RMW_FN(rmw_, rmw_subscription_get_content_filter);
  RMW_FN(rmw_, rmw_get_zero_initialized_content_filter_options);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  auto p = pair(c, string_.type_support());
  ASSERT_TRUE(p->sub);
  auto options = rmw_get_zero_initialized_content_filter_options();
  rcutils_allocator_t alloc = rcutils_get_default_allocator();
  EXPECT_EQ(rmw_subscription_set_content_filter(nullptr, &options), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_subscription_set_content_filter(p->sub, nullptr), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_subscription_set_content_filter(p->sub, &options), RMW_RET_INVALID_ARGUMENT)
      << "a null filter_expression";
  test::take_error(rmw_);
  EXPECT_EQ(rmw_subscription_get_content_filter(p->sub, nullptr, &options),
            RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_subscription_get_content_filter(p->sub, &alloc, nullptr), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
  rmw_subscription_t foreign = *p->sub;
  foreign.implementation_identifier = "rmw_other";
  EXPECT_EQ(rmw_subscription_set_content_filter(&foreign, &options),
            RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_subscription_get_content_filter(&foreign, &alloc, &options),
            RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  test::take_error(rmw_);
}

TEST_F(RmwBatonContentFilter, get_returns_the_filter_set_and_an_empty_expression_removes_it) {
  RmwContext c(rmw_, "cft_get");
  RMW_FN(rmw_, rmw_subscription_get_content_filter);
  RMW_FN(rmw_, rmw_get_zero_initialized_content_filter_options);
  RMW_FN(rmw_, rmw_subscription_content_filter_options_fini);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  rcutils_allocator_t alloc = rcutils_get_default_allocator();
  auto options = rmw_get_zero_initialized_content_filter_options();
  EXPECT_EQ(rmw_subscription_get_content_filter(p->sub, &alloc, &options), RMW_RET_ERROR);
  EXPECT_NE(test::take_error(rmw_).find("has no content filter"), std::string::npos);

  ASSERT_EQ(set_filter(p->sub, "header.frame_id = %0 OR header.stamp.sec > %1", {"'a'", "7"}),
            RMW_RET_OK);
  ASSERT_EQ(rmw_subscription_get_content_filter(p->sub, &alloc, &options), RMW_RET_OK);
  EXPECT_STREQ(options.filter_expression, "header.frame_id = %0 OR header.stamp.sec > %1");
  ASSERT_EQ(options.expression_parameters.size, 2u);
  EXPECT_STREQ(options.expression_parameters.data[0], "'a'");
  EXPECT_STREQ(options.expression_parameters.data[1], "7");
  EXPECT_EQ(rmw_subscription_content_filter_options_fini(&options, &alloc), RMW_RET_OK);

  ASSERT_EQ(set_filter(p->sub, ""), RMW_RET_OK);
  EXPECT_FALSE(p->sub->is_cft_enabled);
  EXPECT_EQ(rmw_subscription_get_content_filter(p->sub, &alloc, &options), RMW_RET_ERROR);
  test::take_error(rmw_);
  for (const char* f : {"a", "b"})
    publish(p->pub, type("sensor_msgs/msg/JointState"), joint({.frame = f}));
  EXPECT_EQ(frames(p->sub), (std::vector<std::string>{"a", "b"})) << "no filter: every sample";
}

TEST_F(RmwBatonContentFilter, a_refused_filter_leaves_the_one_in_place) {
  RmwContext c(rmw_, "cft_keep");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "header.frame_id = 'b'"), RMW_RET_OK);
  refusal(p->sub, "header.frame_id = ");
  EXPECT_TRUE(p->sub->is_cft_enabled);
  for (const char* f : {"a", "b", "c"})
    publish(p->pub, type("sensor_msgs/msg/JointState"), joint({.frame = f}));
  EXPECT_EQ(frames(p->sub), std::vector<std::string>{"b"});
}

TEST_F(RmwBatonContentFilter, a_string_subscription_takes_only_matching_messages_into_c_structs) {
  RmwContext c(rmw_, "cft_string");
  RMW_FN(rmw_, rmw_take);
  auto p = pair(c, string_.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "data LIKE %0 OR data = 'exact'", {"'k_ep%'"}), RMW_RET_OK);
  const MessageDescription& t = type("std_msgs/msg/String");
  for (const char* s : {"keep 1", "drop", "kEEp", "exact", "kxep 2", "exactly", "keep"}) {
    Value v = default_value(t);
    v.at(t, "data").str = s;
    publish(p->pub, t, v);
  }
  // rmw_take decodes into rclpy's C struct: the filtered-out samples are consumed silently.
  auto* msg = static_cast<std_msgs__msg__String*>(string_.create());
  std::vector<std::string> got;
  for (bool taken = true; taken;) {
    ASSERT_EQ(rmw_take(p->sub, msg, &taken, nullptr), RMW_RET_OK);
    if (taken) got.emplace_back(msg->data.data, msg->data.size);
  }
  string_.destroy(msg);
  EXPECT_EQ(got, (std::vector<std::string>{"keep 1", "exact", "kxep 2", "keep"}));
}

TEST_F(RmwBatonContentFilter, rmw_wait_wakes_only_for_samples_the_filter_passes) {
  RmwContext c(rmw_, "cft_wait");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "header.frame_id = 'pass'"), RMW_RET_OK);
  const MessageDescription& t = type("sensor_msgs/msg/JointState");
  publish(p->pub, t, joint({.frame = "drop 1"}));
  publish(p->pub, t, joint({.frame = "drop 2"}));
  EXPECT_FALSE(test::wait_for_subscription(rmw_, c, p->sub, 0));  // both consumed silently
  publish(p->pub, t, joint({.frame = "drop 3"}));
  publish(p->pub, t, joint({.frame = "pass"}));
  publish(p->pub, t, joint({.frame = "drop 4"}));
  EXPECT_TRUE(test::wait_for_subscription(rmw_, c, p->sub, 0));
  // The sample the wait found is the one taken next, even after the filter changed to one it
  // also passes; one the new filter rejects is dropped.
  ASSERT_EQ(set_filter(p->sub, "header.frame_id LIKE 'pa%'"), RMW_RET_OK);
  EXPECT_EQ(frames(p->sub), std::vector<std::string>{"pass"});
  publish(p->pub, t, joint({.frame = "pass"}));
  EXPECT_TRUE(test::wait_for_subscription(rmw_, c, p->sub, 0));
  ASSERT_EQ(set_filter(p->sub, "header.frame_id = 'other'"), RMW_RET_OK);
  EXPECT_FALSE(test::wait_for_subscription(rmw_, c, p->sub, 0));
  EXPECT_TRUE(frames(p->sub).empty());
}

TEST_F(RmwBatonContentFilter, nested_numeric_and_sequence_fields_select_joint_states) {
  RmwContext c(rmw_, "cft_joint");
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub,
                       "header.stamp.sec BETWEEN %0 AND %1 AND name[1] = 'elbow' AND "
                       "(position[0] > 0.5 OR header.stamp.nanosec = 4294967295)",
                       {"10", "20"}),
            RMW_RET_OK);
  const MessageDescription& t = type("sensor_msgs/msg/JointState");
  const std::vector<std::string> arm = {"shoulder", "elbow"};
  publish(p->pub, t, joint({10, 0, "pass: low edge", arm, {0.75}}));
  publish(p->pub, t, joint({9, 0, "drop: sec below", arm, {0.75}}));
  publish(p->pub, t, joint({21, 0, "drop: sec above", arm, {0.75}}));
  publish(p->pub, t, joint({20, 0, "drop: position", arm, {0.5}}));
  publish(p->pub, t, joint({20, 4294967295u, "pass: max uint32", arm, {0.5}}));
  publish(p->pub, t, joint({15, 0, "drop: other joint", {"shoulder", "wrist"}, {1.0}}));
  publish(p->pub, t, joint({15, 0, "drop: no name[1]", {"shoulder"}, {1.0}}));
  publish(p->pub, t, joint({15, 0, "drop: no position[0]", arm, {}}));
  EXPECT_EQ(frames(p->sub), (std::vector<std::string>{"pass: low edge", "pass: max uint32"}));

  // An index past a sequence's end makes its predicate false, and NOT of it true.
  ASSERT_EQ(set_filter(p->sub, "NOT name[1] = 'elbow'"), RMW_RET_OK);
  publish(p->pub, t, joint({0, 0, "one name", {"shoulder"}, {}}));
  publish(p->pub, t, joint({0, 0, "elbow", arm, {}}));
  EXPECT_EQ(frames(p->sub), std::vector<std::string>{"one name"});
}

TEST_F(RmwBatonContentFilter, signed_bytes_fixed_arrays_and_chars_compare_by_value) {
  RmwContext c(rmw_, "cft_nav");
  auto p = pair(c, nav_.type_support());
  ASSERT_TRUE(p->sub);
  const MessageDescription& t = type("sensor_msgs/msg/NavSatFix");
  const MessageDescription& status = *t.fields[1].nested;
  ASSERT_EQ(t.fields[1].name, "status");
  auto fix = [&](int8_t s, double cov8, uint8_t cov_type, double altitude) {
    Value v = default_value(t);
    v.at(t, "status").at(status, "status") = Value::of(s);
    double cov[9] = {0, 0, 0, 0, 0, 0, 0, 0, cov8};
    v.at(t, "position_covariance") = Value::of_array(std::span<const double>(cov));
    v.at(t, "position_covariance_type") = Value::of(cov_type);
    v.at(t, "altitude") = Value::of(altitude);
    return v;
  };
  ASSERT_EQ(set_filter(p->sub,
                       "status.status < 0 AND position_covariance[8] = 9 AND "
                       "position_covariance_type <> 2"),
            RMW_RET_OK);
  publish(p->pub, t, fix(-1, 9.0, 1, 1.0));    // pass
  publish(p->pub, t, fix(0, 9.0, 1, 2.0));     // status not negative
  publish(p->pub, t, fix(-1, 9.5, 1, 3.0));    // covariance
  publish(p->pub, t, fix(-1, 9.0, 2, 4.0));    // type 2
  publish(p->pub, t, fix(-128, 9.0, 0, 5.0));  // pass
  std::vector<double> altitudes;
  for (const Value& v : take_all(p->sub, t)) altitudes.push_back(v.at(t, "altitude").as<double>());
  EXPECT_EQ(altitudes, (std::vector<double>{1.0, 5.0}));
}

TEST_F(RmwBatonContentFilter, a_float32_field_equals_the_literal_it_was_published_as) {
  RmwContext c(rmw_, "cft_float32");
  test::WheelMessageType range_type("sensor_msgs", "Range");
  ASSERT_TRUE(range_type.loaded()) << ::dlerror();
  auto p = pair(c, range_type.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "range = %0 AND field_of_view < 0.1", {"3.14159"}), RMW_RET_OK);
  const MessageDescription& t = type("sensor_msgs/msg/Range");
  for (float range : {3.14159f, 3.1416f, 3.14159f}) {
    Value v = default_value(t);
    v.at(t, "range") = Value::of(range);
    publish(p->pub, t, v);
  }
  // Without rounding, 3.14159f (3.14159012...) would differ from the double 3.14159.
  std::vector<float> got;
  for (const Value& v : take_all(p->sub, t)) got.push_back(v.at(t, "range").as<float>());
  EXPECT_EQ(got, (std::vector<float>{3.14159f, 3.14159f}));
}

TEST_F(RmwBatonContentFilter, cpp_messages_are_filtered_as_c_ones) {
  RmwContext c(rmw_, "cft_cpp");
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_take);
  test::WheelCppTypeSupport ts("sensor_msgs", "JointState");
  ASSERT_TRUE(ts.loaded()) << ::dlerror();
  auto p = pair(c, ts.message());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "header.frame_id LIKE '%keep' AND velocity[1] >= %0", {"2"}),
            RMW_RET_OK);
  sensor_msgs::msg::JointState m;
  const std::vector<std::pair<const char*, double>> sent = {
      {"keep", 2.0}, {"drop", 3.0}, {"also keep", 9.0}, {"keep", 1.0}};
  for (const auto& [frame, v1] : sent) {
    m.header.frame_id = frame;
    m.velocity = {0.0, v1};
    ASSERT_EQ(rmw_publish(p->pub, &m, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  }
  std::vector<std::string> got;
  for (bool taken = true; taken;) {
    sensor_msgs::msg::JointState out;
    ASSERT_EQ(rmw_take(p->sub, &out, &taken, nullptr), RMW_RET_OK);
    if (taken) got.push_back(out.header.frame_id + " " + std::to_string(out.velocity.at(1)));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"keep 2.000000", "also keep 9.000000"}));
}

TEST_F(RmwBatonContentFilter, a_filter_given_at_creation_is_in_effect_from_the_first_sample) {
  RmwContext c(rmw_, "cft_create");
  RMW_FN(rmw_, rmw_create_subscription);
  RMW_FN(rmw_, rmw_get_default_subscription_options);
  RMW_FN(rmw_, rmw_get_zero_initialized_content_filter_options);
  RMW_FN(rmw_, rmw_subscription_content_filter_options_init);
  RMW_FN(rmw_, rmw_subscription_content_filter_options_fini);
  RMW_FN(rmw_, rcutils_get_default_allocator);
  rcutils_allocator_t alloc = rcutils_get_default_allocator();
  auto cft = rmw_get_zero_initialized_content_filter_options();
  const char* params[] = {"'b'"};
  ASSERT_EQ(rmw_subscription_content_filter_options_init("header.frame_id >= %0", 1, params, &alloc,
                                                         &cft),
            RMW_RET_OK);
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  options.content_filter_options = &cft;
  const rmw_qos_profile_t qos = test::test_qos(true, 100);
  auto* pub = test::create_publisher(rmw_, c, joint_.type_support(), topic_.c_str(), qos);
  rmw_subscription_t* sub =
      rmw_create_subscription(c.node, joint_.type_support(), topic_.c_str(), &qos, &options);
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  EXPECT_TRUE(sub->is_cft_enabled);
  for (const char* f : {"a", "b", "ab", "c"})
    publish(pub, type("sensor_msgs/msg/JointState"), joint({.frame = f}));
  EXPECT_EQ(frames(sub), (std::vector<std::string>{"b", "c"}));

  // A bad one fails the creation, with the reason.
  ASSERT_EQ(rmw_subscription_content_filter_options_fini(&cft, &alloc), RMW_RET_OK);
  ASSERT_EQ(
      rmw_subscription_content_filter_options_init("header.frame = 'a'", 0, nullptr, &alloc, &cft),
      RMW_RET_OK);
  EXPECT_EQ(rmw_create_subscription(c.node, joint_.type_support(), topic_.c_str(), &qos, &options),
            nullptr);
  EXPECT_NE(test::take_error(rmw_).find("has no member 'frame'"), std::string::npos);
  EXPECT_EQ(rmw_subscription_content_filter_options_fini(&cft, &alloc), RMW_RET_OK);
  test::destroy(rmw_, c, sub);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonContentFilter, corrupt_samples_never_crash_the_filter_and_reach_the_decoder) {
  RmwContext c(rmw_, "cft_corrupt");
  RMW_FN(rmw_, rmw_publish_serialized_message);
  RMW_FN(rmw_, rmw_take);
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  ASSERT_EQ(set_filter(p->sub, "name[2] = 'wrist' OR position[3] > 0 OR header.frame_id <> 'x'"),
            RMW_RET_OK);
  const MessageDescription& t = type("sensor_msgs/msg/JointState");
  auto valid = encode(t, joint({1, 2, "arm", {"a", "b", "wrist"}, {1, 2, 3, 4}}));
  ASSERT_TRUE(valid.has_value());
  std::mt19937 rng(22);
  void* msg = joint_.create();
  size_t handed_out = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> bytes = *valid;
    switch (i % 3) {
      case 0:  // flipped bytes
        for (int k = 0; k < 3; ++k) bytes[4 + rng() % (bytes.size() - 4)] ^= 1u << (rng() % 8);
        break;
      case 1:  // a huge length somewhere
        std::memset(&bytes[4 + (rng() % ((bytes.size() - 8) / 4)) * 4], 0xff, 4);
        break;
      default:  // truncated
        bytes.resize(4 + rng() % (bytes.size() - 4));
    }
    rmw_serialized_message_t m{};
    m.buffer = bytes.data();
    m.buffer_length = m.buffer_capacity = bytes.size();
    ASSERT_EQ(rmw_publish_serialized_message(p->pub, &m, nullptr), RMW_RET_OK);
    bool taken = false;
    ASSERT_EQ(rmw_take(p->sub, msg, &taken, nullptr), RMW_RET_OK);
    handed_out += taken ? 1 : 0;
  }
  joint_.destroy(msg);
  EXPECT_GT(handed_out, 0u);  // many corruptions leave a readable, matching sample
}

// Random and mutated expressions through rmw_subscription_set_content_filter: each is accepted
// or refused with an error (never a crash, under ASan in scripts/sanitize.sh), and every accepted
// one is evaluated on a published sample.
TEST_F(RmwBatonContentFilter, fuzzed_expressions_are_accepted_or_refused_never_crash) {
  RmwContext c(rmw_, "cft_fuzz");
  RMW_FN(rmw_, rmw_take);
  auto p = pair(c, joint_.type_support());
  ASSERT_TRUE(p->sub);
  const MessageDescription& t = type("sensor_msgs/msg/JointState");
  const Value sample = joint({5, 6, "arm", {"a", "b"}, {0.5, -1}});
  const std::vector<std::string> seeds = {
      "header.frame_id = 'arm'",
      "header.stamp.sec BETWEEN %0 AND %1 AND name[1] = 'b'",
      "NOT (position[0] > 0.25 OR velocity[3] <> -1e3) AND name[0] LIKE 'a%'",
      "header.stamp.nanosec NOT BETWEEN 0x1 AND 7 or effort[0] != %2",
      "(((header.stamp.sec = 5)))",
  };
  const std::vector<std::string> atoms = {
      "header", ".",    "stamp", "sec", "nanosec", "frame_id", "name",     "position", "[",
      "]",      "0",    "1",     "99",  "-1.5e3",  "0x1f",     "'",        "'a%_'",    "%0",
      "%1",     "%2",   "%99",   "%",   "(",       ")",        "=",        "<>",       "!=",
      "<",      "<=",   ">",     ">=",  "!",       "AND",      "OR",       "NOT",      "BETWEEN",
      "LIKE",   "TRUE", "false", " ",   "  ",      "\t",       "velocity", "effort",   "x",
      "\xff",   "1e",   ".5",    "-",   "+",       "#"};
  const char* params[] = {"5", "'b'", "-0.5"};
  std::mt19937 rng(2222);
  void* msg = joint_.create();
  size_t accepted = 0;
  constexpr int CASES = 100000;
  for (int i = 0; i < CASES; ++i) {
    std::string e;
    if (i % 2 == 0) {  // a seed mutated: bytes replaced, inserted, deleted, atoms spliced in
      e = seeds[rng() % seeds.size()];
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
        const size_t at = e.empty() ? 0 : rng() % e.size();
        switch (rng() % 4) {
          case 0:
            if (!e.empty()) e[at] = static_cast<char>(1 + rng() % 255);
            break;
          case 1:
            e.insert(at, atoms[rng() % atoms.size()]);
            break;
          case 2:
            if (!e.empty()) e.erase(at, 1 + rng() % 4);
            break;
          default:
            e.insert(at, e.substr(rng() % (e.size() + 1)));
        }
      }
    } else {  // atoms at random
      for (int k = 1 + static_cast<int>(rng() % 12); k > 0; --k)
        e += atoms[rng() % atoms.size()] + (rng() % 2 ? " " : "");
    }
    if (e.empty()) continue;
    const rmw_ret_t ret = set_filter(p->sub, e.c_str(), {params[0], params[1], params[2]});
    if (ret != RMW_RET_OK) {
      ASSERT_EQ(ret, RMW_RET_ERROR) << e;
      ASSERT_FALSE(test::take_error(rmw_).empty()) << e;
      continue;
    }
    ++accepted;
    if (accepted % 10 == 0) {  // evaluate it: the sample is handed out or consumed
      publish(p->pub, t, sample);
      bool taken = false;
      ASSERT_EQ(rmw_take(p->sub, msg, &taken, nullptr), RMW_RET_OK);
    }
  }
  joint_.destroy(msg);
  EXPECT_GT(accepted, 300u) << "the mutations hardly ever produce a valid expression";
}

}  // namespace
}  // namespace baton::ros2
#endif  // BATON_HAVE_RMW_HEADERS
