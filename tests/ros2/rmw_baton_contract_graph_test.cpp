// The argument checks of the rmw graph API as rmw/rmw.h and rmw/get_*.h document them: an
// invalid allocator, a null or non-zero-initialized output, an invalid node name, namespace or
// topic name is RMW_RET_INVALID_ARGUMENT and leaves the output unchanged; a node that is not in
// the graph is RMW_RET_NODE_NAME_NON_EXISTENT. Called through dlopen, as rcl calls them.
#include <gtest/gtest.h>
#include <rmw/get_node_info_and_types.h>
#include <rmw/get_service_names_and_types.h>
#include <rmw/get_topic_endpoint_info.h>
#include <rmw/get_topic_names_and_types.h>
#include <rmw/names_and_types.h>
#include <rmw/rmw.h>
#include <rmw/topic_endpoint_info_array.h>

#include <memory>
#include <string>

#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

class RmwBatonContractGraph : public test::RmwLocalTest {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ctx_ = std::make_unique<test::RmwContext>(rmw_, "graph_node");
    RMW_FN(rmw_, rcutils_get_default_allocator);
    allocator_ = rcutils_get_default_allocator();
  }
  void TearDown() override {
    ctx_.reset();
    RmwLocalTest::TearDown();
  }
  // The error, which names `function` and mentions `what`.
  void expect_error(const char* function, const char* what) {
    const std::string error = test::take_error(rmw_);
    EXPECT_NE(error.find(function), std::string::npos) << error;
    EXPECT_NE(error.find(what), std::string::npos) << error;
  }

  std::unique_ptr<test::RmwContext> ctx_;
  rcutils_allocator_t allocator_{};
};

TEST_F(RmwBatonContractGraph,
       get_node_names_into_a_non_zero_initialized_array_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_get_node_names);
  rcutils_string_array_t names{}, namespaces{};
  char* entry = nullptr;
  names.size = 1;
  names.data = &entry;
  EXPECT_EQ(rmw_get_node_names(ctx_->node, &names, &namespaces), RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_node_names", "node_names is not a zero-initialized array");
  EXPECT_EQ(names.data, &entry);  // unchanged
  names = {};
  namespaces.size = 1;
  namespaces.data = &entry;
  EXPECT_EQ(rmw_get_node_names(ctx_->node, &names, &namespaces), RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_node_names", "node_namespaces is not a zero-initialized array");
}

TEST_F(RmwBatonContractGraph, get_node_names_into_null_arrays_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_get_node_names);
  RMW_FN(rmw_, rmw_get_node_names_with_enclaves);
  rcutils_string_array_t names{}, namespaces{};
  EXPECT_EQ(rmw_get_node_names(ctx_->node, nullptr, &namespaces), RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_node_names", "node_names is null");
  EXPECT_EQ(rmw_get_node_names(ctx_->node, &names, nullptr), RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_node_names", "node_namespaces is null");
  EXPECT_EQ(rmw_get_node_names_with_enclaves(ctx_->node, &names, &namespaces, nullptr),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_node_names_with_enclaves", "enclaves is null");
}

TEST_F(RmwBatonContractGraph,
       names_and_types_queries_with_an_invalid_allocator_return_invalid_argument) {
  RMW_FN(rmw_, rmw_get_topic_names_and_types);
  RMW_FN(rmw_, rmw_get_service_names_and_types);
  RMW_FN(rmw_, rmw_get_publisher_names_and_types_by_node);
  rcutils_allocator_t invalid{};
  rmw_names_and_types_t out{};
  EXPECT_EQ(rmw_get_topic_names_and_types(ctx_->node, &invalid, false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_topic_names_and_types", "allocator is not valid");
  EXPECT_EQ(rmw_get_service_names_and_types(ctx_->node, nullptr, &out), RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_service_names_and_types", "allocator is null");
  EXPECT_EQ(rmw_get_publisher_names_and_types_by_node(ctx_->node, &invalid, "graph_node", "/",
                                                      false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_publisher_names_and_types_by_node", "allocator is not valid");
}

TEST_F(RmwBatonContractGraph,
       names_and_types_into_a_non_zero_initialized_output_returns_invalid_argument) {
  RMW_FN(rmw_, rmw_get_topic_names_and_types);
  RMW_FN(rmw_, rmw_get_client_names_and_types_by_node);
  rmw_names_and_types_t out{};
  out.names.size = 1;
  EXPECT_EQ(rmw_get_topic_names_and_types(ctx_->node, &allocator_, false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_topic_names_and_types", "not a zero-initialized array");
  EXPECT_EQ(
      rmw_get_client_names_and_types_by_node(ctx_->node, &allocator_, "graph_node", "/", nullptr),
      RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_client_names_and_types_by_node", "is null");
}

TEST_F(RmwBatonContractGraph, queries_by_node_with_an_invalid_node_name_return_invalid_argument) {
  RMW_FN(rmw_, rmw_get_subscriber_names_and_types_by_node);
  RMW_FN(rmw_, rmw_get_service_names_and_types_by_node);
  rmw_names_and_types_t out{};
  for (const char* name : {"", "has space", "1digit"}) {
    EXPECT_EQ(
        rmw_get_subscriber_names_and_types_by_node(ctx_->node, &allocator_, name, "/", false, &out),
        RMW_RET_INVALID_ARGUMENT)
        << name;
    expect_error("rmw_get_subscriber_names_and_types_by_node", "node_name");
  }
  EXPECT_EQ(rmw_get_service_names_and_types_by_node(ctx_->node, &allocator_, nullptr, "/", &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_service_names_and_types_by_node", "node_name is null");
}

TEST_F(RmwBatonContractGraph, queries_by_node_with_an_invalid_namespace_return_invalid_argument) {
  RMW_FN(rmw_, rmw_get_publisher_names_and_types_by_node);
  rmw_names_and_types_t out{};
  for (const char* ns : {"", "relative", "/trailing/"}) {
    EXPECT_EQ(rmw_get_publisher_names_and_types_by_node(ctx_->node, &allocator_, "graph_node", ns,
                                                        false, &out),
              RMW_RET_INVALID_ARGUMENT)
        << ns;
    expect_error("rmw_get_publisher_names_and_types_by_node", "node_namespace");
  }
}

TEST_F(RmwBatonContractGraph,
       queries_by_node_of_a_node_not_in_the_graph_return_node_name_non_existent) {
  RMW_FN(rmw_, rmw_get_publisher_names_and_types_by_node);
  rmw_names_and_types_t out{};
  EXPECT_EQ(rmw_get_publisher_names_and_types_by_node(ctx_->node, &allocator_, "nobody", "/", false,
                                                      &out),
            RMW_RET_NODE_NAME_NON_EXISTENT);
  expect_error("rmw_get_publisher_names_and_types_by_node", "not in the graph");
}

TEST_F(RmwBatonContractGraph, counts_with_an_invalid_topic_name_return_invalid_argument) {
  RMW_FN(rmw_, rmw_count_publishers);
  RMW_FN(rmw_, rmw_count_subscribers);
  RMW_FN(rmw_, rmw_count_clients);
  RMW_FN(rmw_, rmw_count_services);
  size_t count = 7;
  for (const char* name : {"relative", "/has space", "/trailing/", ""}) {
    EXPECT_EQ(rmw_count_publishers(ctx_->node, name, &count), RMW_RET_INVALID_ARGUMENT) << name;
    expect_error("rmw_count_publishers", "topic name");
    EXPECT_EQ(rmw_count_subscribers(ctx_->node, name, &count), RMW_RET_INVALID_ARGUMENT) << name;
    expect_error("rmw_count_subscribers", "topic name");
    EXPECT_EQ(rmw_count_clients(ctx_->node, name, &count), RMW_RET_INVALID_ARGUMENT) << name;
    expect_error("rmw_count_clients", "service name");
    EXPECT_EQ(rmw_count_services(ctx_->node, name, &count), RMW_RET_INVALID_ARGUMENT) << name;
    expect_error("rmw_count_services", "service name");
  }
  EXPECT_EQ(count, 7u);  // untouched
  EXPECT_EQ(rmw_count_publishers(ctx_->node, "/fine", nullptr), RMW_RET_INVALID_ARGUMENT);
  test::take_error(rmw_);
}

TEST_F(RmwBatonContractGraph, endpoint_info_queries_check_allocator_topic_and_output) {
  RMW_FN(rmw_, rmw_get_publishers_info_by_topic);
  RMW_FN(rmw_, rmw_get_subscriptions_info_by_topic);
  rcutils_allocator_t invalid{};
  rmw_topic_endpoint_info_array_t out{};
  EXPECT_EQ(rmw_get_publishers_info_by_topic(ctx_->node, &invalid, "/t", false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_publishers_info_by_topic", "allocator is not valid");
  EXPECT_EQ(rmw_get_subscriptions_info_by_topic(ctx_->node, &allocator_, nullptr, false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_subscriptions_info_by_topic", "topic_name");
  EXPECT_EQ(rmw_get_subscriptions_info_by_topic(ctx_->node, &allocator_, "/t", false, nullptr),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_subscriptions_info_by_topic", "is null");
  out.size = 1;
  EXPECT_EQ(rmw_get_publishers_info_by_topic(ctx_->node, &allocator_, "/t", false, &out),
            RMW_RET_INVALID_ARGUMENT);
  expect_error("rmw_get_publishers_info_by_topic", "not a zero-initialized array");
}

TEST_F(RmwBatonContractGraph, get_node_names_lists_this_node_in_its_namespace) {
  RMW_FN(rmw_, rmw_get_node_names_with_enclaves);
  RMW_FN(rmw_, rcutils_string_array_fini);
  rcutils_string_array_t names{}, namespaces{}, enclaves{};
  ASSERT_EQ(rmw_get_node_names_with_enclaves(ctx_->node, &names, &namespaces, &enclaves),
            RMW_RET_OK);
  bool found = false;
  for (size_t i = 0; i < names.size; ++i)
    found = found ||
            (std::string(names.data[i]) == "graph_node" && std::string(namespaces.data[i]) == "/");
  EXPECT_TRUE(found);
  EXPECT_EQ(enclaves.size, names.size);
  EXPECT_EQ(rcutils_string_array_fini(&names), RCUTILS_RET_OK);
  EXPECT_EQ(rcutils_string_array_fini(&namespaces), RCUTILS_RET_OK);
  EXPECT_EQ(rcutils_string_array_fini(&enclaves), RCUTILS_RET_OK);
}

}  // namespace
}  // namespace baton::ros2
