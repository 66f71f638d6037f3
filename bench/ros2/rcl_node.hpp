// The rcl plumbing the benchmarks' C++ ROS 2 programs share (rcl_pingpong.cpp, seed 000's and
// seed 002's rcl rows): one rcl context + node per process, and publishers, subscriptions,
// services and clients of C++ messages (rosidl_typesupport_cpp) with a blocking take, and loaned
// messages (rcl_borrow_loaned_message ... rcl_return_loaned_message_from_subscription, what
// rclcpp's borrow_loaned_message() and loaned takes call), which is what an rclcpp node does
// underneath. Built against the ROS 2 wheels (rcl_wheels.cmake); the RMW
// is whichever the process gets (rmw_fastrtps_cpp, or rmw_baton_cpp preloaded).
//
// Errors end the process with rcl's error string: a benchmark row that cannot run must fail.
#pragma once

#include <rcl/graph.h>
#include <rcl/rcl.h>
#include <rcutils/error_handling.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace baton::bench::rcl {

using Clock = std::chrono::steady_clock;

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "rcl: %s: %s\n", what, rcutils_get_error_string().str);
  std::fflush(stderr);
  std::_Exit(1);
}

inline void check(rcl_ret_t ret, const char* what) {
  if (ret != RCL_RET_OK) fail(what);
}

inline std::chrono::nanoseconds seconds(double s) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

// Reliable, volatile, keep last `depth`: what request / reply pairs of rclcpp nodes would use.
inline rmw_qos_profile_t reliable_qos(size_t depth) {
  rmw_qos_profile_t q = rmw_qos_profile_default;
  q.history = RMW_QOS_POLICY_HISTORY_KEEP_LAST;
  q.depth = depth;
  return q;
}

// One rcl context with one node; a wait set for one entity at a time (each take below waits for
// the entity it takes from, so a process never needs more).
class Node {
 public:
  explicit Node(const std::string& name) {
    rcl_init_options_t opts = rcl_get_zero_initialized_init_options();
    check(rcl_init_options_init(&opts, rcl_get_default_allocator()), "rcl_init_options_init");
    check(rcl_init(0, nullptr, &opts, &context_), "rcl_init");
    check(rcl_init_options_fini(&opts), "rcl_init_options_fini");
    rcl_node_options_t node_opts = rcl_node_get_default_options();
    check(rcl_node_init(&node_, name.c_str(), "", &context_, &node_opts), "rcl_node_init");
    check(rcl_wait_set_init(&wait_set_, 1, 0, 0, 1, 1, 0, &context_, rcl_get_default_allocator()),
          "rcl_wait_set_init");
  }
  ~Node() {
    (void)rcl_wait_set_fini(&wait_set_);
    (void)rcl_node_fini(&node_);
    (void)rcl_shutdown(&context_);
    (void)rcl_context_fini(&context_);
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  rcl_node_t* get() { return &node_; }
  // The RMW this process really runs on ("rmw_fastrtps_cpp", "rmw_baton_cpp").
  const char* rmw() { return rcl_node_get_rmw_handle(&node_)->implementation_identifier; }
  // Exits unless the process runs on `want`: a benchmark row never runs under another RMW's name.
  void expect_rmw(const std::string& want) {
    if (want == rmw()) return;
    std::fprintf(stderr,
                 "rcl: this row is %s but the process runs on %s (rmw_baton_cpp needs "
                 "LD_PRELOAD=librmw_baton_cpp.so RMW_IMPLEMENTATION=rmw_baton_cpp; "
                 "bench/suite/exp_rcl_pingpong.py: rcl_env sets both)\n",
                 want.c_str(), rmw());
    std::_Exit(1);
  }

  // Waits until `try_take` succeeds (true) or `timeout` passes (false); `add` puts the entity
  // into the (cleared) wait set before each wait.
  template <typename TryTake, typename Add>
  bool take_blocking(TryTake&& try_take, Add&& add, std::chrono::nanoseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (try_take()) return true;
      const auto left = deadline - Clock::now();
      if (left <= std::chrono::nanoseconds::zero()) return false;
      check(rcl_wait_set_clear(&wait_set_), "rcl_wait_set_clear");
      add(&wait_set_);
      const rcl_ret_t w = rcl_wait(&wait_set_, left.count());
      if (w != RCL_RET_OK && w != RCL_RET_TIMEOUT) fail("rcl_wait");
      if (w == RCL_RET_TIMEOUT) rcutils_reset_error();
    }
  }

 private:
  rcl_context_t context_ = rcl_get_zero_initialized_context();
  rcl_node_t node_ = rcl_get_zero_initialized_node();
  rcl_wait_set_t wait_set_ = rcl_get_zero_initialized_wait_set();
};

// A take / take_request / take_response result: OK, nothing there (reset), or fatal.
inline bool took(rcl_ret_t ret, rcl_ret_t empty, const char* what) {
  if (ret == RCL_RET_OK) return true;
  if (ret != empty) fail(what);
  rcutils_reset_error();
  return false;
}

class Publisher {
 public:
  Publisher(Node& node, const rosidl_message_type_support_t* ts, const std::string& topic,
            const rmw_qos_profile_t& qos)
      : node_(node), ts_(ts) {
    rcl_publisher_options_t opts = rcl_publisher_get_default_options();
    opts.qos = qos;
    check(rcl_publisher_init(&pub_, node.get(), ts, topic.c_str(), &opts), "rcl_publisher_init");
  }
  ~Publisher() { (void)rcl_publisher_fini(&pub_, node_.get()); }
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  void publish(const void* msg) { check(rcl_publish(&pub_, msg, nullptr), "rcl_publish"); }
  // Whether the RMW lends messages of this publisher's type (fixed-size types on rmw_baton_cpp,
  // plain types with data-sharing on rmw_fastrtps_cpp).
  bool can_loan() { return rcl_publisher_can_loan_messages(&pub_); }
  // A message in the RMW's memory, to fill and hand to publish_loaned().
  void* borrow() {
    void* msg = nullptr;
    check(rcl_borrow_loaned_message(&pub_, ts_, &msg), "rcl_borrow_loaned_message");
    return msg;
  }
  void publish_loaned(void* msg) {
    check(rcl_publish_loaned_message(&pub_, msg, nullptr), "rcl_publish_loaned_message");
  }
  size_t subscribers() {
    size_t n = 0;
    check(rcl_publisher_get_subscription_count(&pub_, &n), "subscription count");
    return n;
  }

 private:
  Node& node_;
  const rosidl_message_type_support_t* ts_;
  rcl_publisher_t pub_ = rcl_get_zero_initialized_publisher();
};

class Subscription {
 public:
  // `loans`: the subscription may take loaned messages (rcl's default keeps them off unless
  // ROS_DISABLE_LOANED_MESSAGES=0, which is how an rclcpp user turns them on).
  Subscription(Node& node, const rosidl_message_type_support_t* ts, const std::string& topic,
               const rmw_qos_profile_t& qos, bool loans = false)
      : node_(node) {
    rcl_subscription_options_t opts = rcl_subscription_get_default_options();
    opts.qos = qos;
    if (loans) opts.disable_loaned_message = false;
    check(rcl_subscription_init(&sub_, node.get(), ts, topic.c_str(), &opts),
          "rcl_subscription_init");
  }
  ~Subscription() { (void)rcl_subscription_fini(&sub_, node_.get()); }
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  size_t publishers() {
    size_t n = 0;
    check(rcl_subscription_get_publisher_count(&sub_, &n), "publisher count");
    return n;
  }
  // Waits up to `timeout` for one message and takes it into `msg`; false on timeout.
  bool take(void* msg, std::chrono::nanoseconds timeout) {
    return node_.take_blocking(
        [&] {
          rmw_message_info_t info = rmw_get_zero_initialized_message_info();
          return took(rcl_take(&sub_, msg, &info, nullptr), RCL_RET_SUBSCRIPTION_TAKE_FAILED,
                      "rcl_take");
        },
        [&](rcl_wait_set_t* ws) {
          check(rcl_wait_set_add_subscription(ws, &sub_, nullptr), "rcl_wait_set_add");
        },
        timeout);
  }
  bool can_loan() { return rcl_subscription_can_loan_messages(&sub_); }
  // Waits up to `timeout` for one message and takes it as a loan (the RMW's memory, read-only;
  // give it back with return_loan); nullptr on timeout.
  const void* take_loaned(std::chrono::nanoseconds timeout) {
    void* msg = nullptr;
    node_.take_blocking(
        [&] {
          return took(rcl_take_loaned_message(&sub_, &msg, nullptr, nullptr),
                      RCL_RET_SUBSCRIPTION_TAKE_FAILED, "rcl_take_loaned_message");
        },
        [&](rcl_wait_set_t* ws) {
          check(rcl_wait_set_add_subscription(ws, &sub_, nullptr), "rcl_wait_set_add");
        },
        timeout);
    return msg;
  }
  void return_loan(const void* msg) {
    check(rcl_return_loaned_message_from_subscription(&sub_, const_cast<void*>(msg)),
          "rcl_return_loaned_message_from_subscription");
  }

 private:
  Node& node_;
  rcl_subscription_t sub_ = rcl_get_zero_initialized_subscription();
};

// The server side of a service: take a request, send its response.
class Service {
 public:
  Service(Node& node, const rosidl_service_type_support_t* ts, const std::string& name)
      : node_(node) {
    rcl_service_options_t opts = rcl_service_get_default_options();
    check(rcl_service_init(&srv_, node.get(), ts, name.c_str(), &opts), "rcl_service_init");
  }
  ~Service() { (void)rcl_service_fini(&srv_, node_.get()); }
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Waits up to `timeout` for a request; `id` is what send_response() answers.
  bool take_request(void* request, rmw_request_id_t& id, std::chrono::nanoseconds timeout) {
    return node_.take_blocking(
        [&] {
          return took(rcl_take_request(&srv_, &id, request), RCL_RET_SERVICE_TAKE_FAILED,
                      "rcl_take_request");
        },
        [&](rcl_wait_set_t* ws) {
          check(rcl_wait_set_add_service(ws, &srv_, nullptr), "rcl_wait_set_add_service");
        },
        timeout);
  }
  void send_response(rmw_request_id_t& id, void* response) {
    check(rcl_send_response(&srv_, &id, response), "rcl_send_response");
  }

 private:
  Node& node_;
  rcl_service_t srv_ = rcl_get_zero_initialized_service();
};

class Client {
 public:
  Client(Node& node, const rosidl_service_type_support_t* ts, const std::string& name)
      : node_(node) {
    rcl_client_options_t opts = rcl_client_get_default_options();
    check(rcl_client_init(&client_, node.get(), ts, name.c_str(), &opts), "rcl_client_init");
  }
  ~Client() { (void)rcl_client_fini(&client_, node_.get()); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // True once the server's request reader and response writer both match this client.
  bool server_ready() {
    bool ok = false;
    check(rcl_service_server_is_available(node_.get(), &client_, &ok), "server is available");
    return ok;
  }
  int64_t send_request(const void* request) {
    int64_t seq = 0;
    check(rcl_send_request(&client_, request, &seq), "rcl_send_request");
    return seq;
  }
  // Waits up to `timeout` for the response to request `seq`; false on timeout.
  bool take_response(void* response, int64_t seq, std::chrono::nanoseconds timeout) {
    return node_.take_blocking(
        [&] {
          rmw_service_info_t info{};
          if (!took(rcl_take_response_with_info(&client_, &info, response),
                    RCL_RET_CLIENT_TAKE_FAILED, "rcl_take_response"))
            return false;
          if (info.request_id.sequence_number != seq) fail("a response to another request");
          return true;
        },
        [&](rcl_wait_set_t* ws) {
          check(rcl_wait_set_add_client(ws, &client_, nullptr), "rcl_wait_set_add_client");
        },
        timeout);
  }

 private:
  Node& node_;
  rcl_client_t client_ = rcl_get_zero_initialized_client();
};

// Polls `ready` every 10 ms; exits with `what` after `timeout_s` (discovery never times a run).
template <typename Ready>
void await(Ready&& ready, double timeout_s, const char* what) {
  const auto deadline = Clock::now() + seconds(timeout_s);
  while (!ready()) {
    if (Clock::now() > deadline) {
      std::fprintf(stderr, "rcl: %s within %.0f s\n", what, timeout_s);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace baton::bench::rcl
