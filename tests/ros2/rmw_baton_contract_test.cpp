// The rmw contract as the rmw headers (rmw/rmw.h, init.h, init_options.h, event.h,
// get_*.h) document it, written from their doc comments: the return code of every exported
// function for a null handle and for a handle of another implementation (table-driven), and the
// documented checks of names, QoS, outputs, allocators and the init / shutdown / fini sequence.
// rmw_baton_cpp is loaded with dlopen and called as rcl calls it (shared memory only).
#include <dirent.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rcutils/allocator.h>
#include <rcutils/types/string_array.h>
#include <rmw/event.h>
#include <rmw/get_node_info_and_types.h>
#include <rmw/get_service_names_and_types.h>
#include <rmw/get_topic_endpoint_info.h>
#include <rmw/get_topic_names_and_types.h>
#include <rmw/names_and_types.h>
#include <rmw/qos_profiles.h>
#include <rmw/rmw.h>
#include <rmw/topic_endpoint_info_array.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "baton/shm/naming.hpp"
#include "rmw_endpoints.hpp"

namespace baton::ros2 {
namespace {

using test::Rmw;
using test::RmwContext;

constexpr const char* OTHER_RMW = "rmw_not_baton";

// rcl_interfaces/srv/GetParameters's C type support (rosidl_typesupport_c), as rcl hands it over.
class WheelServiceType {
 public:
  WheelServiceType() {
    const auto lib = test::ros_venv() / "lib";
    const std::string stem = "rcl_interfaces__srv__GetParameters";
    void* intro = test::open_with_dependencies(
        lib, "librcl_interfaces__rosidl_typesupport_introspection_c.so");
    void* ts = test::open_with_dependencies(lib, "librcl_interfaces__rosidl_typesupport_c.so");
    if (intro == nullptr || ts == nullptr) return;
    using Get = const rosidl_service_type_support_t*();
    auto* get = reinterpret_cast<Get*>(
        ::dlsym(ts, ("rosidl_typesupport_c__get_service_type_support_handle__" + stem).c_str()));
    if (get != nullptr) ts_ = get();
  }
  const rosidl_service_type_support_t* type_support() const { return ts_; }

 private:
  const rosidl_service_type_support_t* ts_ = nullptr;
};

// The handle kinds of the rmw API.
enum class Kind {
  InitOptions,
  Context,
  Node,
  Publisher,
  Subscription,
  Service,
  Client,
  GuardCondition,
  WaitSet,
  Event
};

// Kind's name in the test names, indexed by Kind.
constexpr const char* KIND_NAMES[] = {"init_options", "context", "node",   "publisher",
                                      "subscription", "service", "client", "guard_condition",
                                      "wait_set",     "event"};

// One handle of each kind; a case's call uses them.
struct Handles {
  rmw_init_options_t* options = nullptr;
  rmw_context_t* context = nullptr;
  rmw_node_t* node = nullptr;
  rmw_publisher_t* publisher = nullptr;
  rmw_subscription_t* subscription = nullptr;
  rmw_service_t* service = nullptr;
  rmw_client_t* client = nullptr;
  rmw_guard_condition_t* guard_condition = nullptr;
  rmw_wait_set_t* wait_set = nullptr;
  rmw_event_t* event = nullptr;
};

// Copies of real handles whose implementation_identifier is another implementation's.
struct ForeignHandles {
  rmw_init_options_t options{};
  rmw_context_t context{};
  rmw_node_t node{};
  rmw_publisher_t publisher{};
  rmw_subscription_t subscription{};
  rmw_service_t service{};
  rmw_client_t client{};
  rmw_guard_condition_t guard_condition{};
  rmw_wait_set_t wait_set{};
  rmw_event_t event{};

  // The handles in Kind's order.
  static auto slots(Handles& h) {
    return std::tie(h.options, h.context, h.node, h.publisher, h.subscription, h.service, h.client,
                    h.guard_condition, h.wait_set, h.event);
  }
  auto copies() {
    return std::tie(options, context, node, publisher, subscription, service, client,
                    guard_condition, wait_set, event);
  }
  template <typename F>
  static void for_each_kind(F f) {
    [&]<size_t... I>(std::index_sequence<I...>) { (f(std::integral_constant<size_t, I>{}), ...); }
    (std::make_index_sequence<std::tuple_size_v<decltype(slots(std::declval<Handles&>()))>>{});
  }

  explicit ForeignHandles(Handles h) {
    for_each_kind([&](auto i) {
      auto& copy = std::get<i>(copies());
      copy = *std::get<i>(slots(h));
      copy.implementation_identifier = OTHER_RMW;
    });
  }
  // `h` with its handle of `kind` replaced by the foreign copy (or by null).
  Handles replace(Handles h, Kind kind, bool null) {
    for_each_kind([&](auto i) {
      if (static_cast<Kind>(i()) == kind)
        std::get<i>(slots(h)) = null ? nullptr : &std::get<i>(copies());
    });
    return h;
  }
};

// Arguments other than the handle under test: valid, so only the handle decides. Nothing is
// written through them (every call returns at the handle check).
struct Scratch {
  alignas(16) unsigned char message[4096] = {};
  void* message_ptr = message;
  void* null_ptr = nullptr;
  bool flag = false;
  size_t count = 0;
  int64_t sequence = 0;
  rmw_gid_t gid{};
  rmw_qos_profile_t qos{};
  rmw_message_info_t info{};
  rmw_service_info_t service_info{};
  rmw_request_id_t request_id{};
  rmw_serialized_message_t serialized{};
  rmw_matched_status_t matched{};
  rcutils_allocator_t allocator{};
  // Zero-initialized as their rmw_get_zero_initialized_* / rcutils_* functions make them.
  rcutils_string_array_t names{};
  rcutils_string_array_t namespaces{};
  rcutils_string_array_t enclaves{};
  rmw_names_and_types_t names_and_types{};
  rmw_topic_endpoint_info_array_t endpoints{};
  rmw_init_options_t options_out{};
  rmw_context_t context_out{};
  rmw_event_t event_out{};
  void* sequence_data[1] = {message};
  rmw_message_sequence_t messages{sequence_data, 0, 1, nullptr};
  rmw_message_info_t info_data[1] = {};
  rmw_message_info_sequence_t infos{info_data, 0, 1, nullptr};
  rmw_time_t no_wait{0, 0};

  explicit Scratch(const Rmw& rmw) {
    RMW_FN(rmw, rcutils_get_default_allocator);
    allocator = rcutils_get_default_allocator();
  }
};

// One documented behaviour of one function: what it returns for a handle of `kind`.
struct Case {
  const char* function;
  Kind kind;
  std::function<rmw_ret_t(const Rmw&, const Handles&, Scratch&)> call;
};

// A case calling `fn` (looked up in the library) with the arguments that follow `kind`.
#define CASE(fn, kind, ...)                                                        \
  Case {                                                                           \
#fn, Kind::kind, [](const Rmw& rmw, const Handles& h, Scratch& s) -> rmw_ret_t { \
      RMW_FN(rmw, fn);                                                         \
      (void)h, (void)s;                                                        \
      return fn(__VA_ARGS__);                                                  \
    } \
  }

// Every exported function that takes a handle and returns rmw_ret_t, once per handle argument.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      CASE(rmw_init, InitOptions, h.options, &s.context_out),
      CASE(rmw_init_options_copy, InitOptions, h.options, &s.options_out),
      CASE(rmw_init_options_fini, InitOptions, h.options),
      CASE(rmw_shutdown, Context, h.context),
      CASE(rmw_context_fini, Context, h.context),
      CASE(rmw_destroy_node, Node, h.node),
      CASE(rmw_destroy_publisher, Node, h.node, h.publisher),
      CASE(rmw_destroy_subscription, Node, h.node, h.subscription),
      CASE(rmw_destroy_service, Node, h.node, h.service),
      CASE(rmw_destroy_client, Node, h.node, h.client),
      CASE(rmw_service_server_is_available, Node, h.node, h.client, &s.flag),
      CASE(rmw_get_node_names, Node, h.node, &s.names, &s.namespaces),
      CASE(rmw_get_node_names_with_enclaves, Node, h.node, &s.names, &s.namespaces, &s.enclaves),
      CASE(rmw_count_publishers, Node, h.node, "/t", &s.count),
      CASE(rmw_count_subscribers, Node, h.node, "/t", &s.count),
      CASE(rmw_count_clients, Node, h.node, "/t", &s.count),
      CASE(rmw_count_services, Node, h.node, "/t", &s.count),
      CASE(rmw_get_topic_names_and_types, Node, h.node, &s.allocator, false, &s.names_and_types),
      CASE(rmw_get_service_names_and_types, Node, h.node, &s.allocator, &s.names_and_types),
      CASE(rmw_get_publisher_names_and_types_by_node, Node, h.node, &s.allocator, "n", "/", false,
           &s.names_and_types),
      CASE(rmw_get_subscriber_names_and_types_by_node, Node, h.node, &s.allocator, "n", "/", false,
           &s.names_and_types),
      CASE(rmw_get_service_names_and_types_by_node, Node, h.node, &s.allocator, "n", "/",
           &s.names_and_types),
      CASE(rmw_get_client_names_and_types_by_node, Node, h.node, &s.allocator, "n", "/",
           &s.names_and_types),
      CASE(rmw_get_publishers_info_by_topic, Node, h.node, &s.allocator, "/t", false, &s.endpoints),
      CASE(rmw_get_subscriptions_info_by_topic, Node, h.node, &s.allocator, "/t", false,
           &s.endpoints),
      CASE(rmw_destroy_publisher, Publisher, h.node, h.publisher),
      CASE(rmw_publish, Publisher, h.publisher, s.message, nullptr),
      CASE(rmw_publish_serialized_message, Publisher, h.publisher, &s.serialized, nullptr),
      CASE(rmw_get_gid_for_publisher, Publisher, h.publisher, &s.gid),
      CASE(rmw_publisher_count_matched_subscriptions, Publisher, h.publisher, &s.count),
      CASE(rmw_publisher_get_actual_qos, Publisher, h.publisher, &s.qos),
      CASE(rmw_publisher_assert_liveliness, Publisher, h.publisher),
      CASE(rmw_publisher_wait_for_all_acked, Publisher, h.publisher, s.no_wait),
      CASE(rmw_borrow_loaned_message, Publisher, h.publisher, nullptr, &s.null_ptr),
      CASE(rmw_return_loaned_message_from_publisher, Publisher, h.publisher, s.message),
      CASE(rmw_publish_loaned_message, Publisher, h.publisher, s.message, nullptr),
      CASE(rmw_publisher_event_init, Publisher, &s.event_out, h.publisher,
           RMW_EVENT_PUBLICATION_MATCHED),
      CASE(rmw_destroy_subscription, Subscription, h.node, h.subscription),
      CASE(rmw_take, Subscription, h.subscription, s.message, &s.flag, nullptr),
      CASE(rmw_take_with_info, Subscription, h.subscription, s.message, &s.flag, &s.info, nullptr),
      CASE(rmw_take_sequence, Subscription, h.subscription, 1, &s.messages, &s.infos, &s.count,
           nullptr),
      CASE(rmw_take_serialized_message, Subscription, h.subscription, &s.serialized, &s.flag,
           nullptr),
      CASE(rmw_take_serialized_message_with_info, Subscription, h.subscription, &s.serialized,
           &s.flag, &s.info, nullptr),
      CASE(rmw_subscription_count_matched_publishers, Subscription, h.subscription, &s.count),
      CASE(rmw_subscription_get_actual_qos, Subscription, h.subscription, &s.qos),
      CASE(rmw_take_loaned_message, Subscription, h.subscription, &s.null_ptr, &s.flag, nullptr),
      CASE(rmw_take_loaned_message_with_info, Subscription, h.subscription, &s.null_ptr, &s.flag,
           &s.info, nullptr),
      CASE(rmw_return_loaned_message_from_subscription, Subscription, h.subscription, s.message),
      CASE(rmw_subscription_event_init, Subscription, &s.event_out, h.subscription,
           RMW_EVENT_SUBSCRIPTION_MATCHED),
      CASE(rmw_destroy_service, Service, h.node, h.service),
      CASE(rmw_take_request, Service, h.service, &s.service_info, s.message, &s.flag),
      CASE(rmw_send_response, Service, h.service, &s.request_id, s.message),
      CASE(rmw_service_request_subscription_get_actual_qos, Service, h.service, &s.qos),
      CASE(rmw_service_response_publisher_get_actual_qos, Service, h.service, &s.qos),
      CASE(rmw_destroy_client, Client, h.node, h.client),
      CASE(rmw_send_request, Client, h.client, s.message, &s.sequence),
      CASE(rmw_take_response, Client, h.client, &s.service_info, s.message, &s.flag),
      CASE(rmw_service_server_is_available, Client, h.node, h.client, &s.flag),
      CASE(rmw_get_gid_for_client, Client, h.client, &s.gid),
      CASE(rmw_client_request_publisher_get_actual_qos, Client, h.client, &s.qos),
      CASE(rmw_client_response_subscription_get_actual_qos, Client, h.client, &s.qos),
      CASE(rmw_trigger_guard_condition, GuardCondition, h.guard_condition),
      CASE(rmw_destroy_guard_condition, GuardCondition, h.guard_condition),
      CASE(rmw_wait, WaitSet, nullptr, nullptr, nullptr, nullptr, nullptr, h.wait_set, &s.no_wait),
      CASE(rmw_destroy_wait_set, WaitSet, h.wait_set),
      CASE(rmw_take_event, Event, h.event, &s.matched, &s.flag),
      CASE(rmw_event_set_callback, Event, h.event, nullptr, nullptr),
      CASE(rmw_subscription_set_on_new_message_callback, Subscription, h.subscription, nullptr,
           nullptr),
      CASE(rmw_service_set_on_new_request_callback, Service, h.service, nullptr, nullptr),
      CASE(rmw_client_set_on_new_response_callback, Client, h.client, nullptr, nullptr),
  };
  return all;
}

#undef CASE

// A context with one node and one handle of every kind, made and destroyed as rcl does.
class RmwBatonContractHandles : public test::RmwLocalTest,
                                public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    RmwLocalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_NE(service_type_.type_support(), nullptr) << ::dlerror();
    ctx_ = std::make_unique<RmwContext>(rmw_, "contract");
    ASSERT_NE(ctx_->node, nullptr);
    RMW_FN(rmw_, rmw_create_service);
    RMW_FN(rmw_, rmw_create_client);
    RMW_FN(rmw_, rmw_create_guard_condition);
    RMW_FN(rmw_, rmw_create_wait_set);
    RMW_FN(rmw_, rmw_publisher_event_init);
    const rmw_qos_profile_t qos = test::test_qos(true, 10);
    h_.options = &ctx_->options;
    h_.context = &ctx_->context;
    h_.node = ctx_->node;
    h_.publisher = test::create_publisher(rmw_, *ctx_, point_.type_support(), topic_.c_str(), qos);
    h_.subscription =
        test::create_subscription(rmw_, *ctx_, point_.type_support(), topic_.c_str(), qos);
    h_.service = rmw_create_service(ctx_->node, service_type_.type_support(), "/contract_service",
                                    &rmw_qos_profile_services_default);
    h_.client = rmw_create_client(ctx_->node, service_type_.type_support(), "/contract_service",
                                  &rmw_qos_profile_services_default);
    h_.guard_condition = rmw_create_guard_condition(&ctx_->context);
    h_.wait_set = rmw_create_wait_set(&ctx_->context, 4);
    ASSERT_NE(h_.publisher, nullptr);
    ASSERT_EQ(rmw_publisher_event_init(&event_, h_.publisher, RMW_EVENT_PUBLICATION_MATCHED),
              RMW_RET_OK);
    h_.event = &event_;
    ASSERT_NE(h_.subscription, nullptr);
    ASSERT_NE(h_.service, nullptr) << test::take_error(rmw_);
    ASSERT_NE(h_.client, nullptr) << test::take_error(rmw_);
    ASSERT_NE(h_.guard_condition, nullptr);
    ASSERT_NE(h_.wait_set, nullptr);
  }
  void TearDown() override {
    if (ctx_ != nullptr) {
      RMW_FN(rmw_, rmw_event_fini);
      RMW_FN(rmw_, rmw_destroy_service);
      RMW_FN(rmw_, rmw_destroy_client);
      RMW_FN(rmw_, rmw_destroy_guard_condition);
      RMW_FN(rmw_, rmw_destroy_wait_set);
      if (h_.event != nullptr) {
        EXPECT_EQ(rmw_event_fini(&event_), RMW_RET_OK);
      }
      if (h_.wait_set != nullptr) {
        EXPECT_EQ(rmw_destroy_wait_set(h_.wait_set), RMW_RET_OK);
      }
      if (h_.guard_condition != nullptr) {
        EXPECT_EQ(rmw_destroy_guard_condition(h_.guard_condition), RMW_RET_OK);
      }
      if (h_.client != nullptr) {
        EXPECT_EQ(rmw_destroy_client(ctx_->node, h_.client), RMW_RET_OK);
      }
      if (h_.service != nullptr) {
        EXPECT_EQ(rmw_destroy_service(ctx_->node, h_.service), RMW_RET_OK);
      }
      test::destroy(rmw_, *ctx_, h_.subscription);
      test::destroy(rmw_, *ctx_, h_.publisher);
      ctx_.reset();
    }
    RmwLocalTest::TearDown();
  }

  WheelServiceType service_type_;
  std::unique_ptr<RmwContext> ctx_;
  rmw_event_t event_{};
  Handles h_;
};

TEST_P(RmwBatonContractHandles, of_another_implementation_returns_incorrect_rmw_implementation) {
  const Case& c = GetParam();
  ForeignHandles foreign(h_);
  Scratch scratch(rmw_);
  EXPECT_EQ(c.call(rmw_, foreign.replace(h_, c.kind, /*null=*/false), scratch),
            RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  const std::string error = test::take_error(rmw_);
  EXPECT_NE(error.find(c.function), std::string::npos) << error;
}

TEST_P(RmwBatonContractHandles, null_returns_invalid_argument) {
  const Case& c = GetParam();
  ForeignHandles foreign(h_);
  Scratch scratch(rmw_);
  EXPECT_EQ(c.call(rmw_, foreign.replace(h_, c.kind, /*null=*/true), scratch),
            RMW_RET_INVALID_ARGUMENT);
  EXPECT_FALSE(test::take_error(rmw_).empty());
}

INSTANTIATE_TEST_SUITE_P(RmwBatonContract, RmwBatonContractHandles, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.function) + "_given_its_" +
                                  KIND_NAMES[static_cast<int>(info.param.kind)];
                         });

}  // namespace
}  // namespace baton::ros2
