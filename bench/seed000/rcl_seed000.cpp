// baton-bench-seed000-rcl: seed 000's ROS-SC rows as rcl C++ nodes, the layer under rclcpp.
//
// Same benchmarks, architectures, device models, timing and output as baton-bench-seed000
// (harness.hpp, whose header says what a step is); here every node is a process with one rcl
// node and C++ messages (rosidl_typesupport_cpp), on the RMW the process gets: rmw_fastrtps_cpp
// (the wheels' rcl links it: the paper's ROS-SC on Fast DDS) or rmw_baton_cpp (LD_PRELOAD +
// RMW_IMPLEMENTATION). The transport names the RMW, and the program refuses to run a row on
// another one, so a row can never carry the wrong label:
//
//   rcl-fastrtps-topic | rcl-baton-topic
//       sensor_msgs/msg/Image (32FC1, one row of floats; header.stamp.sec = step) on topics, as
//       run_dds in baton_seed000.cpp: the coordinator publishes the step's data on one topic
//       every worker reads (2 nodes: the GPU node's share), each worker replies its result on
//       its own topic, the coordinator merges (copies) the results into its data.
//   rcl-fastrtps-service | rcl-baton-service
//       rcl services. No service type the ROS 2 wheels ship carries bytes both ways (their only
//       srv with a uint8[] field, rcl_interfaces/srv/GetParameterTypes, has it in the response),
//       so each worker serves two: rcl_interfaces/srv/SetParameters brings it its share
//       (parameters[0].value.byte_array_value) and rcl_interfaces/srv/GetParameters returns the
//       result (values[0].byte_array_value). The coordinator sends both requests back to back;
//       the small SetParameters reply and GetParameters request overlap the worker's compute,
//       so a step costs one extra small message each way over a single bytes-both-ways srv.
//
//   rcl-baton-loan-topic
//       rcl loans on rmw_baton_cpp (rcl_loaned_topics.hpp): native baton's data flow, nothing
//       copied, with the fixed-size baton_bench_msgs/FloatShare. rcl has no loans for services.
//
// Otherwise a message's data is copied in and out of the node's own buffers, as an rclcpp node
// without loans does: that copy is what ROS-SC measures.
#include <cstring>
#include <memory>
#include <rcl_interfaces/msg/parameter_type.hpp>
#include <rcl_interfaces/srv/get_parameters.hpp>
#include <rcl_interfaces/srv/set_parameters.hpp>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <rosidl_typesupport_cpp/service_type_support.hpp>
#include <sensor_msgs/msg/image.hpp>
#include <string>
#include <vector>

#include "bench/seed000/harness.hpp"
#include "bench/seed000/rcl_loaned_topics.hpp"
#include "rcl_node.hpp"

namespace {

using namespace seed000;
namespace rcl = baton::bench::rcl;
using Image = sensor_msgs::msg::Image;
using SetParameters = rcl_interfaces::srv::SetParameters;
using GetParameters = rcl_interfaces::srv::GetParameters;

constexpr double kTimeoutS = 60;  // per match and per reply: a stuck row fails, never hangs

const rosidl_message_type_support_t* image_ts() {
  return rosidl_typesupport_cpp::get_message_type_support_handle<Image>();
}

// The RMW a transport names (rcl::Node::expect_rmw checks that the process runs on it).
std::string rmw_of(const std::string& transport) {
  if (transport.rfind("rcl-fastrtps-", 0) == 0) return "rmw_fastrtps_cpp";
  if (transport.rfind("rcl-baton-", 0) == 0) return "rmw_baton_cpp";
  fail("unknown transport " + transport +
       " (rcl-fastrtps-topic, rcl-fastrtps-service, rcl-baton-topic, rcl-baton-service, "
       "rcl-baton-loan-topic)");
}

// An Image holding `floats` floats as one 32FC1 row.
void shape(Image& m, std::size_t floats) {
  m.encoding = "32FC1";
  m.height = 1;
  m.width = static_cast<std::uint32_t>(floats);
  m.step = static_cast<std::uint32_t>(floats * sizeof(float));
  m.data.resize(floats * sizeof(float));
}

float* floats_of(std::vector<std::uint8_t>& bytes) {
  return reinterpret_cast<float*>(bytes.data());
}

// Workers hold their endpoints until the coordinator closes this pipe after its last step (a
// node that leaves drops what it has not delivered yet).
int g_done[2] = {-1, -1};
void await_coordinator() {
  char c;
  while (read(g_done[0], &c, 1) > 0) {
  }
}

std::string service_name(const Role& r, const char* what) {
  return "/seed000_" + r.name() + "/" + what;
}

// ---------------------------------------------------------------- topics --------------------
std::vector<double> run_topics(const Options& o, const std::string& rmw) {
  const Plan p = Plan::make(o.bench, o.nodes);
  const bool whole = !p.coordinator_is_cpu();  // one send topic carrying the whole array
  auto reply_topic = [](const Role& r) { return "/seed000_reply_" + r.name(); };
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      close(g_done[1]);
      auto gpu = gpu_for(o, r);
      rcl::Node node(r.name() + "_node");
      node.expect_rmw(rmw);
      rcl::Subscription in(node, image_ts(), "/seed000_send", rcl::reliable_qos(2));
      rcl::Publisher out(node, image_ts(), reply_topic(r), rcl::reliable_qos(2));
      rcl::await([&] { return in.publishers() > 0 && out.subscribers() > 0; }, kTimeoutS,
                 "worker topics did not match");
      const Span si = p.input(r), so = p.output(r);
      Image req, rep;
      shape(rep, so.count);
      for (int k = 0; k < o.total(); ++k) {
        if (!in.take(&req, rcl::seconds(kTimeoutS))) fail("worker: no step message");
        const std::size_t want = whole ? p.floats() * sizeof(float) : si.bytes();
        if (req.data.size() != want) fail("worker: wrong request size");
        const float* data = floats_of(req.data) + (whole ? si.offset : 0);
        compute(p, r, gpu.get(), data, floats_of(rep.data));
        rep.header.stamp.sec = req.header.stamp.sec;
        out.publish(&rep);
      }
      await_coordinator();
    }));
  }
  close(g_done[0]);
  rcl::Node node(p.coordinator_is_cpu() ? "cpu_node" : "scheduler_node");
  node.expect_rmw(rmw);
  rcl::Publisher send(node, image_ts(), "/seed000_send", rcl::reliable_qos(2));
  std::vector<std::unique_ptr<rcl::Subscription>> replies;
  for (const Role& r : p.workers)
    replies.push_back(std::make_unique<rcl::Subscription>(node, image_ts(), reply_topic(r),
                                                          rcl::reliable_qos(2)));
  rcl::await(
      [&] {
        if (send.subscribers() < p.workers.size()) return false;
        for (auto& s : replies)
          if (s->publishers() == 0) return false;
        return true;
      },
      kTimeoutS, "coordinator topics did not match");
  // The step's data lives in the message the coordinator publishes (2 nodes: the GPU node's
  // share is all of it for the cache benchmark, its half for the concurrent one).
  auto state = initial_data(p.floats());
  const Span gpu_in = p.input(p.workers.back());
  Image msg;
  shape(msg, whole ? p.floats() : gpu_in.count);
  std::vector<float> data = state, sums(Plan::sums_floats());
  Image rep;
  auto t = Timer{o, {}}.loop([&](int k) {
    float* out = floats_of(msg.data);
    if (p.coordinator_is_cpu() && p.bench == Bench::Cache) {
      own_share([&] { cpu_cache_pass(state.data(), out, kCacheFloats); });
    } else {
      std::memcpy(out, data.data() + (whole ? 0 : gpu_in.offset), msg.data.size());
    }
    msg.header.stamp.sec = k;
    send.publish(&msg);
    coordinator_concurrent_share(p, data.data());
    for (std::size_t w = 0; w < replies.size(); ++w) {
      const Role& r = p.workers[w];
      const Span so = p.output(r);
      if (!replies[w]->take(&rep, rcl::seconds(kTimeoutS))) fail("coordinator: no reply");
      if (rep.header.stamp.sec != k || rep.data.size() != so.bytes())
        fail("coordinator: wrong reply");
      float* dst = merge_target(p, r, sums.data(), data.data());
      std::memcpy(dst, rep.data.data(), so.bytes());  // the merge
    }
    g_sink = g_sink + sums[0] + data[0];
  });
  close(g_done[1]);
  replies.clear();
  reap(kids);
  return t;
}

// ---------------------------------------------------------------- services ------------------
std::vector<double> run_services(const Options& o, const std::string& rmw) {
  const Plan p = Plan::make(o.bench, o.nodes);
  const auto* set_ts = rosidl_typesupport_cpp::get_service_type_support_handle<SetParameters>();
  const auto* get_ts = rosidl_typesupport_cpp::get_service_type_support_handle<GetParameters>();
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      close(g_done[1]);
      auto gpu = gpu_for(o, r);
      rcl::Node node(r.name() + "_node");
      node.expect_rmw(rmw);
      rcl::Service set(node, set_ts, service_name(r, "set"));
      rcl::Service get(node, get_ts, service_name(r, "get"));
      const Span si = p.input(r), so = p.output(r);
      SetParameters::Request set_req;
      SetParameters::Response set_rep;
      set_rep.results.resize(1);
      set_rep.results[0].successful = true;
      GetParameters::Request get_req;
      GetParameters::Response get_rep;
      get_rep.values.resize(1);
      get_rep.values[0].type = rcl_interfaces::msg::ParameterType::PARAMETER_BYTE_ARRAY;
      auto& result = get_rep.values[0].byte_array_value;
      result.resize(so.bytes());
      for (int k = 0; k < o.total(); ++k) {
        rmw_request_id_t id{};
        if (!set.take_request(&set_req, id, rcl::seconds(kTimeoutS))) fail("worker: no request");
        if (set_req.parameters.size() != 1 ||
            set_req.parameters[0].value.byte_array_value.size() != si.bytes())
          fail("worker: wrong request size");
        compute(p, r, gpu.get(), floats_of(set_req.parameters[0].value.byte_array_value),
                floats_of(result));
        set.send_response(id, &set_rep);
        if (!get.take_request(&get_req, id, rcl::seconds(kTimeoutS)))
          fail("worker: no result request");
        get.send_response(id, &get_rep);
      }
      await_coordinator();
    }));
  }
  close(g_done[0]);
  rcl::Node node(p.coordinator_is_cpu() ? "cpu_node" : "scheduler_node");
  node.expect_rmw(rmw);
  std::vector<std::unique_ptr<rcl::Client>> sets, gets;
  for (const Role& r : p.workers) {
    sets.push_back(std::make_unique<rcl::Client>(node, set_ts, service_name(r, "set")));
    gets.push_back(std::make_unique<rcl::Client>(node, get_ts, service_name(r, "get")));
  }
  rcl::await(
      [&] {
        for (std::size_t w = 0; w < sets.size(); ++w)
          if (!sets[w]->server_ready() || !gets[w]->server_ready()) return false;
        return true;
      },
      kTimeoutS, "services were not available");
  auto state = initial_data(p.floats());
  std::vector<float> data = state, sums(Plan::sums_floats());
  std::vector<SetParameters::Request> set_reqs(p.workers.size());
  for (std::size_t w = 0; w < set_reqs.size(); ++w) {
    set_reqs[w].parameters.resize(1);
    set_reqs[w].parameters[0].name = "share";
    set_reqs[w].parameters[0].value.type = rcl_interfaces::msg::ParameterType::PARAMETER_BYTE_ARRAY;
    set_reqs[w].parameters[0].value.byte_array_value.resize(p.input(p.workers[w]).bytes());
  }
  GetParameters::Request get_req;
  get_req.names = {"result"};
  SetParameters::Response set_rep;
  GetParameters::Response get_rep;
  std::vector<std::int64_t> set_seq(p.workers.size()), get_seq(p.workers.size());
  auto t = Timer{o, {}}.loop([&](int) {
    for (std::size_t w = 0; w < sets.size(); ++w) {
      const Span si = p.input(p.workers[w]);
      float* share = floats_of(set_reqs[w].parameters[0].value.byte_array_value);
      if (p.coordinator_is_cpu() && p.bench == Bench::Cache) {
        own_share([&] { cpu_cache_pass(state.data(), share, kCacheFloats); });
      } else {
        std::memcpy(share, data.data() + si.offset, si.bytes());
      }
      set_seq[w] = sets[w]->send_request(&set_reqs[w]);
      get_seq[w] = gets[w]->send_request(&get_req);
    }
    coordinator_concurrent_share(p, data.data());
    for (std::size_t w = 0; w < sets.size(); ++w) {
      const Role& r = p.workers[w];
      const Span so = p.output(r);
      if (!sets[w]->take_response(&set_rep, set_seq[w], rcl::seconds(kTimeoutS)))
        fail("coordinator: no reply");
      if (!gets[w]->take_response(&get_rep, get_seq[w], rcl::seconds(kTimeoutS)))
        fail("coordinator: no result");
      if (get_rep.values.size() != 1 || get_rep.values[0].byte_array_value.size() != so.bytes())
        fail("coordinator: wrong result size");
      float* dst = merge_target(p, r, sums.data(), data.data());
      std::memcpy(dst, get_rep.values[0].byte_array_value.data(), so.bytes());  // the merge
    }
    g_sink = g_sink + sums[0] + data[0];
  });
  close(g_done[1]);
  sets.clear();
  gets.clear();
  reap(kids);
  return t;
}

constexpr const char* kUsage =
    "usage: baton-bench-seed000-rcl --transport rcl-fastrtps-topic|rcl-fastrtps-service|\n"
    "         rcl-baton-topic|rcl-baton-service|rcl-baton-loan-topic [--bench cache|concurrent]\n"
    "         [--nodes 2|3|5]\n"
    "         [--model SC|UM|ZC] [--runs N] [--warmup N] [--quick] [--json PATH] [--raw CSV]\n"
    "         [--phases CSV]\n"
    "Seed 000's ROS-SC rows as rcl C++ nodes (C++ messages) on the RMW the transport names;\n"
    "rmw_baton_cpp needs LD_PRELOAD=librmw_baton_cpp.so RMW_IMPLEMENTATION=rmw_baton_cpp, and\n"
    "both need the ROS 2 wheels' libraries (bench/suite/exp_seed000.py sets it all up).\n";

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv, kUsage);
  const std::string rmw = rmw_of(o.transport);
  const bool service = o.transport.ends_with("-service");
  if (!service && !o.transport.ends_with("-topic")) rmw_of("");  // fails, naming the transports
  if (pipe(g_done) != 0) fail("pipe");
  if (o.transport == "rcl-baton-loan-topic")
    finish(o, rcl_loans::run(o, rmw, g_done));
  else
    finish(o, service ? run_services(o, rmw) : run_topics(o, rmw));
  return 0;
}
