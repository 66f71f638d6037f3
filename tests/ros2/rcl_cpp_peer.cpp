// A C++ program on rcl with C++ messages (rosidl_typesupport_cpp, exactly what rclcpp does
// underneath), built against the ROS 2 wheels in .venv-ros: the peer of the rmw_baton_cpp tests
// for C++ type supports (rmw_baton_rcl_cpp_test.cpp). It runs on whatever RMW the process gets:
// rmw_fastrtps_cpp (the wheels' rcl links it), or rmw_baton_cpp preloaded.
//
//   talk KIND TOPIC COUNT HZ TIMEOUT_S [gated]
//                                        wait for a subscription (and, when "gated", for a line on
//                                        stdin), publish samples 0..COUNT-1 of KIND (HZ per second;
//                                        0 = at once), then wait until every sample is acknowledged
//                                        and the subscription has left
//   listen KIND TOPIC COUNT TIMEOUT_S    print "matched" once a publisher is matched, "got <i>
//                                        equal|DIFFERENT" per sample taken (compared whole with
//                                        sample i), "summary distinct=<n> duplicates=<d>
//                                        different=<k>"; exit 0 when all COUNT came once, equal
//   serve SERVICE TIMEOUT_S              rcl_interfaces/srv/SetParameters: answer each parameter
//                                        with reply_for(parameter); "served <n>" per request
//   call SERVICE COUNT TIMEOUT_S         wait for SERVICE, send COUNT requests at once, print
//                                        "reply <i> ok|WRONG"; exit 0 when all are ok
//   serialize                            "<type> <hex>" of rmw_serialize per sample (samples()),
//                                        then "roundtrip <type> equal|DIFFERENT" (rmw_deserialize)
//   deserialize FILE                     FILE holds serialize's "<type> <hex>" lines (of any RMW):
//                                        "decoded <type> equal|DIFFERENT|ERROR <why>" per line
//   loan_talk TOPIC COUNT TIMEOUT_S      baton_bench_msgs/Fixed4k (a 4K rgb8 frame's bytes, fixed
//                                        size: bench/ros2/msg) through rcl's loans: "loans no"
//                                        and exit 1 if the RMW lends none; else wait for a
//                                        subscription and a line on stdin, then borrow, fill
//                                        (fixed4k_byte) and publish COUNT loans, "sent <n>"
//   loan_listen TOPIC COUNT TIMEOUT_S    take COUNT loaned Fixed4k (loans enabled on the
//                                        subscription, as ROS_DISABLE_LOANED_MESSAGES=0 does):
//                                        "matched", then "got <i> equal|DIFFERENT shm|copy" per
//                                        loan (shm: it lies in a /dev/shm/baton.* mapping), then
//                                        returns it; exit 0 when all came once, equal, in shm
//
// KIND: string, image4k (3840x2160 rgb8), event (rcl_interfaces/ParameterEvent: bool[] and every
// other sequence kind, nested), camera_info (fixed arrays), descriptor (a bounded sequence),
// participant (char[16] in nested sequences, bounded strings). Topics: reliable; keep last COUNT
// (at least 10) when HZ is 0, keep last 10 for a stream. Every mode prints "ready" once its
// endpoints exist.
#include <rcl/graph.h>
#include <rcl/rcl.h>
#include <rcutils/error_handling.h>
#include <rmw/rmw.h>
#include <sys/prctl.h>

#include <baton_bench_msgs/msg/fixed4k.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <rcl_interfaces/srv/detail/set_parameters__struct.hpp>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <rosidl_typesupport_cpp/service_type_support.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpp_message_samples.hpp"
#include "shm_mapping.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace samples = baton::ros2::test::samples;
using SetParameters = rcl_interfaces::srv::SetParameters;

// ---- what each KIND is --------------------------------------------------------------------------

template <typename T>
struct Kind {
  std::function<T(int)> make;
  std::function<int(const T&)> index_of;
};

Kind<std_msgs::msg::String> string_kind() {
  return {samples::string_msg, [](const std_msgs::msg::String& m) {
            const auto space = m.data.rfind(' ');
            return space == std::string::npos ? -1 : std::atoi(m.data.c_str() + space + 1);
          }};
}
Kind<sensor_msgs::msg::Image> image4k_kind() {
  return {[](int i) { return samples::image(i, 3840, 2160); },
          [](const sensor_msgs::msg::Image& m) { return m.header.stamp.sec; }};
}
Kind<rcl_interfaces::msg::ParameterEvent> event_kind() {
  return {samples::parameter_event,
          [](const rcl_interfaces::msg::ParameterEvent& m) { return m.stamp.sec; }};
}
Kind<sensor_msgs::msg::CameraInfo> camera_info_kind() {
  return {samples::camera_info,
          [](const sensor_msgs::msg::CameraInfo& m) { return m.header.stamp.sec; }};
}
Kind<rcl_interfaces::msg::ParameterDescriptor> descriptor_kind() {
  return {samples::parameter_descriptor,
          [](const rcl_interfaces::msg::ParameterDescriptor& m) { return int{m.type}; }};
}
Kind<rmw_dds_common::msg::ParticipantEntitiesInfo> participant_kind() {
  return {samples::participant_info,
          [](const rmw_dds_common::msg::ParticipantEntitiesInfo& m) { return int{m.gid.data[0]}; }};
}

// ---- rcl plumbing -------------------------------------------------------------------------------

Clock::time_point deadline_in(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

[[noreturn]] void fail(const char* what) {
  std::printf("error: %s: %s\n", what, rcutils_get_error_string().str);
  std::_Exit(2);
}
void check(rcl_ret_t ret, const char* what) {
  if (ret != RCL_RET_OK) fail(what);
}

// One context with one node, finalised in order at scope exit.
struct RclNode {
  rcl_context_t context = rcl_get_zero_initialized_context();
  rcl_init_options_t options = rcl_get_zero_initialized_init_options();
  rcl_node_t node = rcl_get_zero_initialized_node();
  explicit RclNode(const char* name) {
    check(rcl_init_options_init(&options, rcl_get_default_allocator()), "rcl_init_options_init");
    check(rcl_init(0, nullptr, &options, &context), "rcl_init");
    const rcl_node_options_t node_options = rcl_node_get_default_options();
    check(rcl_node_init(&node, name, "/cpp_peer", &context, &node_options), "rcl_node_init");
  }
  ~RclNode() {
    (void)rcl_node_fini(&node);
    (void)rcl_shutdown(&context);
    (void)rcl_context_fini(&context);
    (void)rcl_init_options_fini(&options);
  }
};

// Waits up to `timeout` for one of the wait set's entities (added by `add`); false on timeout.
template <typename Add>
bool wait_for(RclNode& n, std::chrono::milliseconds timeout, Add add) {
  rcl_wait_set_t ws = rcl_get_zero_initialized_wait_set();
  check(rcl_wait_set_init(&ws, 1, 0, 0, 1, 1, 1, &n.context, rcl_get_default_allocator()),
        "rcl_wait_set_init");
  check(rcl_wait_set_clear(&ws), "rcl_wait_set_clear");
  add(ws);
  const rcl_ret_t ret = rcl_wait(&ws, std::chrono::nanoseconds(timeout).count());
  (void)rcl_wait_set_fini(&ws);
  if (ret != RCL_RET_OK && ret != RCL_RET_TIMEOUT) fail("rcl_wait");
  return ret == RCL_RET_OK;
}

// One pass of an executor: waits up to `timeout` for the entity `add` puts in a wait set, then
// takes until `take` (filling an Item, returning rcl's code) answers `nothing_left`; `use` gets
// each Item taken.
template <typename Item, typename Add, typename Take, typename Use>
void spin_once(RclNode& n, std::chrono::milliseconds timeout, Add add, rcl_ret_t nothing_left,
               Take take, Use use) {
  wait_for(n, timeout, add);
  for (;;) {
    Item item{};
    const rcl_ret_t ret = take(item);
    if (ret == nothing_left) return;
    check(ret, "take");
    use(item);
  }
}

rmw_qos_profile_t topic_qos(int count, int hz) {
  rmw_qos_profile_t qos = rmw_qos_profile_default;  // reliable, volatile
  qos.depth = hz == 0 ? std::max(count, 10) : 10;
  return qos;
}

// ---- talk / listen ------------------------------------------------------------------------------

// Waits, asleep in rcl_wait on the publisher's matched event, until `done(subscriptions)` or the
// deadline; false on the deadline. Each match or unmatch wakes it.
template <typename Done>
bool wait_for_matches(RclNode& n, rcl_publisher_t& pub, Clock::time_point deadline, Done done) {
  rcl_event_t matched = rcl_get_zero_initialized_event();
  check(rcl_publisher_event_init(&matched, &pub, RCL_PUBLISHER_MATCHED), "publisher_event_init");
  for (;;) {
    size_t subs = 0;
    check(rcl_publisher_get_subscription_count(&pub, &subs), "get_subscription_count");
    if (done(subs)) break;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    if (wait_for(n, left, [&](rcl_wait_set_t& ws) {
          (void)rcl_wait_set_add_event(&ws, &matched, nullptr);
        })) {
      rmw_matched_status_t status{};
      (void)rcl_take_event(&matched, &status);  // re-arms the event; the count is read above
    }
  }
  (void)rcl_event_fini(&matched);
  size_t subs = 0;
  check(rcl_publisher_get_subscription_count(&pub, &subs), "get_subscription_count");
  return done(subs);
}

template <typename T>
int talk(const Kind<T>& kind, const char* topic, int count, int hz, double timeout_s, bool gated) {
  RclNode n("cpp_talker");
  rcl_publisher_t pub = rcl_get_zero_initialized_publisher();
  rcl_publisher_options_t options = rcl_publisher_get_default_options();
  options.qos = topic_qos(count, hz);
  check(rcl_publisher_init(&pub, &n.node,
                           rosidl_typesupport_cpp::get_message_type_support_handle<T>(), topic,
                           &options),
        "rcl_publisher_init");
  std::printf("ready\n");
  const auto deadline = deadline_in(timeout_s);
  (void)wait_for_matches(n, pub, deadline, [](size_t subs) { return subs > 0; });
  // Over DDS the two ends discover each other separately: the test sends a line once the listener
  // has matched this publisher too.
  if (gated) {
    std::string line;
    std::getline(std::cin, line);
  }
  int sent = 0;
  auto next = Clock::now();
  for (int i = 0; i < count && Clock::now() < deadline; ++i) {
    if (hz > 0) {  // the stream's rate (a camera's), not a wait for anything
      std::this_thread::sleep_until(next);
      next += std::chrono::microseconds(1000000 / hz);
    }
    const T msg = kind.make(i);
    check(rcl_publish(&pub, &msg, nullptr), "rcl_publish");
    ++sent;
  }
  std::printf("sent %d\n", sent);
  // Everything acknowledged (DDS), then the listener's exit.
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now());
  (void)rcl_publisher_wait_for_all_acked(&pub, std::max<int64_t>(left.count(), 0));
  rcutils_reset_error();
  (void)wait_for_matches(n, pub, deadline, [](size_t subs) { return subs == 0; });
  (void)rcl_publisher_fini(&pub, &n.node);
  return sent == count ? 0 : 1;
}

template <typename T>
int listen(const Kind<T>& kind, const char* topic, int count, double timeout_s) {
  RclNode n("cpp_listener");
  rcl_subscription_t sub = rcl_get_zero_initialized_subscription();
  rcl_subscription_options_t options = rcl_subscription_get_default_options();
  options.qos = topic_qos(count, 0);
  check(rcl_subscription_init(&sub, &n.node,
                              rosidl_typesupport_cpp::get_message_type_support_handle<T>(), topic,
                              &options),
        "rcl_subscription_init");
  std::printf("ready\n");
  std::map<int, int> seen;
  int different = 0;
  bool matched = false;
  const auto deadline = deadline_in(timeout_s);
  // After the last one, half a second more: a duplicate arriving late still counts.
  auto until = deadline;
  while (Clock::now() < until) {
    auto add = [&](rcl_wait_set_t& ws) { (void)rcl_wait_set_add_subscription(&ws, &sub, nullptr); };
    size_t publishers = 0;
    if (!matched && rcl_subscription_get_publisher_count(&sub, &publishers) == RCL_RET_OK &&
        publishers > 0) {
      matched = true;
      std::printf("matched\n");
    }
    auto take = [&](T& msg) { return rcl_take(&sub, &msg, nullptr, nullptr); };
    spin_once<T>(n, std::chrono::milliseconds(50), add, RCL_RET_SUBSCRIPTION_TAKE_FAILED, take,
                 [&](const T& msg) {
                   const int i = kind.index_of(msg);
                   const bool equal = i >= 0 && i < count && msg == kind.make(i);
                   different += equal ? 0 : 1;
                   ++seen[i];
                   std::printf("got %d %s\n", i, equal ? "equal" : "DIFFERENT");
                 });
    if (static_cast<int>(seen.size()) >= count && until == deadline)
      until = std::min(deadline, Clock::now() + std::chrono::milliseconds(500));
  }
  int duplicates = 0;
  for (const auto& [i, k] : seen) duplicates += k - 1;
  std::printf("summary distinct=%zu duplicates=%d different=%d\n", seen.size(), duplicates,
              different);
  (void)rcl_subscription_fini(&sub, &n.node);
  return static_cast<int>(seen.size()) == count && duplicates == 0 && different == 0 ? 0 : 1;
}

// ---- loans of a fixed-size type ----------------------------------------------------------------

using Fixed4k = baton_bench_msgs::msg::Fixed4k;

const rosidl_message_type_support_t* fixed4k_ts() {
  return rosidl_typesupport_cpp::get_message_type_support_handle<Fixed4k>();
}

// Byte j of loan i: differs between loans and along the frame.
uint8_t fixed4k_byte(int i, size_t j) {
  return static_cast<uint8_t>((j ^ (j >> 9) ^ (j >> 17)) + static_cast<size_t>(i) * 37);
}

bool fixed4k_equal(const Fixed4k& m, int i) {
  if (m.stamp.sec != i || m.seq != static_cast<uint64_t>(i)) return false;
  for (size_t j = 0; j < m.data.size(); ++j)
    if (m.data[j] != fixed4k_byte(i, j)) return false;
  return true;
}

int loan_talk(const char* topic, int count, double timeout_s) {
  RclNode n("cpp_loan_talker");
  rcl_publisher_t pub = rcl_get_zero_initialized_publisher();
  rcl_publisher_options_t options = rcl_publisher_get_default_options();
  options.qos = topic_qos(count, 0);
  check(rcl_publisher_init(&pub, &n.node, fixed4k_ts(), topic, &options), "rcl_publisher_init");
  if (!rcl_publisher_can_loan_messages(&pub)) {
    std::printf("loans no\n");
    return 1;
  }
  std::printf("ready\n");
  const auto deadline = deadline_in(timeout_s);
  (void)wait_for_matches(n, pub, deadline, [](size_t subs) { return subs > 0; });
  std::string line;
  std::getline(std::cin, line);  // the listener has matched this publisher too
  int sent = 0;
  for (int i = 0; i < count; ++i) {
    void* loan = nullptr;
    check(rcl_borrow_loaned_message(&pub, fixed4k_ts(), &loan), "rcl_borrow_loaned_message");
    auto* m = static_cast<Fixed4k*>(loan);
    m->stamp.sec = i;
    m->stamp.nanosec = 0;
    m->seq = static_cast<uint64_t>(i);
    for (size_t j = 0; j < m->data.size(); ++j) m->data[j] = fixed4k_byte(i, j);
    check(rcl_publish_loaned_message(&pub, loan, nullptr), "rcl_publish_loaned_message");
    ++sent;
  }
  std::printf("sent %d\n", sent);
  (void)wait_for_matches(n, pub, deadline, [](size_t subs) { return subs == 0; });
  (void)rcl_publisher_fini(&pub, &n.node);
  return sent == count ? 0 : 1;
}

int loan_listen(const char* topic, int count, double timeout_s) {
  RclNode n("cpp_loan_listener");
  rcl_subscription_t sub = rcl_get_zero_initialized_subscription();
  rcl_subscription_options_t options = rcl_subscription_get_default_options();
  options.qos = topic_qos(count, 0);
  options.disable_loaned_message = false;  // rcl's default keeps subscription loans off
  check(rcl_subscription_init(&sub, &n.node, fixed4k_ts(), topic, &options),
        "rcl_subscription_init");
  if (!rcl_subscription_can_loan_messages(&sub)) {
    std::printf("loans no\n");
    return 1;
  }
  std::printf("ready\n");
  std::map<int, int> seen;
  int bad = 0;
  bool matched = false;
  const auto deadline = deadline_in(timeout_s);
  while (static_cast<int>(seen.size()) < count && Clock::now() < deadline) {
    size_t publishers = 0;
    if (!matched && rcl_subscription_get_publisher_count(&sub, &publishers) == RCL_RET_OK &&
        publishers > 0) {
      matched = true;
      std::printf("matched\n");
    }
    (void)wait_for(n, std::chrono::milliseconds(50), [&](rcl_wait_set_t& ws) {
      (void)rcl_wait_set_add_subscription(&ws, &sub, nullptr);
    });
    for (;;) {
      void* loan = nullptr;
      const rcl_ret_t ret = rcl_take_loaned_message(&sub, &loan, nullptr, nullptr);
      if (ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) {
        rcutils_reset_error();
        break;
      }
      check(ret, "rcl_take_loaned_message");
      const auto& m = *static_cast<const Fixed4k*>(loan);
      const int i = static_cast<int>(m.seq);
      const bool equal = fixed4k_equal(m, i);
      const bool in_shm = baton::ros2::test::in_baton_mapping(loan);
      bad += equal && in_shm ? 0 : 1;
      ++seen[i];
      std::printf("got %d %s %s\n", i, equal ? "equal" : "DIFFERENT", in_shm ? "shm" : "copy");
      check(rcl_return_loaned_message_from_subscription(&sub, loan),
            "rcl_return_loaned_message_from_subscription");
    }
  }
  int duplicates = 0;
  for (const auto& [i, k] : seen) duplicates += k - 1;
  std::printf("summary distinct=%zu duplicates=%d bad=%d\n", seen.size(), duplicates, bad);
  (void)rcl_subscription_fini(&sub, &n.node);
  return static_cast<int>(seen.size()) == count && duplicates == 0 && bad == 0 ? 0 : 1;
}

// ---- services -----------------------------------------------------------------------------------

// The server's answer to one parameter: successful when its bool array has an even length, the
// reason names it, counts its true bools and repeats its string value.
rcl_interfaces::msg::SetParametersResult reply_for(const rcl_interfaces::msg::Parameter& p) {
  rcl_interfaces::msg::SetParametersResult r;
  int trues = 0;
  for (bool b : p.value.bool_array_value) trues += b ? 1 : 0;
  r.successful = p.value.bool_array_value.size() % 2 == 0;
  r.reason = p.name + ":" + std::to_string(trues) + ":" + p.value.string_value;
  return r;
}

const rosidl_service_type_support_t* set_parameters() {
  return rosidl_typesupport_cpp::get_service_type_support_handle<SetParameters>();
}

SetParameters::Request request_for(int i) {
  SetParameters::Request req;
  req.parameters = samples::parameter_event(i).new_parameters;
  for (auto& p : req.parameters) p.name += "_" + std::to_string(i);
  return req;
}

int serve(const char* service, double timeout_s) {
  RclNode n("cpp_server");
  rcl_service_t srv = rcl_get_zero_initialized_service();
  const rcl_service_options_t options = rcl_service_get_default_options();
  check(rcl_service_init(&srv, &n.node, set_parameters(), service, &options), "rcl_service_init");
  std::printf("ready\n");
  const auto deadline = deadline_in(timeout_s);
  int served = 0;
  while (Clock::now() < deadline) {
    using Request = std::pair<rmw_request_id_t, SetParameters::Request>;
    spin_once<Request>(
        n, std::chrono::milliseconds(100),
        [&](rcl_wait_set_t& ws) { (void)rcl_wait_set_add_service(&ws, &srv, nullptr); },
        RCL_RET_SERVICE_TAKE_FAILED,
        [&](Request& r) { return rcl_take_request(&srv, &r.first, &r.second); },
        [&](Request& r) {
          SetParameters::Response resp;
          for (const auto& p : r.second.parameters) resp.results.push_back(reply_for(p));
          check(rcl_send_response(&srv, &r.first, &resp), "rcl_send_response");
          std::printf("served %d\n", ++served);
        });
  }
  (void)rcl_service_fini(&srv, &n.node);
  return 0;
}

int call(const char* service, int count, double timeout_s) {
  const auto deadline = deadline_in(timeout_s);
  RclNode n("cpp_client");
  rcl_client_t client = rcl_get_zero_initialized_client();
  const rcl_client_options_t options = rcl_client_get_default_options();
  check(rcl_client_init(&client, &n.node, set_parameters(), service, &options), "rcl_client_init");
  std::printf("ready\n");
  // As rclcpp's wait_for_service: asleep on the node's graph guard condition, re-checking at each
  // graph change (and at least every second, should a change land between check and wait).
  const rcl_guard_condition_t* graph = rcl_node_get_graph_guard_condition(&n.node);
  bool available = false;
  for (;;) {
    check(rcl_service_server_is_available(&n.node, &client, &available), "is_available");
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (available || left.count() <= 0) break;
    (void)wait_for(n, std::min(left, std::chrono::milliseconds(1000)), [&](rcl_wait_set_t& ws) {
      (void)rcl_wait_set_add_guard_condition(&ws, graph, nullptr);
    });
  }
  if (!available) {
    std::printf("service not available\n");
    return 1;
  }
  std::map<int64_t, int> index_of_sequence;
  for (int i = 0; i < count; ++i) {
    const SetParameters::Request req = request_for(i);
    int64_t seq = 0;
    check(rcl_send_request(&client, &req, &seq), "rcl_send_request");
    index_of_sequence[seq] = i;
  }
  int ok = 0, replies = 0;
  while (replies < count && Clock::now() < deadline) {
    using Response = std::pair<rmw_service_info_t, SetParameters::Response>;
    spin_once<Response>(
        n, std::chrono::milliseconds(100),
        [&](rcl_wait_set_t& ws) { (void)rcl_wait_set_add_client(&ws, &client, nullptr); },
        RCL_RET_CLIENT_TAKE_FAILED,
        [&](Response& r) { return rcl_take_response_with_info(&client, &r.first, &r.second); },
        [&](const Response& r) {
          const auto it = index_of_sequence.find(r.first.request_id.sequence_number);
          const int i = it == index_of_sequence.end() ? -1 : it->second;
          SetParameters::Response expected;
          if (i >= 0)
            for (const auto& p : request_for(i).parameters)
              expected.results.push_back(reply_for(p));
          const bool right = i >= 0 && r.second == expected;
          ok += right ? 1 : 0;
          ++replies;
          std::printf("reply %d %s\n", i, right ? "ok" : "WRONG");
        });
  }
  std::printf("summary replies=%d ok=%d\n", replies, ok);
  (void)rcl_client_fini(&client, &n.node);
  return ok == count ? 0 : 1;
}

// ---- serialize / deserialize --------------------------------------------------------------------

struct Sample {
  std::string type;
  std::function<std::vector<uint8_t>()> serialize;
  // "equal", "DIFFERENT" or "ERROR <why>" for CDR bytes of this sample from any RMW.
  std::function<std::string(std::vector<uint8_t>)> decode;
};

template <typename T>
Sample sample(std::string type, T msg) {
  const auto* ts = rosidl_typesupport_cpp::get_message_type_support_handle<T>();
  Sample s;
  s.type = std::move(type);
  s.serialize = [ts, msg] {
    rmw_serialized_message_t out = rmw_get_zero_initialized_serialized_message();
    rcutils_allocator_t allocator = rcutils_get_default_allocator();
    check(
        rmw_serialized_message_init(&out, 0, &allocator) == RMW_RET_OK ? RCL_RET_OK : RCL_RET_ERROR,
        "rmw_serialized_message_init");
    check(rmw_serialize(&msg, ts, &out) == RMW_RET_OK ? RCL_RET_OK : RCL_RET_ERROR,
          "rmw_serialize");
    std::vector<uint8_t> bytes(out.buffer, out.buffer + out.buffer_length);
    (void)rmw_serialized_message_fini(&out);
    return bytes;
  };
  s.decode = [ts, msg](std::vector<uint8_t> bytes) -> std::string {
    rmw_serialized_message_t in = rmw_get_zero_initialized_serialized_message();
    in.buffer = bytes.data();
    in.buffer_length = in.buffer_capacity = bytes.size();
    in.allocator = rcutils_get_default_allocator();
    T back;
    if (rmw_deserialize(&in, ts, &back) != RMW_RET_OK) {
      std::string why = std::string("ERROR ") + rcutils_get_error_string().str;
      rcutils_reset_error();
      return why;
    }
    return back == msg ? "equal" : "DIFFERENT";
  };
  return s;
}

std::vector<Sample> samples_to_serialize() {
  return {
      sample("std_msgs/msg/String", samples::string_msg(1)),
      sample("std_msgs/msg/String", std_msgs::msg::String()),
      sample("sensor_msgs/msg/Image", samples::image(2, 64, 48)),
      sample("sensor_msgs/msg/JointState", samples::joint_state(3)),
      sample("sensor_msgs/msg/CameraInfo", samples::camera_info(4)),
      sample("rcl_interfaces/msg/ParameterEvent", samples::parameter_event(5)),
      sample("rcl_interfaces/msg/ParameterDescriptor", samples::parameter_descriptor(6)),
      sample("rmw_dds_common/msg/ParticipantEntitiesInfo", samples::participant_info(7)),
      sample("geometry_msgs/msg/Point", samples::point(8)),
  };
}

std::string hex(const std::vector<uint8_t>& bytes) {
  constexpr char DIGITS[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) out.append({DIGITS[b >> 4], DIGITS[b & 15]});
  return out;
}

int serialize() {
  int failed = 0;
  for (const auto& s : samples_to_serialize()) {
    const auto bytes = s.serialize();
    const std::string back = s.decode(bytes);
    failed += back == "equal" ? 0 : 1;
    std::printf("%s %s\nroundtrip %s %s\n", s.type.c_str(), hex(bytes).c_str(), s.type.c_str(),
                back.c_str());
  }
  return failed == 0 ? 0 : 1;
}

int deserialize(const char* file) {
  std::ifstream in(file);
  int failed = 0;
  size_t k = 0;
  const auto all = samples_to_serialize();
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string type, text;
    if (!(fields >> type >> text) || type == "roundtrip") continue;  // serialize's verdicts
    if (k >= all.size() || all[k].type != type) {
      std::printf("decoded %s ERROR not sample %zu\n", type.c_str(), k++);
      ++failed;
      continue;
    }
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i + 1 < text.size(); i += 2)
      bytes.push_back(static_cast<uint8_t>(std::stoi(text.substr(i, 2), nullptr, 16)));
    const std::string verdict = all[k++].decode(bytes);
    failed += verdict == "equal" ? 0 : 1;
    std::printf("decoded %s %s\n", type.c_str(), verdict.c_str());
  }
  return failed == 0 && k == all.size() ? 0 : 1;
}

// ---- main ---------------------------------------------------------------------------------------

template <typename T>
int run_topic(const std::string& mode, const Kind<T>& kind, int argc, char** argv) {
  if (mode == "talk")
    return talk(kind, argv[3], std::atoi(argv[4]), std::atoi(argv[5]), std::atof(argv[6]),
                argc == 8 && std::string(argv[7]) == "gated");
  return listen(kind, argv[3], std::atoi(argv[4]), std::atof(argv[5]));
}

int usage() {
  std::fprintf(stderr,
               "usage: talk KIND TOPIC COUNT HZ TIMEOUT_S [gated] | listen KIND TOPIC COUNT "
               "TIMEOUT_S | "
               "serve SERVICE TIMEOUT_S | call SERVICE COUNT TIMEOUT_S | serialize | "
               "deserialize FILE | loan_talk TOPIC COUNT TIMEOUT_S | "
               "loan_listen TOPIC COUNT TIMEOUT_S\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the test that started it
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "serialize") return serialize();
  if (mode == "deserialize" && argc == 3) return deserialize(argv[2]);
  if (mode == "serve" && argc == 4) return serve(argv[2], std::atof(argv[3]));
  if (mode == "call" && argc == 5) return call(argv[2], std::atoi(argv[3]), std::atof(argv[4]));
  if (mode == "loan_talk" && argc == 5)
    return loan_talk(argv[2], std::atoi(argv[3]), std::atof(argv[4]));
  if (mode == "loan_listen" && argc == 5)
    return loan_listen(argv[2], std::atoi(argv[3]), std::atof(argv[4]));
  if (!((mode == "talk" && (argc == 7 || argc == 8)) || (mode == "listen" && argc == 6)))
    return usage();
  const std::string kind = argv[2];
  if (kind == "string") return run_topic(mode, string_kind(), argc, argv);
  if (kind == "image4k") return run_topic(mode, image4k_kind(), argc, argv);
  if (kind == "event") return run_topic(mode, event_kind(), argc, argv);
  if (kind == "camera_info") return run_topic(mode, camera_info_kind(), argc, argv);
  if (kind == "descriptor") return run_topic(mode, descriptor_kind(), argc, argv);
  if (kind == "participant") return run_topic(mode, participant_kind(), argc, argv);
  return usage();
}
