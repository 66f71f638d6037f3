// baton-bench-service: service call latency against the number of clients attached.
//
// A service (two int64 in, their sum out) runs in a forked child process; this process attaches
// N clients to it (each holds one of the request topic's publisher slots) and measures the round
// trip of synchronous calls (send_request: request published, answer taken from the client's own
// response topic; both sides block on futexes):
//   one-caller   N clients attached, one thread calls through them in turn: what N costs a call
//   concurrent   N threads, one per client, all calling at once: per-call latency and calls/s
// Every client calls once before measuring (the service creates its response publisher then).
// Each run uses its own BATON_NAMESPACE.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"

namespace {

using baton::bench::now_ns;
using namespace std::chrono_literals;

struct Sum {
  struct Request {
    std::int64_t a, b;
  };
  struct Response {
    std::int64_t sum;
  };
};

}  // namespace

BATON_SERVICE(Sum, "baton_bench/srv/Sum");

namespace {

const char* const SERVICE = "/bench/sum";

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "baton-bench-service: %s\n", why.c_str());
  std::exit(1);
}

// The service process: serves until the pipe from the parent closes, then leaves cleanly (a
// service left behind would count as one for the next run's clients, which would then call
// before the new one listens).
void serve(int stop_fd) {
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "bench_service");
  auto srv = node.service<Sum>(SERVICE)
                 .callback([](const Sum::Request& q, Sum::Response& r) { r.sum = q.a + q.b; })
                 .create();
  if (!srv) fail("service: " + srv.error().detail);
  baton::SingleThreadedExecutor exec(ctx);
  if (!exec.add_service(*srv)) fail("executor refused the service");
  std::thread stopper([&] {
    char c;
    while (::read(stop_fd, &c, 1) > 0) {
    }
    exec.cancel();
  });
  exec.spin();
  stopper.join();
}

struct Row {
  std::string mode;
  std::size_t clients = 0;
  baton::bench::LatencySummary us;
  double calls_per_s = 0;
};

// One synchronous call; its round trip in µs.
double call(baton::Client<Sum>& c, std::int64_t a, std::int64_t b) {
  const std::uint64_t t0 = now_ns();
  auto r = c.send_request({a, b}, 10s);
  const std::uint64_t t1 = now_ns();
  if (!r) fail(std::string("call: ") + std::string(baton::to_string(r.error())));
  if (r->sum != a + b) fail("wrong answer");
  return static_cast<double>(t1 - t0) / 1000.0;
}

std::vector<Row> run(std::size_t n, std::size_t calls) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) fail("pipe");
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[1]);
    serve(pipe_fds[0]);
    std::_Exit(0);
  }
  ::close(pipe_fds[0]);
  std::vector<Row> rows;
  {
    auto ctx = baton::Context::create();
    baton::Node node(ctx, "bench_clients");
    std::vector<std::shared_ptr<baton::Client<Sum>>> clients;
    for (std::size_t k = 0; k < n; ++k) {
      auto c = node.client<Sum>(SERVICE).create();
      if (!c) fail("client " + std::to_string(k) + ": " + c.error().detail);
      clients.push_back(*c);
    }
    if (!clients[0]->wait_for_service(10s)) fail("no service");
    for (std::size_t k = 0; k < n; ++k) call(*clients[k], static_cast<std::int64_t>(k), 0);

    std::vector<double> one;
    const std::uint64_t t0 = now_ns();
    for (std::size_t i = 0; i < calls; ++i) {
      one.push_back(call(*clients[i % n], static_cast<std::int64_t>(i), 1));
    }
    const double one_s = static_cast<double>(now_ns() - t0) / 1e9;
    rows.push_back({"one-caller", n, baton::bench::summarize(one), calls / one_s});

    const std::size_t per = std::max<std::size_t>(calls / n, 20);
    std::vector<std::vector<double>> each(n);
    std::vector<std::thread> threads;
    const std::uint64_t t1 = now_ns();
    for (std::size_t k = 0; k < n; ++k) {
      threads.emplace_back([&, k] {
        for (std::size_t i = 0; i < per; ++i) {
          each[k].push_back(call(*clients[k], static_cast<std::int64_t>(k), 2));
        }
      });
    }
    for (auto& t : threads) t.join();
    const double all_s = static_cast<double>(now_ns() - t1) / 1e9;
    std::vector<double> all;
    for (auto& v : each) all.insert(all.end(), v.begin(), v.end());
    const double total = static_cast<double>(all.size());
    rows.push_back({"concurrent", n, baton::bench::summarize(all), total / all_s});
  }
  ::close(pipe_fds[1]);  // the service stops
  int status = 0;
  ::waitpid(child, &status, 0);
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> counts = {1, 256};
  std::size_t calls = 5000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--clients" && i + 1 < argc) {
      counts.clear();
      std::string list = argv[++i];
      for (std::size_t pos = 0; pos <= list.size();) {
        const std::size_t end = std::min(list.find(',', pos), list.size());
        counts.push_back(std::strtoull(list.substr(pos, end - pos).c_str(), nullptr, 10));
        pos = end + 1;
      }
    } else if (a == "--calls" && i + 1 < argc) {
      calls = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--quick") {
      calls = 1000;
    } else {
      std::printf(
          "usage: baton-bench-service [--clients 1,256] [--calls N] [--quick]\n"
          "Synchronous service calls from N clients in this process to a service in a child\n"
          "process: one caller through all N clients in turn, then N concurrent callers.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const std::string ns = "bench-service-" + std::to_string(::getpid());
  ::setenv("BATON_NAMESPACE", ns.c_str(), 1);
  std::printf("# baton-bench-service  calls %zu per row (concurrent: max(calls / N, 20) each)\n",
              calls);
  std::printf("%-12s %8s %8s %12s %12s %12s %12s\n", "mode", "clients", "calls", "median us",
              "p99 us", "max us", "calls/s");
  for (std::size_t n : counts) {
    if (n == 0 || n > baton::ClientBase::MAX_CLIENTS) fail("clients must be 1..256");
    for (const Row& r : run(n, calls)) {
      std::printf("%-12s %8zu %8zu %12.2f %12.2f %12.2f %12.0f\n", r.mode.c_str(), r.clients,
                  r.us.samples, r.us.median, r.us.p99, r.us.max, r.calls_per_s);
    }
    std::fflush(stdout);
  }
  return 0;
}
