// rmw_baton_cpp's loaned messages (src/ros2/rmw/loan_layout.hpp), called through dlopen as rcl
// would, with the wheels' real C type supports: which types can be loaned, a loan published by
// one context and loaned in place by another (inside the baton mapping), the same sample read by
// rmw_take and by a native baton subscriber as ordinary CDR, aligned copies for samples that do
// not sit aligned, bad returns, and a subscriber killed while it holds a loan.
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rosidl_typesupport_introspection_c/field_types.h>
#include <rosidl_typesupport_introspection_c/message_introspection.h>
#include <signal.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "baton/shm/naming.hpp"
#include "baton/shm/segment.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "baton/topic/topic_layout.hpp"
#include "child_roles.hpp"
#include "rclpy_process.hpp"
#include "rmw_dlopen.hpp"
#include "rmw_endpoints.hpp"
#include "ros2_test_env.hpp"
#include "wheel_message_type.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;
using test::Rmw;
using test::RmwContext;

// geometry_msgs/msg/Point as its C type support lays it out.
struct PointC {
  double x, y, z;
};

// ---- hand-made introspection types: the same members, in two orders -----------------------
// Loose {double d; uint8 b} has 7 bytes of C tail padding that CDR does not have, so the member
// after it sits at C offset 16 but CDR offset 9: not loanable. Tight {uint8 b; double d} pads
// before d in C and in CDR alike: loanable.
struct Loose {
  double d;
  uint8_t b;
};
struct LooseOuter {
  Loose inner;
  uint8_t c;
};
struct Tight {
  uint8_t b;
  double d;
};
struct TightOuter {
  Tight inner;
  uint8_t c;
};

const rosidl_message_type_support_t* introspection_only(const rosidl_message_type_support_t* ts,
                                                        const char* id) {
  return std::strcmp(id, "rosidl_typesupport_introspection_c") == 0 ? ts : nullptr;
}

// One hand-made message type: members, their MessageMembers and the type support rcl would pass.
struct HandMadeType {
  std::vector<rosidl_typesupport_introspection_c__MessageMember> members;
  rosidl_typesupport_introspection_c__MessageMembers description{};
  rosidl_message_type_support_t ts{};

  HandMadeType(const char* name, size_t size) {
    description.message_namespace_ = "baton_test__msg";
    description.message_name_ = name;
    description.size_of_ = size;
    ts.typesupport_identifier = "rosidl_typesupport_introspection_c";
    ts.data = &description;
    ts.func = introspection_only;
  }
  void add(const char* name, uint8_t type_id, uint32_t offset,
           const rosidl_message_type_support_t* nested = nullptr) {
    rosidl_typesupport_introspection_c__MessageMember m{};
    m.name_ = name;
    m.type_id_ = type_id;
    m.offset_ = offset;
    m.members_ = nested;
    members.push_back(m);
    description.members_ = members.data();
    description.member_count_ = static_cast<uint32_t>(members.size());
  }
};

template <typename Inner, typename Outer>
struct HandMadePair {
  HandMadeType inner, outer;
  HandMadePair(const char* inner_name, const char* outer_name, bool double_first)
      : inner(inner_name, sizeof(Inner)), outer(outer_name, sizeof(Outer)) {
    if (double_first) {
      inner.add("d", rosidl_typesupport_introspection_c__ROS_TYPE_DOUBLE, offsetof(Loose, d));
      inner.add("b", rosidl_typesupport_introspection_c__ROS_TYPE_UINT8, offsetof(Loose, b));
    } else {
      inner.add("b", rosidl_typesupport_introspection_c__ROS_TYPE_UINT8, offsetof(Tight, b));
      inner.add("d", rosidl_typesupport_introspection_c__ROS_TYPE_DOUBLE, offsetof(Tight, d));
    }
    outer.add("inner", rosidl_typesupport_introspection_c__ROS_TYPE_MESSAGE, offsetof(Outer, inner),
              &inner.ts);
    outer.add("c", rosidl_typesupport_introspection_c__ROS_TYPE_UINT8, offsetof(Outer, c));
  }
};

// The TypeInfo of an existing baton topic, read from its directory: what a native baton endpoint
// must present to join a topic an rmw endpoint made.
topic::TypeInfo type_of_existing_topic(const std::string& name) {
  topic::TypeInfo type;
  auto seg = shm::Segment::open(shm::segment_name("t", name), shm::SegmentKind::Topic, 0);
  EXPECT_TRUE(seg.has_value()) << name;
  if (!seg) return type;
  const auto* h = seg->at<topic::TopicHeader>(topic::TopicSegmentLayout::header_offset);
  type.name.assign(h->type_name, strnlen(h->type_name, topic::TYPE_NAME_CAPACITY));
  std::memcpy(type.hash.data(), h->type_hash, 32);
  return type;
}

// A Point sample as CDR: encapsulation 00 01 00 00, then x, y, z (little endian, 8-aligned).
std::vector<uint8_t> point_cdr(const PointC& p) {
  std::vector<uint8_t> out = {0x00, 0x01, 0x00, 0x00};
  out.resize(4 + sizeof p);
  std::memcpy(out.data() + 4, &p, sizeof p);
  return out;
}

class RmwBatonLoan : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(string_.loaded()) << ::dlerror();
  }

  // Borrows a Point on `pub`, fills it, publishes it loaned; the rmw result.
  rmw_ret_t publish_loaned_point(rmw_publisher_t* pub, const PointC& value) {
    RMW_FN(rmw_, rmw_borrow_loaned_message);
    RMW_FN(rmw_, rmw_publish_loaned_message);
    void* msg = nullptr;
    const rmw_ret_t b = rmw_borrow_loaned_message(pub, point_.type_support(), &msg);
    if (b != RMW_RET_OK) return b;
    *static_cast<PointC*>(msg) = value;
    return rmw_publish_loaned_message(pub, msg, nullptr);
  }
  // Waits for and takes one loaned message on `sub` (null if none came).
  void* take_loaned(RmwContext& c, rmw_subscription_t* sub, rmw_message_info_t* info = nullptr) {
    RMW_FN(rmw_, rmw_take_loaned_message_with_info);
    rmw_message_info_t ignored{};
    for (int attempt = 0; attempt < 30; ++attempt) {
      void* msg = nullptr;
      bool taken = false;
      EXPECT_EQ(rmw_take_loaned_message_with_info(sub, &msg, &taken,
                                                  info != nullptr ? info : &ignored, nullptr),
                RMW_RET_OK)
          << test::take_error(rmw_);
      if (taken) return msg;
      test::wait_for_subscription(rmw_, c, sub, 1);
    }
    return nullptr;
  }

  test::WheelMessageType string_{"std_msgs", "String"};
};

TEST_F(RmwBatonLoan, loan_functions_on_a_type_that_is_not_loanable_return_unsupported) {
  RmwContext c(rmw_, "loan_string");
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  RMW_FN(rmw_, rmw_take_loaned_message);
  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  auto* pub = test::create_publisher(rmw_, c, string_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* sub = test::create_subscription(rmw_, c, string_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_TRUE(pub != nullptr && sub != nullptr) << test::take_error(rmw_);
  EXPECT_FALSE(pub->can_loan_messages);
  EXPECT_FALSE(sub->can_loan_messages);
  void* msg = nullptr;
  EXPECT_EQ(rmw_borrow_loaned_message(pub, string_.type_support(), &msg), RMW_RET_UNSUPPORTED);
  EXPECT_NE(test::take_error(rmw_).find("std_msgs/msg/String.data is a string"), std::string::npos);
  bool taken = true;
  EXPECT_EQ(rmw_take_loaned_message(sub, &msg, &taken, nullptr), RMW_RET_UNSUPPORTED);
  EXPECT_FALSE(taken);
  EXPECT_EQ(msg, nullptr);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_destroy_subscription(c.node, sub), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
}

TEST_F(RmwBatonLoan, loanable_exactly_when_the_c_layout_is_the_cdr_layout) {
  RmwContext c(rmw_, "loan_decision");
  RMW_FN(rmw_, rmw_destroy_publisher);
  struct Case {
    const char* package;
    const char* name;
    bool loanable;
  };
  const Case cases[] = {
      {"geometry_msgs", "Point", true},
      {"builtin_interfaces", "Time", true},
      {"geometry_msgs", "Pose", true},                // nested structs
      {"geometry_msgs", "PoseWithCovariance", true},  // + double[36]
      {"sensor_msgs", "NavSatStatus", true},          // int8 then uint16: padded alike
      {"std_msgs", "Bool", true},                     // bool: checked, but same layout
      {"std_msgs", "String", false},                  // string
      {"std_msgs", "Header", false},                  // string frame_id after Time
      {"sensor_msgs", "JointState", false},           // sequences
  };
  for (const Case& k : cases) {
    test::WheelMessageType type(k.package, k.name);
    ASSERT_TRUE(type.loaded()) << k.package << "/" << k.name;
    const std::string topic = topic_ + "/" + k.name;
    auto* pub = test::create_publisher(rmw_, c, type.type_support(), topic.c_str(),
                                       test::test_qos(true, 10));
    ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
    EXPECT_EQ(pub->can_loan_messages, k.loanable) << k.package << "/" << k.name;
    EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
  }
  // Same members, two orders: C tail padding of a nested struct that CDR does not have.
  HandMadePair<Loose, LooseOuter> loose("Loose", "LooseOuter", /*double_first=*/true);
  HandMadePair<Tight, TightOuter> tight("Tight", "TightOuter", /*double_first=*/false);
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  for (auto* t : {&loose.outer, &tight.outer}) {
    const std::string topic = topic_ + "/" + t->description.message_name_;
    auto* pub = test::create_publisher(rmw_, c, &t->ts, topic.c_str(), test::test_qos(true, 10));
    ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
    EXPECT_EQ(pub->can_loan_messages, t == &tight.outer) << t->description.message_name_;
    if (t == &loose.outer) {
      void* msg = nullptr;
      EXPECT_EQ(rmw_borrow_loaned_message(pub, &t->ts, &msg), RMW_RET_UNSUPPORTED);
      EXPECT_NE(test::take_error(rmw_).find("LooseOuter.c is at C offset 16 but CDR offset 9"),
                std::string::npos);
    }
    EXPECT_EQ(rmw_destroy_publisher(c.node, pub), RMW_RET_OK);
  }
}

TEST_F(RmwBatonLoan, loaned_publish_is_loaned_in_place_by_another_context_and_read_as_cdr) {
  RmwContext a(rmw_, "loan_talker");
  RmwContext b(rmw_, "loan_listener");
  RMW_FN(rmw_, rmw_take);
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  RMW_FN(rmw_, rmw_return_loaned_message_from_publisher);
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  auto* pub = test::create_publisher(rmw_, a, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* loaning = test::create_subscription(rmw_, b, point_.type_support(), topic_.c_str(),
                                            test::test_qos(true, 10));
  auto* copying = test::create_subscription(rmw_, b, point_.type_support(), topic_.c_str(),
                                            test::test_qos(true, 10));
  ASSERT_TRUE(pub && loaning && copying) << test::take_error(rmw_);
  EXPECT_TRUE(pub->can_loan_messages);
  EXPECT_TRUE(loaning->can_loan_messages);
  // A native baton subscriber on the same topic: it must see an ordinary CDR sample.
  auto native_topic = topic::Topic::open_or_create(topic_, type_of_existing_topic(topic_));
  ASSERT_TRUE(native_topic.has_value()) << native_topic.error().detail;
  auto native = topic::SubscriberPort::create(*native_topic, {});
  ASSERT_TRUE(native.has_value());

  const PointC sent{1.5, -2.25, 1e300};
  ASSERT_EQ(publish_loaned_point(pub, sent), RMW_RET_OK) << test::take_error(rmw_);

  rmw_message_info_t info{};
  void* msg = take_loaned(b, loaning, &info);
  ASSERT_NE(msg, nullptr);
  EXPECT_TRUE(test::in_baton_mapping(msg)) << "not zero-copy: " << msg;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(msg) % alignof(PointC), 0u);
  EXPECT_EQ(std::memcmp(msg, &sent, sizeof sent), 0);
  EXPECT_EQ(info.publication_sequence_number, 0u);

  PointC copied{};
  bool taken = false;
  ASSERT_TRUE(test::wait_for_subscription(rmw_, b, copying, 30));
  ASSERT_EQ(rmw_take(copying, &copied, &taken, nullptr), RMW_RET_OK);
  ASSERT_TRUE(taken);
  EXPECT_EQ(std::memcmp(&copied, &sent, sizeof sent), 0);

  ASSERT_TRUE((*native)->wait(30s));
  auto sample = (*native)->take();
  ASSERT_TRUE(sample.has_value());
  const auto cdr = point_cdr(sent);
  ASSERT_EQ(sample->size(), cdr.size());  // no padding, no offset: plain CDR
  EXPECT_EQ(std::memcmp(sample->data(), cdr.data(), cdr.size()), 0);

  // Returns: the loan once; twice, or a pointer that was never a loan, is RMW_RET_ERROR (rmw.h
  // keeps INVALID_ARGUMENT for null arguments), never a crash.
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(loaning, msg), RMW_RET_OK);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(loaning, msg), RMW_RET_ERROR);
  EXPECT_NE(test::take_error(rmw_).find("already returned"), std::string::npos);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(loaning, &copied), RMW_RET_ERROR);
  test::take_error(rmw_);
  void* unpublished = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(pub, point_.type_support(), &unpublished), RMW_RET_OK);
  EXPECT_EQ(rmw_return_loaned_message_from_publisher(pub, &copied), RMW_RET_ERROR);
  test::take_error(rmw_);
  EXPECT_EQ(rmw_return_loaned_message_from_publisher(pub, unpublished), RMW_RET_OK);
  EXPECT_EQ(rmw_return_loaned_message_from_publisher(pub, unpublished), RMW_RET_ERROR);
  test::take_error(rmw_);
  // A loaned message of another type support is refused at borrow.
  void* wrong = nullptr;
  EXPECT_EQ(rmw_borrow_loaned_message(pub, string_.type_support(), &wrong),
            RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);

  RMW_FN(rmw_, rmw_destroy_publisher);
  RMW_FN(rmw_, rmw_destroy_subscription);
  EXPECT_EQ(rmw_destroy_subscription(b.node, copying), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_subscription(b.node, loaning), RMW_RET_OK);
  EXPECT_EQ(rmw_destroy_publisher(a.node, pub), RMW_RET_OK);
}

TEST_F(RmwBatonLoan, ordinary_publish_of_a_loanable_type_is_loaned_in_place_too) {
  RmwContext c(rmw_, "loan_plain");
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  const PointC sent{3, 4, 5};
  ASSERT_EQ(rmw_publish(pub, &sent, nullptr), RMW_RET_OK) << test::take_error(rmw_);
  void* msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  EXPECT_TRUE(test::in_baton_mapping(msg));
  EXPECT_EQ(std::memcmp(msg, &sent, sizeof sent), 0);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);
  test::destroy(rmw_, c, sub);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonLoan, sample_that_is_not_aligned_is_loaned_as_an_aligned_copy) {
  RmwContext c(rmw_, "loan_native");
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
  // A native baton publisher writes plain CDR at the chunk's start: the struct is at chunk + 4.
  auto t = topic::Topic::open_or_create(topic_, type_of_existing_topic(topic_));
  ASSERT_TRUE(t.has_value());
  auto native = topic::PublisherPort::create(*t, {});
  ASSERT_TRUE(native.has_value());
  const PointC sent{-1, 0.5, 42};
  const auto cdr = point_cdr(sent);
  auto loan = (*native)->loan(cdr.size());
  ASSERT_TRUE(loan.has_value());
  std::memcpy(loan->data, cdr.data(), cdr.size());
  ASSERT_TRUE((*native)->publish(*loan, cdr.size()));
  void* msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  EXPECT_FALSE(test::in_baton_mapping(msg)) << "a misaligned struct was handed out in place";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(msg) % alignof(PointC), 0u);
  EXPECT_EQ(std::memcmp(msg, &sent, sizeof sent), 0);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);
  test::destroy(rmw_, c, sub);
}

// The member `name` of a message laid out by `type` (aborts the test if missing).
const rosidl_typesupport_introspection_c__MessageMember& member(
    const rosidl_message_type_support_t* type, const char* name) {
  const auto* d =
      static_cast<const rosidl_typesupport_introspection_c__MessageMembers*>(type->data);
  for (uint32_t i = 0; i < d->member_count_; ++i)
    if (std::strcmp(d->members_[i].name_, name) == 0) return d->members_[i];
  ADD_FAILURE() << "no member " << name;
  std::abort();
}

// The generic layout of a rosidl C sequence.
struct SequenceC {
  void* data;
  size_t size, capacity;
};

// A variable-size type with a large primitive sequence (sensor_msgs/Image) cannot be loaned in
// place as a whole, but a subscription loans it as a private C struct whose `data` points into
// the chunk (the pixels are not copied); returning the loan gives the chunk back and frees the
// struct. A sample whose `data` length points past its end is dropped, never viewed.
TEST_F(RmwBatonLoan, image_is_loaned_with_its_data_pointing_into_the_chunk) {
  test::WheelMessageType image("sensor_msgs", "Image");
  ASSERT_TRUE(image.loaded()) << ::dlerror();
  const auto* intro = image.introspection();
  RmwContext c(rmw_, "loan_image");
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  auto* pub = test::create_publisher(rmw_, c, image.type_support(), topic_.c_str(),
                                     test::test_qos(true, 10));
  auto* sub = test::create_subscription(rmw_, c, image.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  EXPECT_FALSE(pub->can_loan_messages);  // publishers loan fixed-size types only
  EXPECT_TRUE(sub->can_loan_messages);
  void* refused = nullptr;
  EXPECT_EQ(rmw_borrow_loaned_message(pub, image.type_support(), &refused), RMW_RET_UNSUPPORTED);
  test::take_error(rmw_);

  // A 640x480 image, published by rmw_publish from rclpy's C struct.
  constexpr uint32_t W = 640, H = 480;
  void* sent = image.create();
  const auto& data_m = member(intro, "data");
  ASSERT_TRUE(data_m.resize_function(static_cast<uint8_t*>(sent) + data_m.offset_, W * H * 3));
  auto* sent_data = reinterpret_cast<SequenceC*>(static_cast<uint8_t*>(sent) + data_m.offset_);
  for (size_t i = 0; i < sent_data->size; ++i)
    static_cast<uint8_t*>(sent_data->data)[i] = static_cast<uint8_t>(i * 7 + 13);
  std::memcpy(static_cast<uint8_t*>(sent) + member(intro, "width").offset_, &W, 4);
  std::memcpy(static_cast<uint8_t*>(sent) + member(intro, "height").offset_, &H, 4);
  ASSERT_EQ(rmw_publish(pub, sent, nullptr), RMW_RET_OK) << test::take_error(rmw_);

  void* msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  EXPECT_FALSE(test::in_baton_mapping(msg));  // the struct itself is private memory
  const auto* got = reinterpret_cast<const SequenceC*>(static_cast<uint8_t*>(msg) + data_m.offset_);
  ASSERT_EQ(got->size, size_t{W} * H * 3);
  EXPECT_TRUE(test::in_baton_mapping(got->data)) << "the pixels were copied: " << got->data;
  EXPECT_TRUE(test::in_baton_mapping(static_cast<const uint8_t*>(got->data) + got->size - 1));
  EXPECT_EQ(std::memcmp(got->data, sent_data->data, got->size), 0);
  uint32_t width = 0;
  std::memcpy(&width, static_cast<uint8_t*>(msg) + member(intro, "width").offset_, 4);
  EXPECT_EQ(width, W);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_ERROR);
  test::take_error(rmw_);

  // A native publisher's sample whose `data` length (the 4 bytes before the pixels, `data` being
  // the last field) says one byte more than the sample holds: dropped; the good one after it is
  // loaned.
  auto t = topic::Topic::open_or_create(topic_, type_of_existing_topic(topic_));
  ASSERT_TRUE(t.has_value());
  auto native = topic::PublisherPort::create(*t, {});
  ASSERT_TRUE(native.has_value());
  std::vector<uint8_t> cdr(1024);
  size_t size = 0;
  {
    RMW_FN(rmw_, rmw_serialize);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    rmw_serialized_message_t ser{cdr.data(), 0, cdr.size(), rcutils_get_default_allocator()};
    sent_data->size = 64;  // a small image is enough here
    ASSERT_EQ(rmw_serialize(sent, image.type_support(), &ser), RMW_RET_OK);
    size = ser.buffer_length;
  }
  for (uint32_t len : {65u, 0x7fffffffu}) {
    std::vector<uint8_t> bad(cdr.begin(), cdr.begin() + size);
    std::memcpy(bad.data() + size - 64 - 4, &len, 4);
    auto loan = (*native)->loan(bad.size());
    ASSERT_TRUE(loan.has_value());
    std::memcpy(loan->data, bad.data(), bad.size());
    ASSERT_TRUE((*native)->publish(*loan, bad.size()));
  }
  auto loan = (*native)->loan(size);
  ASSERT_TRUE(loan.has_value());
  std::memcpy(loan->data, cdr.data(), size);
  ASSERT_TRUE((*native)->publish(*loan, size));
  msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  got = reinterpret_cast<const SequenceC*>(static_cast<uint8_t*>(msg) + data_m.offset_);
  EXPECT_EQ(got->size, 64u);
  EXPECT_EQ(std::memcmp(got->data, sent_data->data, 64), 0);
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);

  sent_data->size = size_t{W} * H * 3;  // as allocated, for destroy
  image.destroy(sent);
  test::destroy(rmw_, c, sub);
  test::destroy(rmw_, c, pub);
}

TEST_F(RmwBatonLoan, malformed_sample_is_dropped_and_the_next_one_loaned) {
  RmwContext c(rmw_, "loan_malformed");
  test::WheelMessageType bool_type("std_msgs", "Bool");
  ASSERT_TRUE(bool_type.loaded());
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  auto* sub = test::create_subscription(rmw_, c, bool_type.type_support(), topic_.c_str(),
                                        test::test_qos(true, 10));
  ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
  ASSERT_TRUE(sub->can_loan_messages);
  auto t = topic::Topic::open_or_create(topic_, type_of_existing_topic(topic_));
  ASSERT_TRUE(t.has_value());
  auto native = topic::PublisherPort::create(*t, {});
  ASSERT_TRUE(native.has_value());
  // A hostile publisher: a bool of 2, a sample too short, a big-endian header; then a good one,
  // each at the offset an rmw publisher uses (so the in-place path is the one checked).
  const std::vector<std::vector<uint8_t>> samples = {{0x00, 0x01, 0x00, 0x00, 0x02},
                                                     {0x00, 0x01, 0x00, 0x00},
                                                     {0x00, 0x00, 0x00, 0x00, 0x01},
                                                     {0x00, 0x01, 0x00, 0x00, 0x01}};
  for (const auto& s : samples) {
    auto loan = (*native)->loan(4 + s.size());
    ASSERT_TRUE(loan.has_value());
    std::memcpy(loan->data + 4, s.data(), s.size());
    ASSERT_TRUE((*native)->publish(*loan, s.size(), 4));
  }
  void* msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  EXPECT_EQ(*static_cast<const uint8_t*>(msg), 1);  // the good one; the three bad ones dropped
  EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);
  test::destroy(rmw_, c, sub);
}

// A borrowed message is not zeroed (a 4K frame's memset would cost more than the exchange):
// fields keep what a reused chunk held, as Fast DDS's loans, but bools are zeroed so that a
// message published as borrowed is never refused as malformed.
TEST_F(RmwBatonLoan, reused_loan_keeps_its_bytes_but_not_an_invalid_bool) {
  RmwContext c(rmw_, "loan_reuse");
  test::WheelMessageType bool_type("std_msgs", "Bool");
  ASSERT_TRUE(bool_type.loaded());
  RMW_FN(rmw_, rmw_borrow_loaned_message);
  RMW_FN(rmw_, rmw_return_loaned_message_from_publisher);
  RMW_FN(rmw_, rmw_publish_loaned_message);
  auto* bool_pub = test::create_publisher(rmw_, c, bool_type.type_support(), topic_.c_str(),
                                          test::test_qos(true, 10));
  ASSERT_NE(bool_pub, nullptr) << test::take_error(rmw_);
  void* first = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(bool_pub, bool_type.type_support(), &first), RMW_RET_OK);
  *static_cast<uint8_t*>(first) = 7;  // what a scribbling process could leave in the chunk
  ASSERT_EQ(rmw_return_loaned_message_from_publisher(bool_pub, first), RMW_RET_OK);
  void* again = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(bool_pub, bool_type.type_support(), &again), RMW_RET_OK);
  ASSERT_EQ(again, first);  // the chunk just returned: the case under test
  EXPECT_EQ(*static_cast<const uint8_t*>(again), 0);
  EXPECT_EQ(rmw_publish_loaned_message(bool_pub, again, nullptr), RMW_RET_OK)
      << test::take_error(rmw_);

  // A Point's doubles keep the returned chunk's bytes (no pass over the message).
  const std::string point_topic = topic_ + "_point";
  auto* pub = test::create_publisher(rmw_, c, point_.type_support(), point_topic.c_str(),
                                     test::test_qos(true, 10));
  ASSERT_NE(pub, nullptr) << test::take_error(rmw_);
  first = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(pub, point_.type_support(), &first), RMW_RET_OK);
  *static_cast<PointC*>(first) = PointC{1.5, 2.5, 3.5};
  ASSERT_EQ(rmw_return_loaned_message_from_publisher(pub, first), RMW_RET_OK);
  again = nullptr;
  ASSERT_EQ(rmw_borrow_loaned_message(pub, point_.type_support(), &again), RMW_RET_OK);
  ASSERT_EQ(again, first);
  EXPECT_EQ(static_cast<const PointC*>(again)->y, 2.5);
  EXPECT_EQ(rmw_return_loaned_message_from_publisher(pub, again), RMW_RET_OK);
  test::destroy(rmw_, c, pub);
  test::destroy(rmw_, c, bool_pub);
}

// ---- a subscriber process killed while it holds a loan -----------------------------------------

// Reliable + keep-all: the one QoS where a baton publisher waits for a subscriber's queue
// (qos_map.hpp), so a dead subscriber that is not reclaimed would stop it.
rmw_qos_profile_t reliable_keep_all() {
  rmw_qos_profile_t q = test::test_qos(true, 1);
  q.history = RMW_QOS_POLICY_HISTORY_KEEP_ALL;
  return q;
}

// Child role: a reliable keep-all Point subscription on BATON_LOAN_CHILD_TOPIC that takes one
// loaned message, says "holding", and keeps it (and reads nothing more) until it is killed.
BATON_CHILD_TEST_F(RmwBatonLoan, subscriber_holding_a_loan) {
  const char* topic = std::getenv("BATON_LOAN_CHILD_TOPIC");
  ASSERT_NE(topic, nullptr) << "BATON_LOAN_CHILD_TOPIC names the topic";
  RmwContext c(rmw_, "loan_child");
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic, reliable_keep_all());
  ASSERT_NE(sub, nullptr) << test::take_error(rmw_);
  std::printf("ready\n");
  std::fflush(stdout);
  void* msg = take_loaned(c, sub);
  ASSERT_NE(msg, nullptr);
  std::printf("holding %s\n", test::in_baton_mapping(msg) ? "in place" : "a copy");
  std::fflush(stdout);
  std::this_thread::sleep_for(120s);  // killed long before
  test::destroy(rmw_, c, sub);
}

TEST_F(RmwBatonLoan, subscriber_killed_holding_a_loan_stops_nothing_and_loses_nothing) {
  RmwContext c(rmw_, "loan_survivor");
  RMW_FN(rmw_, rmw_publisher_count_matched_subscriptions);
  RMW_FN(rmw_, rmw_return_loaned_message_from_subscription);
  auto* pub =
      test::create_publisher(rmw_, c, point_.type_support(), topic_.c_str(), reliable_keep_all());
  auto* sub = test::create_subscription(rmw_, c, point_.type_support(), topic_.c_str(),
                                        reliable_keep_all());
  ASSERT_TRUE(pub && sub) << test::take_error(rmw_);
  test::RclpyProcess child(test::RclpyProcess::ChildRole{"subscriber_holding_a_loan"},
                           {{"BATON_LOAN_CHILD_TOPIC", topic_}});
  ASSERT_TRUE(child.wait_for_output("ready", 60s)) << child.output();
  ASSERT_EQ(publish_loaned_point(pub, {0, 0, 0}), RMW_RET_OK) << test::take_error(rmw_);
  ASSERT_TRUE(child.wait_for_output("holding in place", 60s)) << child.output();
  ::kill(child.pid(), SIGKILL);
  ASSERT_TRUE(child.wait_exit(60s));

  // More than the dead subscriber's queue holds (KEEP_ALL_DEPTH = 1000 unread): the publisher
  // must reclaim it (and the chunk it held) to go on. Our subscription reads each as it comes.
  constexpr int N = 1100;
  for (int i = 0; i <= N; ++i) {
    if (i > 0) {
      ASSERT_EQ(publish_loaned_point(pub, {double(i), 0, 0}), RMW_RET_OK)
          << "message " << i << ": " << test::take_error(rmw_);
    }
    void* msg = take_loaned(c, sub);
    ASSERT_NE(msg, nullptr) << "message " << i;
    EXPECT_EQ(static_cast<PointC*>(msg)->x, double(i));
    EXPECT_EQ(rmw_return_loaned_message_from_subscription(sub, msg), RMW_RET_OK);
  }
  size_t matched = 0;
  ASSERT_EQ(rmw_publisher_count_matched_subscriptions(pub, &matched), RMW_RET_OK);
  EXPECT_EQ(matched, 1u);  // the dead one was reclaimed on the way
  test::destroy(rmw_, c, sub);
  test::destroy(rmw_, c, pub);
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
