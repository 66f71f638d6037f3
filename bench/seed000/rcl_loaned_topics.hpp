// Seed 000's topics through rcl with loaned messages (transport rcl-baton-loan-topic of
// baton-bench-seed000-rcl): the data flow of native baton's rows (run_baton in baton_seed000.cpp,
// whose header describes it) with rcl's loan calls, as rclcpp's borrow_loaned_message() and
// loaned takes do, on rmw_baton_cpp. Nothing copies the data:
//
//   2-node cache: the CPU node borrows a baton_bench_msgs/FloatShare, writes the matrix into it
//   and publishes the loan; the GPU node's kernel reads it where it lies and writes its sums
//   into a borrowed result. Otherwise the coordinator publishes a step (Fixed64: its seq); each
//   worker reads its input in place from the result topic that holds it (its own previous
//   result; a cache GPU node, the matching CPU node's), computes into a borrowed result and
//   publishes it; the coordinator reads the results in place and returns them.
//
// FloatShare is fixed-size (count of its 2 Mi floats used), so rmw_baton_cpp lends it; the
// program fails unless every endpoint can loan.
#pragma once

#include <baton_bench_msgs/msg/fixed64.hpp>
#include <baton_bench_msgs/msg/float_share.hpp>
#include <memory>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "bench/seed000/harness.hpp"
#include "rcl_node.hpp"

namespace seed000 {

namespace rcl_loans {

namespace rcl = baton::bench::rcl;
using FloatShare = baton_bench_msgs::msg::FloatShare;
using Step = baton_bench_msgs::msg::Fixed64;
constexpr double kTimeoutS = 60;  // per match and per message: a stuck row fails, never hangs

template <typename Msg>
const rosidl_message_type_support_t* ts() {
  return rosidl_typesupport_cpp::get_message_type_support_handle<Msg>();
}

inline rmw_qos_profile_t qos() { return rcl::reliable_qos(2); }  // native baton's QoS(2)

template <typename E>
E& loaning(E& e, const char* what) {
  if (!e.can_loan()) fail(std::string(what) + ": rmw_baton_cpp lends no messages of this type");
  return e;
}

// A borrowed FloatShare, `count` floats used, stamped `seq`.
inline FloatShare* borrow_share(rcl::Publisher& pub, std::size_t count, std::uint64_t seq) {
  auto* m = static_cast<FloatShare*>(pub.borrow());
  m->seq = seq;
  m->count = count;
  return m;
}

// The next loaned FloatShare on `sub`, checked to hold `count` floats.
inline const FloatShare* take_share(rcl::Subscription& sub, std::size_t count) {
  const auto* m = static_cast<const FloatShare*>(sub.take_loaned(rcl::seconds(kTimeoutS)));
  if (m == nullptr) fail("no share within the timeout");
  if (m->count != count) fail("a share of the wrong size");
  return m;
}

// `done`: a pipe the workers hold their endpoints on until the coordinator closes its write end
// after the last step (a node that leaves drops what it has not delivered yet).
inline std::vector<double> run(const Options& o, const std::string& rmw, int done[2]) {
  const Plan p = Plan::make(o.bench, o.nodes);
  const std::size_t capacity = std::tuple_size_v<decltype(FloatShare::data)>;
  for (const Role& r : p.workers)
    if (p.input(r).count > capacity || p.output(r).count > capacity || kCacheFloats > capacity)
      fail("a share does not fit a FloatShare");
  const bool matrix_step = seed000::matrix_step(p);
  auto result_topic = [](const Role& r) { return "/seed000_loan_result_" + r.name(); };
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      close(done[1]);
      auto gpu = gpu_for(o, r);
      rcl::Node node(r.name() + "_node");
      node.expect_rmw(rmw);
      const Span si = p.input(r), so = p.output(r);
      rcl::Publisher out(node, ts<FloatShare>(), result_topic(r), qos());
      rcl::Subscription in(node, ts<FloatShare>(),
                           matrix_step ? "/seed000_loan_matrix" : result_topic(input_source(p, r)),
                           qos(), true);
      loaning(out, "worker result");
      loaning(in, "worker input");
      rcl::await([&] { return out.subscribers() >= result_readers(p, r); }, kTimeoutS,
                 "worker results did not match");
      // Subscribing to the step topic last tells the coordinator this node is ready.
      rcl::Subscription step(node, ts<Step>(), "/seed000_loan_step", qos(), true);
      loaning(step, "worker step");
      auto init = initial_data(p.floats());
      for (int k = 0; k < o.total(); ++k) {
        const FloatShare* input = nullptr;
        if (matrix_step) {
          input = take_share(in, p.floats());
        } else {
          const void* s = step.take_loaned(rcl::seconds(kTimeoutS));
          if (s == nullptr) fail("worker: no step");
          step.return_loan(s);
          if (k > 0) input = take_share(in, si.count);  // the previous step's result, in place
        }
        const float* data = input ? input->data.data() : init.data() + si.offset;
        FloatShare* result = borrow_share(out, so.count, static_cast<std::uint64_t>(k));
        compute(p, r, gpu.get(), data, result->data.data());
        out.publish_loaned(result);
        if (input) in.return_loan(input);
      }
      char c;
      while (read(done[0], &c, 1) > 0) {
      }
    }));
  }
  close(done[0]);
  rcl::Node node(p.coordinator_is_cpu() ? "cpu_node" : "scheduler_node");
  node.expect_rmw(rmw);
  rcl::Publisher matrix(node, ts<FloatShare>(), "/seed000_loan_matrix", qos());
  rcl::Publisher step(node, ts<Step>(), "/seed000_loan_step", qos());
  loaning(matrix, "coordinator matrix");
  loaning(step, "coordinator step");
  std::vector<std::unique_ptr<rcl::Subscription>> results;
  for (const Role& r : p.workers) {
    results.push_back(
        std::make_unique<rcl::Subscription>(node, ts<FloatShare>(), result_topic(r), qos(), true));
    loaning(*results.back(), "coordinator result");
  }
  const std::size_t nw = p.workers.size();
  rcl::await(
      [&] {
        if (step.subscribers() < nw || (matrix_step && matrix.subscribers() < nw)) return false;
        for (auto& s : results)
          if (s->publishers() == 0) return false;
        return true;
      },
      kTimeoutS, "coordinator topics did not match");
  auto state = initial_data(p.floats());
  std::vector<float> own = coordinator_own_share(p, state);
  auto t = Timer{o, {}}.loop([&](int k) {
    if (matrix_step) {
      FloatShare* m = borrow_share(matrix, kCacheFloats, static_cast<std::uint64_t>(k));
      own_share([&] { cpu_cache_pass(state.data(), m->data.data(), kCacheFloats); });
      matrix.publish_loaned(m);
    } else {
      auto* s = static_cast<Step*>(step.borrow());
      s->seq = static_cast<std::uint64_t>(k);
      step.publish_loaned(s);
      if (!own.empty()) own_share([&] { cpu_concurrent_pass(own.data(), own.data(), own.size()); });
    }
    for (std::size_t w = 0; w < nw; ++w) {
      const FloatShare* m = take_share(*results[w], p.output(p.workers[w]).count);
      if (m->seq != static_cast<std::uint64_t>(k)) fail("coordinator: a result of another step");
      g_sink = g_sink + m->data[0];  // the merge: read in place, nothing copied
      results[w]->return_loan(m);
    }
  });
  close(done[1]);
  results.clear();
  reap(kids);
  return t;
}

}  // namespace rcl_loans

}  // namespace seed000
