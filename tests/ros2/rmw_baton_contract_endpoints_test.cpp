// The rmw contract of publishers, subscriptions, services and clients at creation, as
// rmw/rmw.h documents it: a topic or service name that rmw_validate_full_topic_name refuses
// (unless the QoS avoids ROS namespace conventions) and a QoS profile that is not fully
// specified (an UNKNOWN or out-of-range policy) make the create function return null, with an
// error naming the function and the problem. Called through dlopen, as rcl calls them.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rmw/qos_profiles.h>
#include <rmw/rmw.h>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

class RmwBatonContractEndpoints : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    service_ts_ = test::get_parameters_type_support();
    ASSERT_NE(service_ts_, nullptr) << ::dlerror();
    ctx_ = std::make_unique<test::RmwContext>(rmw_, "endpoints_node");
  }
  void TearDown() override {
    ctx_.reset();
    RmwLocalTest::TearDown();
  }

  // One create function per endpoint kind: (name, qos) -> whether a handle was made (it is
  // destroyed at once).
  using Maker = std::function<bool(const char*, const rmw_qos_profile_t&)>;
  std::vector<std::pair<const char*, Maker>> makers() {
    RMW_FN(rmw_, rmw_create_service);
    RMW_FN(rmw_, rmw_create_client);
    RMW_FN(rmw_, rmw_destroy_service);
    RMW_FN(rmw_, rmw_destroy_client);
    return {
        {"rmw_create_publisher",
         [this](const char* name, const rmw_qos_profile_t& q) {
           rmw_publisher_t* p = test::create_publisher(rmw_, *ctx_, point_.type_support(), name, q);
           test::destroy(rmw_, *ctx_, p);
           return p != nullptr;
         }},
        {"rmw_create_subscription",
         [this](const char* name, const rmw_qos_profile_t& q) {
           rmw_subscription_t* s =
               test::create_subscription(rmw_, *ctx_, point_.type_support(), name, q);
           test::destroy(rmw_, *ctx_, s);
           return s != nullptr;
         }},
        {"rmw_create_service",
         [=, this](const char* name, const rmw_qos_profile_t& q) {
           rmw_service_t* s = rmw_create_service(ctx_->node, service_ts_, name, &q);
           if (s != nullptr) {
             EXPECT_EQ(rmw_destroy_service(ctx_->node, s), RMW_RET_OK);
           }
           return s != nullptr;
         }},
        {"rmw_create_client",
         [=, this](const char* name, const rmw_qos_profile_t& q) {
           rmw_client_t* c = rmw_create_client(ctx_->node, service_ts_, name, &q);
           if (c != nullptr) {
             EXPECT_EQ(rmw_destroy_client(ctx_->node, c), RMW_RET_OK);
           }
           return c != nullptr;
         }},
    };
  }

  const rosidl_service_type_support_t* service_ts_ = nullptr;
  std::unique_ptr<test::RmwContext> ctx_;
};

TEST_F(RmwBatonContractEndpoints, create_with_an_invalid_topic_name_returns_null_and_names_it) {
  const rmw_qos_profile_t qos = test::test_qos(true, 4);
  for (auto& [function, make] : makers()) {
    for (const char* name : {"relative", "/trailing/", "/has space", "/a//b", "/1digit", ""}) {
      EXPECT_FALSE(make(name, qos)) << function << " '" << name << "'";
      const std::string error = test::take_error(rmw_);
      EXPECT_NE(error.find(function), std::string::npos) << error;
      EXPECT_NE(error.find("'" + std::string(name) + "' is invalid"), std::string::npos) << error;
    }
    EXPECT_TRUE(make((topic_ + "_valid").c_str(), qos)) << function << test::take_error(rmw_);
  }
}

TEST_F(RmwBatonContractEndpoints, create_with_a_null_name_returns_null) {
  const rmw_qos_profile_t qos = test::test_qos(true, 4);
  for (auto& [function, make] : makers()) {
    EXPECT_FALSE(make(nullptr, qos)) << function;
    EXPECT_NE(test::take_error(rmw_).find("name is null"), std::string::npos) << function;
  }
}

TEST_F(RmwBatonContractEndpoints, create_with_an_unknown_qos_policy_returns_null_and_names_it) {
  // Each policy UNKNOWN, then out of the enum's range: not a fully specified profile.
  std::vector<std::pair<const char*, rmw_qos_profile_t>> profiles;
  auto with = [&](const char* policy, auto set) {
    rmw_qos_profile_t q = test::test_qos(true, 4);
    set(q);
    profiles.emplace_back(policy, q);
  };
  with("history", [](auto& q) { q.history = RMW_QOS_POLICY_HISTORY_UNKNOWN; });
  with("reliability", [](auto& q) { q.reliability = RMW_QOS_POLICY_RELIABILITY_UNKNOWN; });
  with("durability", [](auto& q) { q.durability = RMW_QOS_POLICY_DURABILITY_UNKNOWN; });
  with("liveliness", [](auto& q) { q.liveliness = RMW_QOS_POLICY_LIVELINESS_UNKNOWN; });
  // Out of range as C code can store it (C enums are ints; a C++ cast would be undefined).
  auto out_of_range = [](auto& field) {
    const int value = 99;
    std::memcpy(&field, &value, sizeof value);
  };
  with("history", [&](auto& q) { out_of_range(q.history); });
  with("reliability", [&](auto& q) { out_of_range(q.reliability); });
  with("durability", [&](auto& q) { out_of_range(q.durability); });
  with("liveliness", [&](auto& q) { out_of_range(q.liveliness); });
  for (auto& [function, make] : makers()) {
    for (const auto& [policy, q] : profiles) {
      EXPECT_FALSE(make(topic_.c_str(), q)) << function << " " << policy;
      const std::string error = test::take_error(rmw_);
      EXPECT_NE(error.find(function), std::string::npos) << error;
      EXPECT_NE(error.find(std::string("QoS ") + policy + " policy"), std::string::npos) << error;
    }
  }
}

TEST_F(RmwBatonContractEndpoints, create_with_system_default_and_best_available_policies_succeeds) {
  rmw_qos_profile_t q = rmw_qos_profile_system_default;
  rmw_qos_profile_t best = rmw_qos_profile_best_available;
  for (auto& [function, make] : makers()) {
    EXPECT_TRUE(make(topic_.c_str(), q)) << function << test::take_error(rmw_);
    EXPECT_TRUE(make(topic_.c_str(), best)) << function << test::take_error(rmw_);
  }
}

TEST_F(RmwBatonContractEndpoints, create_with_a_null_qos_returns_null) {
  RMW_FN(rmw_, rmw_create_publisher);
  RMW_FN(rmw_, rmw_get_default_publisher_options);
  const rmw_publisher_options_t options = rmw_get_default_publisher_options();
  EXPECT_EQ(
      rmw_create_publisher(ctx_->node, point_.type_support(), topic_.c_str(), nullptr, &options),
      nullptr);
  EXPECT_NE(test::take_error(rmw_).find("QoS profile is null"), std::string::npos);
}

// rmw/types.h: with ignore_local_publications the middleware does not deliver data from local
// publishers, "local" meaning in the same context.
TEST_F(RmwBatonContractEndpoints,
       subscription_ignoring_local_publications_takes_only_other_contexts_messages) {
  RMW_FN(rmw_, rmw_create_subscription);
  RMW_FN(rmw_, rmw_get_default_subscription_options);
  RMW_FN(rmw_, rmw_publish);
  RMW_FN(rmw_, rmw_take);
  test::RmwContext other(rmw_, "other_context_node");
  const rmw_qos_profile_t qos = test::test_qos(true, 8);
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  options.ignore_local_publications = true;
  rmw_subscription_t* ignoring =
      rmw_create_subscription(ctx_->node, point_.type_support(), topic_.c_str(), &qos, &options);
  rmw_subscription_t* all =
      test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(), qos);
  rmw_publisher_t* local =
      test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(), qos);
  rmw_publisher_t* remote =
      test::create_publisher(rmw_, other, point_.type_support(), topic_.c_str(), qos);
  ASSERT_NE(ignoring, nullptr);
  ASSERT_NE(all, nullptr);
  ASSERT_NE(local, nullptr);
  ASSERT_NE(remote, nullptr);
  void* msg = point_.create();
  auto* xyz = static_cast<double*>(msg);  // geometry_msgs__msg__Point: x, y, z
  auto take_x = [&](rmw_subscription_t* sub) -> std::optional<double> {
    bool taken = false;
    xyz[0] = -1;
    EXPECT_EQ(rmw_take(sub, msg, &taken, nullptr), RMW_RET_OK);
    return taken ? std::optional<double>(xyz[0]) : std::nullopt;
  };

  xyz[0] = 1;
  ASSERT_EQ(rmw_publish(local, msg, nullptr), RMW_RET_OK);
  ASSERT_TRUE(test::wait_for_subscription(rmw_, *ctx_, all, 5));
  EXPECT_EQ(take_x(all), 1.0);                // delivered: the other subscription has it
  EXPECT_EQ(take_x(ignoring), std::nullopt);  // ... but not to the one ignoring its own context

  xyz[0] = 2;
  ASSERT_EQ(rmw_publish(remote, msg, nullptr), RMW_RET_OK);
  ASSERT_TRUE(test::wait_for_subscription(rmw_, *ctx_, ignoring, 5));
  EXPECT_EQ(take_x(ignoring), 2.0);
  EXPECT_EQ(take_x(ignoring), std::nullopt);
  EXPECT_EQ(take_x(all), 2.0);

  point_.destroy(msg);
  test::destroy(rmw_, other, remote);
  test::destroy(rmw_, *ctx_, local);
  test::destroy(rmw_, *ctx_, all);
  test::destroy(rmw_, *ctx_, ignoring);
}

}  // namespace
}  // namespace baton::ros2
