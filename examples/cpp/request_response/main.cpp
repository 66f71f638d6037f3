// Request / response over shared memory: an AddTwoInts service and its clients.
//
//   baton-example-request-response            # service and client in one process
//   baton-example-request-response server     # terminal 1: serve until Ctrl-C
//   baton-example-request-response client 2 3 # terminal 2: one call, prints 5
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "baton/baton.hpp"

struct AddTwoInts {
  struct Request {
    std::int64_t a, b;
  };
  struct Response {
    std::int64_t sum;
  };
};
BATON_SERVICE(AddTwoInts, "example_interfaces/srv/AddTwoInts");

using namespace std::chrono_literals;

namespace {

std::shared_ptr<baton::Service<AddTwoInts>> make_service(baton::Node& node) {
  auto srv = node.service<AddTwoInts>("add_two_ints")
                 .callback([](const AddTwoInts::Request& req, AddTwoInts::Response& res) {
                   res.sum = req.a + req.b;
                 })
                 .create();
  if (!srv) {
    std::fprintf(stderr, "service: %s\n", srv.error().detail.c_str());
    std::exit(1);
  }
  return *srv;
}

int serve(const std::shared_ptr<baton::Context>& ctx, baton::Node& node, sigset_t set) {
  // Ctrl-C: a thread waits for the signal and shuts the context down, which stops spin().
  std::thread([ctx, set] {
    int sig = 0;
    sigwait(&set, &sig);
    ctx->shutdown();
  }).detach();
  auto srv = make_service(node);
  baton::SingleThreadedExecutor exec(ctx);
  (void)exec.add_node(node);
  std::printf("serving %s (Ctrl-C to stop)\n", srv->service_name().c_str());
  exec.spin();
  std::printf("answered %llu requests\n", static_cast<unsigned long long>(srv->handled()));
  return 0;
}

int call(baton::Node& node, std::int64_t a, std::int64_t b) {
  auto cli = node.client<AddTwoInts>("add_two_ints").create();
  if (!cli) return std::fprintf(stderr, "client: %s\n", cli.error().detail.c_str()), 1;
  auto res = (*cli)->send_request({a, b}, 5s);  // waits for the service, then for the answer
  if (!res) return std::fprintf(stderr, "call: %s\n", to_string(res.error()).data()), 1;
  std::printf("%lld + %lld = %lld\n", static_cast<long long>(a), static_cast<long long>(b),
              static_cast<long long>(res->sum));
  return 0;
}

int demo(const std::shared_ptr<baton::Context>& ctx, baton::Node& node) {
  auto srv = make_service(node);
  auto cli = node.client<AddTwoInts>("add_two_ints").create();
  if (!cli) return 1;
  baton::SingleThreadedExecutor exec(ctx);
  (void)exec.add_node(node);  // serves the service and completes the client's futures
  auto future = (*cli)->async_send_request({2, 3});
  if (!future || exec.spin_until_future_complete(*future, 5s) != baton::FutureReturnCode::Success) {
    return std::fprintf(stderr, "no answer\n"), 1;
  }
  std::printf("async: 2 + 3 = %lld\n", static_cast<long long>(future->get().sum));
  std::thread spinner([&] { exec.spin(); });  // now serve from a thread; call synchronously
  auto res = (*cli)->send_request({40, 2}, 5s);
  std::printf("sync: 40 + 2 = %lld\n", res ? static_cast<long long>(res->sum) : -1LL);
  exec.cancel();
  spinner.join();
  return res ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // Block the stop signals before any thread starts (the context's janitor too), so only the
  // server's signal thread receives them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "server") pthread_sigmask(SIG_BLOCK, &set, nullptr);
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "request_response");
  if (mode == "server") return serve(ctx, node, set);
  if (mode == "client") {
    return call(node, argc > 2 ? std::atoll(argv[2]) : 2, argc > 3 ? std::atoll(argv[3]) : 3);
  }
  return demo(ctx, node);
}
