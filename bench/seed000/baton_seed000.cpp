// baton-bench-seed000: seed 000's Tables 2-5 on this machine's OpenCL device.
//
// The cache and the concurrent benchmark (workload.hpp) run as ROS-style nodes in the paper's
// architectures (2 nodes: CPU node + GPU-wrapper node; 3 nodes: scheduler + CPU node + GPU node;
// 5 nodes: scheduler + 2 CPU nodes + 2 GPU nodes), exchanging their data through one of the
// transports below. None of them is ROS: the paper's ROS-SC rows (rclcpp on DDS) are rcl C++
// nodes in baton-bench-seed000-rcl (rcl_seed000.cpp), on rmw_fastrtps_cpp and on rmw_baton_cpp.
//
//   native              no middleware, one process (the reference for the overhead column); the
//                       concurrent benchmark's CPU and device shares run at the same time
//   cyclonedds-topic    raw CycloneDDS writers / readers, one process per node (a DDS copy path
//                       without rcl / rmw; kept beside the rcl rows): the coordinator publishes
//                       the step's data on one topic all workers read, each worker replies its
//                       share on its own topic, the coordinator merges (copies)
//   cyclonedds-service  a request / reply topic pair per worker (what rmw does for a service),
//                       each request carrying that worker's share
//   ros-zc              a STAND-IN for ROS-ZC (rclcpp's intra-process unique_ptr path, which the
//                       ROS 2 wheels do not ship): every node a thread of one process, baton's
//                       intra-process Publisher<T>::publish(std::unique_ptr<T>) = unique
//                       ownership. A message read by several nodes is moved to one and copied
//                       for the others; a worker computes in the message it received and
//                       publishes it back (moved)
//   ros-shm-zc          ROS-SHM-ZC as seed 000 built it: the data in one POSIX shared-memory
//                       buffer mapped by every node (double-buffered where a step reads what the
//                       previous one wrote); its small sync messages go over raw CycloneDDS
//                       topics here, not rcl
//   baton               baton shared-memory topics, one process per node. 2-node cache: the CPU
//                       node writes the matrix into a loan, the GPU node's kernel reads it in
//                       place. Otherwise the data lives in the workers' result topics: the
//                       coordinator publishes a step message, each worker reads its input from
//                       the result topic that holds it (its own previous result; for the cache
//                       benchmark's GPU nodes, the matching CPU node's), computes out of place
//                       into a loan and publishes it; the coordinator reads the results in
//                       place. No copy anywhere, and no shared mutable buffer.
//
// Per run the coordinator times one step: send, the workers' shares (and, with 2 nodes, its own
// CPU share: before sending for the cache benchmark, at the same time as the GPU node for the
// concurrent one), every reply received and merged. `--warmup` untimed steps come first (default
// 5: every transport's buffers, rings and wrapped device buffers are touched before timing).
// Mean / SD / median / p99 / max in ms over `--runs` runs; JSON line to --json, runs to --raw
// (harness.hpp).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "bench/common/dds_link.hpp"
#include "bench/seed000/harness.hpp"

namespace seed000 {
// ROS-ZC messages: plain structs moved by unique_ptr between the nodes' threads.
struct CacheMsg {
  float m[kCacheFloats];
  float sums[kRows];
};
struct ConcMsg {
  float a[kConcFloats];
};
}  // namespace seed000
BATON_MESSAGE(seed000::CacheMsg, "baton_bench/msg/Seed000CacheMsg");
BATON_MESSAGE(seed000::ConcMsg, "baton_bench/msg/Seed000ConcMsg");

namespace {

using namespace seed000;
using namespace std::chrono_literals;
namespace dds = baton::bench::dds;

// ---------------------------------------------------------------- native reference ----------
std::vector<double> run_native(const Options& o) {
  Timer tm{o, {}};
  if (o.bench == Bench::Cache) {
    GpuWorker gpu(o.model, kCacheFloats);
    auto state = initial_data(kCacheFloats);
    float* msg = o.model == CommModel::UM ? gpu.svm_input() : aligned_floats(kCacheFloats);
    std::vector<float> sums(kRows);
    auto t = tm.loop([&](int) {
      gpu.host_access(msg, kCacheFloats * sizeof(float), true);
      own_share([&] { cpu_cache_pass(state.data(), msg, kCacheFloats); });
      gpu.host_access(msg, kCacheFloats * sizeof(float), false);
      gpu.reduce(msg, kRows, sums.data());
      g_sink = g_sink + sums[0];
    });
    if (o.model != CommModel::UM) std::free(msg);
    return t;
  }
  const std::size_t half = kConcFloats / 2;
  GpuWorker gpu(o.model, half);
  float* a = aligned_floats(kConcFloats);
  auto init = initial_data(kConcFloats);
  std::memcpy(a, init.data(), kConcFloats * sizeof(float));
  float* g = a;  // the device's half, in place
  if (o.model == CommModel::UM) {
    g = gpu.svm_input();
    gpu.host_access(g, half * sizeof(float), true);
    std::memcpy(g, a, half * sizeof(float));
    gpu.host_access(g, half * sizeof(float), false);
  }
  float* c = a + half;
  auto t = tm.loop([&](int) {
    gpu.concurrent(g, g, half, [&] { own_share([&] { cpu_concurrent_pass(c, c, half); }); });
    g_sink = g_sink + c[0];
  });
  std::free(a);
  return t;
}

// ---------------------------------------------------------------- CycloneDDS (stand-in) -----
// Topic mode: "seed000_send" (the step's data; read by every worker) + "seed000_reply_<w>".
// Service mode: "rq/seed000_<w>Request" / "rr/seed000_<w>Reply" per worker (rmw's naming).
std::vector<double> run_dds(const Options& o, bool service) {
  const Plan p = Plan::make(o.bench, o.nodes);
  // With 2 nodes, or per request, a message carries the worker's share; a multi-node topic
  // message carries the whole array (one send topic shared by every subscriber node).
  const bool whole = !service && !p.coordinator_is_cpu();
  auto req_topic = [&](const Role& r) {
    return service ? "rq/seed000_" + r.name() + "Request" : std::string("seed000_send");
  };
  auto rep_topic = [&](const Role& r) {
    return service ? "rr/seed000_" + r.name() + "Reply" : "seed000_reply_" + r.name();
  };
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      auto gpu = gpu_for(o, r);
      dds::Participant part(o.domain);
      dds::Reader in(part, req_topic(r));
      dds::Writer out(part, rep_topic(r));
      dds::wait_until([&] { return in.matched() > 0 && out.matched() > 0; }, "worker topics");
      const Span si = p.input(r), so = p.output(r);
      std::vector<float> result(so.count);
      for (int k = 0; k < o.total(); ++k) {
        std::uint64_t seq = 0;
        in.take([&](std::uint64_t s, const std::uint8_t* bytes, std::size_t n) {
          const std::size_t want = whole ? p.floats() * sizeof(float) : si.bytes();
          if (n != want) fail("worker: wrong request size");
          seq = s;
          const float* data = reinterpret_cast<const float*>(bytes) + (whole ? si.offset : 0);
          compute(p, r, gpu.get(), data, result.data());  // in the loaned sample
        });
        out.write(seq, result.data(), so.bytes());
      }
    }));
  }
  dds::Participant part(o.domain);
  std::vector<std::unique_ptr<dds::Writer>> send;
  std::vector<std::unique_ptr<dds::Reader>> replies;
  for (const Role& r : p.workers) {
    if (service || send.empty()) send.push_back(std::make_unique<dds::Writer>(part, req_topic(r)));
    replies.push_back(std::make_unique<dds::Reader>(part, rep_topic(r)));
  }
  const auto nw = static_cast<std::uint32_t>(p.workers.size());
  dds::wait_until(
      [&] {
        for (auto& w : send)
          if (w->matched() < (service ? 1u : nw)) return false;
        for (auto& r : replies)
          if (r->matched() == 0) return false;
        return true;
      },
      "coordinator topics");
  auto state = initial_data(p.floats());
  std::vector<float> data = state, sums(Plan::sums_floats());
  auto t = Timer{o, {}}.loop([&](int k) {
    const auto seq = static_cast<std::uint64_t>(k);
    if (p.coordinator_is_cpu() && p.bench == Bench::Cache) {
      own_share([&] { cpu_cache_pass(state.data(), data.data(), kCacheFloats); });
    }
    for (std::size_t w = 0; w < send.size(); ++w) {
      const Span si = p.input(p.workers[w]);
      if (whole) {
        send[w]->write(seq, data.data(), p.floats() * sizeof(float));
      } else {
        send[w]->write(seq, data.data() + si.offset, si.bytes());
      }
    }
    coordinator_concurrent_share(p, data.data());
    for (std::size_t w = 0; w < replies.size(); ++w) {
      const Role& r = p.workers[w];
      const Span so = p.output(r);
      float* dst = merge_target(p, r, sums.data(), data.data());
      bool got = false;
      while (!got) {
        replies[w]->take([&](std::uint64_t s, const std::uint8_t* bytes, std::size_t n) {
          if (s != seq) return;  // a stale reply
          if (n != so.bytes()) fail("coordinator: wrong reply size");
          std::memcpy(dst, bytes, n);  // the merge
          got = true;
        });
      }
    }
    g_sink = g_sink + sums[0] + data[0];
  });
  reap(kids);
  return t;
}

// ---------------------------------------------------------------- ROS-SHM-ZC ----------------
// One POSIX shared-memory region: buffer 0, buffer 1 (a step that reads what the previous step
// wrote reads one and writes the other) and the cache benchmark's row sums. Sync messages:
// "seed000_sync" (coordinator -> all workers, seq = step), "seed000_done_<w>" (worker -> it).
struct ShmRegion {
  float* buf[2] = {nullptr, nullptr};
  float* sums = nullptr;
  std::string name;
  explicit ShmRegion(std::size_t floats) : name("/baton-seed000-" + std::to_string(getpid())) {
    const std::size_t bytes = (2 * floats + kRows) * sizeof(float);
    int fd = shm_open(name.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
    if (fd < 0) fail("shm_open " + name);
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) fail("ftruncate");
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) fail("mmap");
    buf[0] = static_cast<float*>(base);
    buf[1] = buf[0] + floats;
    sums = buf[1] + floats;
  }
  ~ShmRegion() { shm_unlink(name.c_str()); }
};

std::vector<double> run_shm_zc(const Options& o) {
  const Plan p = Plan::make(o.bench, o.nodes);
  ShmRegion shm(p.floats());
  auto init = initial_data(p.floats());
  std::memcpy(shm.buf[0], init.data(), p.floats() * sizeof(float));
  // Which buffers step k reads and writes: the multi-node cache benchmark alternates (the CPU
  // nodes rewrite the rows the GPU nodes are reading); everything else works in buffer 0.
  const bool alternate = p.bench == Bench::Cache && !p.coordinator_is_cpu();
  auto in_buf = [&](int k) { return shm.buf[alternate ? k % 2 : 0]; };
  auto out_buf = [&](int k) { return shm.buf[alternate ? (k + 1) % 2 : 0]; };
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      auto gpu = gpu_for(o, r);
      dds::Participant part(o.domain);
      dds::Reader sync(part, "seed000_sync");
      dds::Writer done(part, "seed000_done_" + r.name());
      dds::wait_until([&] { return sync.matched() > 0 && done.matched() > 0; }, "sync topics");
      const Span si = p.input(r);
      for (int k = 0; k < o.total(); ++k) {
        std::uint64_t seq = 0;
        sync.take([&](std::uint64_t s, const std::uint8_t*, std::size_t) { seq = s; });
        float* out = merge_target(p, r, shm.sums, out_buf(k));
        compute(p, r, gpu.get(), in_buf(k) + si.offset, out);  // in the shared buffer
        const std::uint64_t ack = seq;
        done.write(seq, &ack, sizeof(ack));
      }
    }));
  }
  dds::Participant part(o.domain);
  dds::Writer sync(part, "seed000_sync");
  std::vector<std::unique_ptr<dds::Reader>> done;
  for (const Role& r : p.workers) {
    done.push_back(std::make_unique<dds::Reader>(part, "seed000_done_" + r.name()));
  }
  dds::wait_until(
      [&] {
        if (sync.matched() < p.workers.size()) return false;
        for (auto& d : done)
          if (d->matched() == 0) return false;
        return true;
      },
      "coordinator sync topics");
  auto state = initial_data(p.floats());
  auto t = Timer{o, {}}.loop([&](int k) {
    const auto seq = static_cast<std::uint64_t>(k);
    if (p.coordinator_is_cpu() && p.bench == Bench::Cache) {
      own_share([&] { cpu_cache_pass(state.data(), shm.buf[0], kCacheFloats); });
    }
    sync.write(seq, &seq, sizeof(seq));
    coordinator_concurrent_share(p, shm.buf[0]);
    for (auto& d : done) {
      bool got = false;
      while (!got)
        d->take([&](std::uint64_t s, const std::uint8_t*, std::size_t) { got = s == seq; });
    }
    g_sink = g_sink + shm.sums[0] + out_buf(k)[0];
  });
  reap(kids);
  return t;
}

// ---------------------------------------------------------------- baton topics --------------
const baton::topic::TypeInfo kDataType = baton::topic::TypeInfo::from_name("baton_bench/msg/Data");
const baton::topic::TypeInfo kStepType = baton::topic::TypeInfo::from_name("baton_bench/msg/Step");

template <typename Sub>
void wait_for(Sub& sub) {
  while (!sub->has_data()) {
    if (!sub->wait(200ms) && getppid() == 1) _exit(1);
  }
}

template <typename Sub>
auto take_next(Sub& sub) {
  wait_for(sub);
  auto m = sub->take();
  if (!m) fail("take");
  return std::move(*m);
}

// 2-node cache: the CPU node's matrix is the step; otherwise a step message and result topics.
std::vector<double> run_baton(const Options& o) {
  const Plan p = Plan::make(o.bench, o.nodes);
  setenv("BATON_NAMESPACE", ("sb-seed000-" + std::to_string(getpid())).c_str(), 1);
  const auto qos = baton::QoS(2).reliable().reliable_timeout(10s);
  const bool matrix_step = seed000::matrix_step(p);
  auto result_topic = [](const Role& r) { return "/seed000/result/" + r.name(); };
  std::vector<pid_t> kids;
  for (const Role& r : p.workers) {
    kids.push_back(fork_node([&] {
      auto gpu = gpu_for(o, r);
      auto ctx = baton::Context::create();
      baton::Node node(ctx, r.name() + "_node");
      const Span si = p.input(r), so = p.output(r);
      auto out = node.raw_publisher(result_topic(r), kDataType)
                     .qos(qos)
                     .max_message_size(so.bytes())
                     // Fixed-size results: commit the ring's chunks up front, as a user would.
                     // reserve() alone commits one chunk of 1 MiB or more and the rest as loans
                     // first need them (8 MiB each here: ~2 ms of tmpfs zero-fill in a timed
                     // step), where the other rows' buffers are written before the first step.
                     .reserve(so.bytes(), qos.depth() + 2)
                     .commit_reservation()
                     .create();
      auto in =
          node.raw_subscription(matrix_step ? "/seed000/matrix" : result_topic(input_source(p, r)),
                                kDataType)
              .qos(qos)
              .create();
      if (!out || !in) fail("baton endpoints (worker)");
      while (out->subscription_count() < result_readers(p, r)) std::this_thread::sleep_for(1ms);
      // Subscribing to the step topic last tells the coordinator this node is ready.
      auto step = node.raw_subscription("/seed000/step", kStepType).qos(qos).create();
      if (!step) fail("baton endpoints (worker step)");
      auto init = initial_data(p.floats());
      for (int k = 0; k < o.total(); ++k) {
        std::optional<baton::RawSample> input;
        if (matrix_step) {
          input = take_next(*in);
        } else {
          take_next(*step);
          if (k > 0) input = take_next(*in);  // the previous step's result, read in place
        }
        const float* data =
            input ? reinterpret_cast<const float*>(input->data()) : init.data() + si.offset;
        if (input && input->size() != (matrix_step ? kCacheFloats * sizeof(float) : si.bytes()))
          fail("worker: wrong input size");
        auto loan = out->loan(so.bytes());
        if (!loan) fail("loan");
        compute(p, r, gpu.get(), data, reinterpret_cast<float*>(loan->data()));
        if (!out->publish(std::move(*loan), so.bytes())) fail("publish");
      }
      in->reset();  // may be a subscription to our own results: not a reader to wait for
      // The last result must not vanish with its publisher before the coordinator read it.
      while (out->subscription_count() > 0 && getppid() != 1) std::this_thread::sleep_for(1ms);
    }));
  }
  auto ctx = baton::Context::create();
  baton::Node node(ctx, p.coordinator_is_cpu() ? "cpu_node" : "scheduler_node");
  auto matrix = node.raw_publisher("/seed000/matrix", kDataType)
                    .qos(qos)
                    .max_message_size(kCacheFloats * sizeof(float))
                    .reserve(kCacheFloats * sizeof(float), qos.depth() + 2)
                    .commit_reservation()  // as the workers' results, above
                    .create();
  auto step = node.raw_publisher("/seed000/step", kStepType).qos(qos).max_message_size(8).create();
  if (!matrix || !step) fail("baton endpoints (coordinator)");
  std::vector<std::shared_ptr<baton::RawSubscription>> results;
  for (const Role& r : p.workers) {
    auto s = node.raw_subscription(result_topic(r), kDataType).qos(qos).create();
    if (!s) fail("baton endpoints (coordinator results)");
    results.push_back(*s);
  }
  const auto nw = static_cast<std::uint32_t>(p.workers.size());
  while (step->subscription_count() < nw || (matrix_step && matrix->subscription_count() < nw))
    std::this_thread::sleep_for(1ms);
  for (auto& s : results)
    while (s->publisher_count() == 0) std::this_thread::sleep_for(1ms);
  auto state = initial_data(p.floats());
  std::vector<float> own = coordinator_own_share(p, state);
  auto t = Timer{o, {}}.loop([&](int k) {
    if (matrix_step) {
      auto loan = matrix->loan(kCacheFloats * sizeof(float));
      if (!loan) fail("loan");
      own_share([&] {
        cpu_cache_pass(state.data(), reinterpret_cast<float*>(loan->data()), kCacheFloats);
      });
      if (!matrix->publish(std::move(*loan), kCacheFloats * sizeof(float))) fail("publish");
    } else {
      const auto seq = static_cast<std::uint64_t>(k);
      if (!step->publish_copy(&seq, sizeof(seq))) fail("publish step");
      if (!own.empty()) own_share([&] { cpu_concurrent_pass(own.data(), own.data(), own.size()); });
    }
    for (auto& s : results) {
      auto m = take_next(s);  // the merge: read in place, nothing copied
      g_sink = g_sink + reinterpret_cast<const float*>(m.data())[0];
    }
  });
  results.clear();
  reap(kids);
  return t;
}

// ---------------------------------------------------------------- ROS-ZC (intra-process) ----
template <typename Msg>
float* payload(Msg& m) {
  if constexpr (std::is_same_v<Msg, CacheMsg>) {
    return m.m;
  } else {
    return m.a;
  }
}

template <typename Msg>
std::vector<double> run_ros_zc_typed(const Options& o) {
  const Plan p = Plan::make(o.bench, o.nodes);
  setenv("BATON_NAMESPACE", ("sb-seed000-zc-" + std::to_string(getpid())).c_str(), 1);
  const auto qos = baton::QoS(2).reliable().reliable_timeout(10s);
  auto ctx = baton::Context::create();
  baton::Node coord(ctx, "coordinator");
  auto send = coord.publisher<Msg>("/seed000/zc/send").qos(qos).create();
  if (!send) fail("baton endpoints (ROS-ZC)");
  std::vector<std::unique_ptr<baton::Node>> nodes;
  std::vector<std::shared_ptr<baton::Subscription<Msg>>> replies;
  std::vector<std::thread> threads;
  for (const Role& r : p.workers) {
    nodes.push_back(std::make_unique<baton::Node>(ctx, r.name() + "_node"));
    auto in = nodes.back()->subscription<Msg>("/seed000/zc/send").qos(qos).create();
    auto out = nodes.back()->publisher<Msg>("/seed000/zc/reply_" + r.name()).qos(qos).create();
    auto rep = coord.subscription<Msg>("/seed000/zc/reply_" + r.name()).qos(qos).create();
    if (!in || !out || !rep) fail("baton endpoints (ROS-ZC worker)");
    replies.push_back(*rep);
    threads.emplace_back([&o, &p, r, in = *in, out = std::move(*out)]() mutable {
      auto gpu = gpu_for(o, r);
      const Span si = p.input(r), so = p.output(r);
      for (int k = 0; k < o.total(); ++k) {
        wait_for(in);
        auto m = in->take_unique();
        if (!m) fail("take_unique");
        Msg& msg = **m;
        float* dst =
            p.bench == Bench::Cache && r.gpu ? reinterpret_cast<CacheMsg&>(msg).sums : payload(msg);
        compute(p, r, gpu.get(), payload(msg) + si.offset, dst + so.offset);  // in the message
        if (!out.publish(std::move(*m))) fail("publish");  // ownership moves back
      }
    });
  }
  auto state = initial_data(p.floats());
  auto msg = std::make_unique<Msg>();
  std::memcpy(payload(*msg), state.data(), p.floats() * sizeof(float));
  auto t = Timer{o, {}}.loop([&](int) {
    if (p.coordinator_is_cpu()) {  // unique ownership: no overlap, CPU share before sending
      const Span c = p.coordinator_share();
      own_share([&] {
        cpu_share(p.bench, p.bench == Bench::Cache ? state.data() : payload(*msg) + c.offset,
                  payload(*msg) + c.offset, c.count);
      });
    }
    if (!send->publish(std::move(msg))) fail("publish");
    std::unique_ptr<Msg> merged;
    for (std::size_t w = 0; w < replies.size(); ++w) {
      wait_for(replies[w]);
      auto m = replies[w]->take_unique();
      if (!m) fail("take_unique");
      if (!merged) {
        merged = std::move(*m);
        continue;
      }
      // A second instance (the copy ROS-ZC made for another node): copy its share across.
      const Role& r = p.workers[w];
      const Span so = p.output(r);
      float* src = payload(**m);
      float* dst = payload(*merged);
      if (p.bench == Bench::Cache && r.gpu) {
        src = reinterpret_cast<CacheMsg&>(**m).sums;
        dst = reinterpret_cast<CacheMsg&>(*merged).sums;
      }
      std::memcpy(dst + so.offset, src + so.offset, so.bytes());
    }
    msg = std::move(merged);
    g_sink = g_sink + payload(*msg)[0];
  });
  for (auto& th : threads) th.join();
  return t;
}

std::vector<double> run_ros_zc(const Options& o) {
  return o.bench == Bench::Cache ? run_ros_zc_typed<CacheMsg>(o) : run_ros_zc_typed<ConcMsg>(o);
}

constexpr const char* kUsage =
    "usage: baton-bench-seed000 [--transport native|cyclonedds-topic|cyclonedds-service|ros-zc|\n"
    "         ros-shm-zc|baton] [--bench cache|concurrent] [--nodes 2|3|5] [--model SC|UM|ZC]\n"
    "         [--runs N] [--warmup N] [--quick] [--json PATH] [--raw CSV] [--phases CSV]\n"
    "         [--domain N]\n"
    "Seed 000's cache and concurrent benchmarks as ROS-style nodes on an OpenCL device:\n"
    "2 nodes (CPU + GPU node), 3 nodes (scheduler + CPU + GPU), 5 nodes (scheduler + 2 CPU +\n"
    "2 GPU). Times one step per run (ms) after --warmup untimed steps (default 5).\n"
    "--phases CSV: every step (warm-up too) with the coordinator's own CPU share time.\n"
    "The rcl rows (ROS-SC on rmw_fastrtps_cpp, rcl on rmw_baton_cpp): baton-bench-seed000-rcl.\n";

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv, kUsage);
  dds::use_loopback_config();
  std::vector<double> t;
  if (o.transport == "native") {
    t = run_native(o);
  } else if (o.transport == "cyclonedds-topic") {
    t = run_dds(o, false);
  } else if (o.transport == "cyclonedds-service") {
    t = run_dds(o, true);
  } else if (o.transport == "ros-shm-zc") {
    t = run_shm_zc(o);
  } else if (o.transport == "baton") {
    t = run_baton(o);
  } else if (o.transport == "ros-zc") {
    t = run_ros_zc(o);
  } else {
    fail("unknown transport " + o.transport + " (rcl rows: baton-bench-seed000-rcl)");
  }
  finish(o, t);
  return 0;
}
