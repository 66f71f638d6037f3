// baton-bench-graph: seed 002's experiments, one process per node of a ROS-style graph.
//
//   baton-bench-graph --system baton|cyclonedds|iceoryx --graph FILE [--raw CSV] [--json PATH]
//   baton-bench-graph-rcl --system rcl-fastrtps|rcl-baton ...   (the same program with
//   rcl_link.cpp:
//                         rcl C++ nodes on rmw_fastrtps_cpp / rmw_baton_cpp, in the wheels' env)
//
// The graph file (written by bench/suite/exp_seed002.py from a seeded generator) lists
//   samples N / warmup W / seed S
//   node <id> <cpu|dev|bilateral> <reps> <output bytes>      (node 0 is the source)
//   edge <from> <to>                                         (a subscription to from's topic)
// Every node is a process. The source takes a start time, does its work on a random input
// (generated once from the seed) and publishes; every other node waits for one message on each
// of its inputs, works, and publishes its output (a node without successors is a sink: it
// publishes (step, finish time) on its own "done" topic instead). The source starts step k + 1
// when every sink reported step k; end-to-end latency of a step = last sink's finish time -
// the source's start time (CLOCK_MONOTONIC is system-wide). The first `warmup` steps are not
// kept (the paper dropped its first three).
//
// Work: cpu = `reps` rounds of v = 3v + 1 per output byte from the inputs' bytes (xor-folded);
// dev = the same as an OpenCL kernel (PoCL here); bilateral = a 3x3 bilateral filter over a 4K
// 8-bit grey image on the device. A device node under CycloneDDS or iceoryx copies each input to
// the device and its output back (the middleware knows nothing of devices); under baton it takes
// and loans in the "opencl:0" memory domain and makes no copy of its own. The source's random
// input is uploaded by every system alike; a device sink reads its result back alike.
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/common/dds_link.hpp"
#include "bench/common/stats.hpp"
#include "bench/seed002/device_work.hpp"
#include "bench/seed002/link.hpp"

namespace seed002 {
namespace {

enum class Kind { Cpu, Dev, Bilateral };

struct NodeSpec {
  int id = 0;
  Kind kind = Kind::Cpu;
  std::uint32_t reps = 1;
  std::size_t out_bytes = 64;
  std::vector<int> preds, succs;
};

struct Graph {
  int samples = 20, warmup = 3;
  std::uint64_t seed = 1;
  std::vector<NodeSpec> nodes;
  std::vector<int> sinks() const {
    std::vector<int> s;
    for (const auto& n : nodes)
      if (n.succs.empty()) s.push_back(n.id);
    return s;
  }
};

Graph parse(const std::string& path) {
  std::ifstream f(path);
  if (!f) fail("cannot read graph file " + path);
  Graph g;
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key) || key[0] == '#') continue;
    auto bad = [&] { fail(path + ":" + std::to_string(lineno) + ": cannot parse '" + line + "'"); };
    if (key == "samples") {
      if (!(ls >> g.samples) || g.samples < 1) bad();
    } else if (key == "warmup") {
      if (!(ls >> g.warmup) || g.warmup < 0) bad();
    } else if (key == "seed") {
      if (!(ls >> g.seed)) bad();
    } else if (key == "node") {
      NodeSpec n;
      std::string kind;
      if (!(ls >> n.id >> kind >> n.reps >> n.out_bytes)) bad();
      if (n.id != static_cast<int>(g.nodes.size())) bad();  // ids are 0, 1, 2, ... in order
      if (kind == "cpu") {
        n.kind = Kind::Cpu;
      } else if (kind == "dev") {
        n.kind = Kind::Dev;
      } else if (kind == "bilateral") {
        n.kind = Kind::Bilateral;
        n.out_bytes = kImageBytes;
      } else {
        bad();
      }
      if (n.out_bytes < 16 || n.out_bytes > (64u << 20) || n.reps > 4096) bad();
      g.nodes.push_back(n);
    } else if (key == "edge") {
      int a = -1, b = -1;
      if (!(ls >> a >> b)) bad();
      const int n = static_cast<int>(g.nodes.size());
      if (a < 0 || b < 0 || a >= n || b >= n || a >= b) bad();  // a DAG in id order
      g.nodes[static_cast<std::size_t>(a)].succs.push_back(b);
      g.nodes[static_cast<std::size_t>(b)].preds.push_back(a);
    } else {
      bad();
    }
  }
  if (g.nodes.size() < 2) fail(path + ": a graph needs at least two nodes");
  for (const auto& n : g.nodes) {
    if (n.id != 0 && n.preds.empty())
      fail(path + ": node " + std::to_string(n.id) + " has no input");
    if (n.kind == Kind::Bilateral) {
      for (int p : n.preds)
        if (g.nodes[static_cast<std::size_t>(p)].out_bytes != kImageBytes)
          fail(path + ": a bilateral node's inputs must be 4K grey images");
    }
  }
  if (!g.nodes[0].preds.empty()) fail(path + ": node 0 is the source and takes no input");
  return g;
}

struct Run {
  std::string system;
  Graph graph;
  int domain = 65;
  std::string run_id;
};

std::unique_ptr<Link> make_link(const Run& r, int id) {
  const std::string name = "n" + std::to_string(id);
  if (r.system == "baton") return make_baton_link(name);
  if (r.system == "cyclonedds") return make_dds_link(r.domain);
  if (r.system == "iceoryx") return make_iceoryx_link(name, r.run_id);
  if (r.system == "rcl-fastrtps" || r.system == "rcl-baton") {
    if (!make_rcl_link) fail(r.system + " runs in baton-bench-graph-rcl (built with the wheels)");
    return make_rcl_link(name, r.system == "rcl-baton" ? "rmw_baton_cpp" : "rmw_fastrtps_cpp");
  }
  fail("unknown system " + r.system + " (baton, cyclonedds, iceoryx, rcl-fastrtps, rcl-baton)");
}

// One node's process: endpoints, ready signal, then `warmup + samples` steps in lock step.
void node_main(const Run& run, int id, int ready_fd, int go_fd, const std::string& raw) {
  const Graph& g = run.graph;
  const NodeSpec& n = g.nodes[static_cast<std::size_t>(id)];
  const bool device = n.kind != Kind::Cpu;
  std::unique_ptr<DeviceWork> dev;
  if (device) dev = std::make_unique<DeviceWork>();
  auto link = make_link(run, id);
  const bool aware = run.system == "baton" && device;  // the middleware works in the device domain
  std::vector<int> data_in;
  for (int p : n.preds) data_in.push_back(link->add_input("g" + std::to_string(p), aware));
  std::vector<std::uint32_t> readers;
  const bool sink = n.succs.empty();
  const int out = link->add_output(sink ? "done" + std::to_string(id) : "g" + std::to_string(id),
                                   sink ? 16 : n.out_bytes, aware && !sink);
  readers.push_back(sink ? 1u : static_cast<std::uint32_t>(n.succs.size()));
  std::vector<int> done_in;
  if (id == 0) {
    for (int s : g.sinks()) done_in.push_back(link->add_input("done" + std::to_string(s), false));
  }
  link->connect(readers);
  char c = 1;
  if (write(ready_fd, &c, 1) != 1) fail("ready pipe");
  if (id == 0 && read(go_fd, &c, 1) != 1) fail("go pipe");

  // The source's input: random bytes from the seed, made once (a camera frame in host memory).
  std::vector<std::uint8_t> source;
  if (id == 0) {
    source.resize(n.out_bytes);
    std::mt19937_64 rng(g.seed);
    for (auto& b : source) b = static_cast<std::uint8_t>(rng());
  }
  std::vector<std::uint8_t> sink_out(sink ? n.out_bytes : 0);  // a sink's result, in host memory
  std::vector<double> latency_ms;
  const int total = g.warmup + g.samples;
  for (int step = 0; step < total; ++step) {
    const std::uint64_t t0 = baton::bench::now_ns();
    std::vector<Input> ins;
    for (int i : data_in) ins.push_back(link->take(i));
    if (id == 0)
      ins.push_back(Input{reinterpret_cast<const std::byte*>(source.data()), source.size(), nullptr,
                          nullptr});
    Output o = sink
                   ? Output{reinterpret_cast<std::byte*>(sink_out.data()), nullptr, sink_out.size()}
                   : link->loan(out);
    if (!device) {
      for (std::size_t k = 0; k < ins.size(); ++k) {
        if (!ins[k].host) fail("a CPU node got a message it cannot read");
        cpu_graph_work(reinterpret_cast<const std::uint8_t*>(ins[k].host), ins[k].size,
                       reinterpret_cast<std::uint8_t*>(o.host), n.out_bytes, n.reps, k > 0);
      }
    } else {
      cl_mem dst = o.device ? o.device : dev->buffer(-1, n.out_bytes);
      for (std::size_t k = 0; k < ins.size(); ++k) {
        cl_mem src = ins[k].device;
        if (!src) {  // copy the message to the device (what the node must do itself)
          src = dev->buffer(static_cast<int>(k), ins[k].size);
          dev->upload(ins[k].host, ins[k].size, src);
        }
        if (n.kind == Kind::Bilateral) {
          if (ins[k].size != kImageBytes) fail("bilateral input is not a 4K grey image");
          if (k == 0) dev->bilateral(src, dst);
        } else {
          dev->graph(src, ins[k].size, dst, n.out_bytes, n.reps, k > 0);
        }
      }
      if (o.device) {
        dev->finish();
      } else {
        dev->download(dst, o.host, n.out_bytes);  // and back to host memory
      }
    }
    if (!sink) link->publish(out);
    ins.clear();  // messages go back to their publishers
    if (sink) {
      Output d = link->loan(out);
      const std::uint64_t msg[2] = {static_cast<std::uint64_t>(step), baton::bench::now_ns()};
      std::memcpy(d.host, msg, sizeof(msg));
      link->publish(out);
    }
    if (id == 0) {
      std::uint64_t last = 0;
      for (int i : done_in) {
        Input d = link->take(i);
        std::uint64_t msg[2];
        if (d.size < sizeof(msg)) fail("short done message");
        std::memcpy(msg, d.host, sizeof(msg));
        if (msg[0] != static_cast<std::uint64_t>(step)) fail("a sink reported the wrong step");
        last = std::max(last, msg[1]);
      }
      if (step >= g.warmup) latency_ms.push_back(static_cast<double>(last - t0) / 1e6);
    }
  }
  if (id == 0) {
    FILE* f = std::fopen(raw.c_str(), "w");
    if (!f) fail("cannot write " + raw);
    for (double x : latency_ms) std::fprintf(f, "%.6f\n", x);
    std::fclose(f);
  }
  // Other nodes stay until the source is done (a publisher's undelivered messages go with it):
  // the orchestrator closes the go pipe once the source has written its samples.
  if (id != 0) {
    char stop = 0;
    while (read(go_fd, &stop, 1) > 0) {
    }
  }
}

bool roudi_running() {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", "/tmp/roudi");
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace
}  // namespace seed002

int main(int argc, char** argv) {
  using namespace seed002;
  std::string system = "baton", graph_path, raw = "/tmp/baton-graph-latency.csv", json, label;
  int domain = 65;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) fail("missing value for " + a);
      return argv[++i];
    };
    if (a == "--system") {
      system = next();
    } else if (a == "--graph") {
      graph_path = next();
    } else if (a == "--raw") {
      raw = next();
    } else if (a == "--json") {
      json = next();
    } else if (a == "--label") {
      label = next();
    } else if (a == "--domain") {
      domain = std::atoi(next().c_str());
    } else {
      std::printf(
          "usage: baton-bench-graph --system baton|cyclonedds|iceoryx|rcl-fastrtps|rcl-baton\n"
          "                         --graph FILE [--raw CSV]\n"
          "                         [--json PATH] [--label NAME] [--domain N]\n"
          "Runs seed 002's graph experiment: one process per node, end-to-end latency per step\n"
          "(ms) to --raw. iceoryx needs a running RouDi (bench/suite starts one).\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (graph_path.empty()) fail("--graph FILE is required");
  Run run{system, parse(graph_path), domain, std::to_string(getpid())};
  if (label.empty()) label = std::filesystem::path(graph_path).stem().string();
  if (system == "iceoryx" && !roudi_running())
    fail(
        "no iceoryx RouDi is running: start iox-roudi -c "
        "bench/peers/iceoryx_classic/roudi_config.toml (bench/suite/run.py does)");
  if (system == "cyclonedds") baton::bench::dds::use_loopback_config();
  setenv("BATON_NAMESPACE", ("sb-graph-" + run.run_id).c_str(), 1);
  std::filesystem::remove(raw);
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) fail("pipe");
  std::vector<pid_t> kids;
  std::fflush(nullptr);
  for (const auto& n : run.graph.nodes) {
    pid_t pid = fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      close(ready[0]);
      close(go[1]);
      node_main(run, n.id, ready[1], go[0], raw);
      // exit, not _exit: iceoryx's runtime deregisters from RouDi in a static destructor (the
      // parent made no middleware or OpenCL object before forking).
      std::exit(0);
    }
    kids.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  // Every node connected, then go; a node that dies first ends the run with its status.
  auto child_failed = [&](bool block) {
    int st = 0;
    pid_t p = waitpid(-1, &st, block ? 0 : WNOHANG);
    if (p > 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
      for (pid_t k : kids) kill(k, SIGKILL);
      fail("node process " + std::to_string(p) + " failed (status " + std::to_string(st) + ")");
    }
    return p;
  };
  std::size_t ready_count = 0;
  const std::uint64_t deadline = baton::bench::now_ns() + 120'000'000'000ull;
  while (ready_count < kids.size()) {
    pollfd pf{ready[0], POLLIN, 0};
    if (poll(&pf, 1, 200) > 0) {
      char c;
      if (read(ready[0], &c, 1) == 1) ++ready_count;
    }
    child_failed(false);
    if (baton::bench::now_ns() > deadline) {
      for (pid_t k : kids) kill(k, SIGKILL);
      fail("the graph's nodes did not connect within 120 s");
    }
  }
  char c = 1;
  if (write(go[1], &c, 1) != 1) fail("go pipe");
  // The source exits after writing its samples; then release every other node.
  int st = 0;
  if (waitpid(kids[0], &st, 0) != kids[0] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    for (pid_t k : kids) kill(k, SIGKILL);
    fail("the source node failed (status " + std::to_string(st) + ")");
  }
  close(go[1]);  // EOF: the other nodes return from their final read and exit
  for (std::size_t i = 1; i < kids.size(); ++i) {
    if (waitpid(kids[i], &st, 0) == kids[i] && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
      fail("node process " + std::to_string(kids[i]) + " failed (status " + std::to_string(st) +
           ")");
  }
  std::vector<double> v;
  {
    std::ifstream f(raw);
    double x;
    while (f >> x) v.push_back(x);
  }
  if (v.empty()) fail("no latencies recorded");
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0.0;
  auto sorted = v;
  const auto s = baton::bench::summarize(sorted);
  std::printf(
      "%-10s %-14s nodes %2zu  samples %3zu  mean %9.3f ms  sd %7.3f  median %9.3f  p99 "
      "%9.3f  max %9.3f\n",
      system.c_str(), label.c_str(), run.graph.nodes.size(), v.size(), mean, sd, s.median, s.p99,
      s.max);
  if (!json.empty()) {
    if (FILE* f = std::fopen(json.c_str(), "a")) {
      std::fprintf(f,
                   "{\"system\":\"%s\",\"configuration\":\"%s\",\"size\":%zu,\"mean\":%.4f,"
                   "\"median\":%.4f,\"sd\":%.4f,\"p99\":%.4f,\"max\":%.4f,\"samples\":%zu,"
                   "\"unit\":\"ms\"}\n",
                   system.c_str(), label.c_str(), run.graph.nodes[0].out_bytes, mean, s.median, sd,
                   s.p99, s.max, v.size());
      std::fclose(f);
    }
  }
  return 0;
}
