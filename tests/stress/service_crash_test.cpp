// Crash loop for services: ClientBase::MAX_CLIENTS (256) clients in eight child processes call one
// service in this process, and children are SIGKILLed at random moments while their clients call
// (request published, response on its way, inside send_request) and replaced at once. A
// replacement's 32 clients can attach only once the dead child's request publisher slots are
// reclaimed, since the request topic's 256 slots are all taken. Afterwards 256 fresh clients
// must attach and get their answers, and once the service is gone nothing of any client is
// left in /dev/shm. Figures go to stdout so they can be quoted.
//
// BATON_STRESS_SEED overrides the seed; BATON_STRESS_SERVICE_KILLS the number of kills (40).
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "api/api_test_types.hpp"
#include "baton/baton.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t CHILDREN = 8;
constexpr std::uint32_t CLIENTS_PER_CHILD = ClientBase::MAX_CLIENTS / CHILDREN;

void add(const AddTwoInts::Request& req, AddTwoInts::Response& res) { res.sum = req.a + req.b; }

// A child process with CLIENTS_PER_CHILD clients: writes 'R' once each has had an answer, then
// calls round-robin until killed; 'X' and exit 3 on a wrong answer, 'F' and exit 1 if a client
// cannot be created or a call fails (the reason on stderr, which the test's log keeps).
Child fork_caller(const std::string& service, std::uint64_t tag) {
  return fork_child("caller", [&](int out) {
    auto say = [&](char ch) { (void)!::write(out, &ch, 1); };
    auto ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});  // no threads
    Node node(ctx, "caller");
    std::vector<std::shared_ptr<Client<AddTwoInts>>> clients;
    for (std::uint32_t k = 0; k < CLIENTS_PER_CHILD; ++k) {
      auto cli = node.client<AddTwoInts>(service).create();
      if (!cli) {
        std::fprintf(stderr, "caller: %s\n", cli.error().detail.c_str());
        say('F');
        return 1;
      }
      clients.push_back(*cli);
    }
    for (std::int64_t i = 0;; ++i) {
      for (std::uint32_t k = 0; k < CLIENTS_PER_CHILD; ++k) {
        const auto a = static_cast<std::int64_t>(tag * 1'000'000 + k * 1'000);
        auto r = clients[k]->send_request({a, i}, 10s);
        if (!r) {
          std::fprintf(stderr, "caller: client %u call %lld: %s\n", k, static_cast<long long>(i),
                       std::string(to_string(r.error())).c_str());
          say('F');
          return 1;
        }
        if (r->sum != a + i) {
          std::fprintf(stderr, "caller: client %u call %lld: sum %lld, expected %lld\n", k,
                       static_cast<long long>(i), static_cast<long long>(r->sum),
                       static_cast<long long>(a + i));
          say('X');
          return 3;
        }
      }
      if (i == 0) say('R');
    }
  });
}

TEST(ServiceCrashTest, sigkilled_clients_of_a_full_service_free_their_slots_and_leak_nothing) {
  ScopedNamespace ns("svccrash");
  const std::uint64_t seed = std::getenv("BATON_STRESS_SEED")
                                 ? std::strtoull(std::getenv("BATON_STRESS_SEED"), nullptr, 10)
                                 : 20240607;
  const char* kills_env = std::getenv("BATON_STRESS_SERVICE_KILLS");
  const int target_kills = kills_env ? std::atoi(kills_env) : 40;
  std::mt19937_64 rng(seed);
  std::printf("[service-crash] namespace %s seed %llu target kills %d\n", ns.name().c_str(),
              static_cast<unsigned long long>(seed), target_kills);

  std::uint64_t handled = 0, fresh_ok = 0;
  int kills = 0, failures = 0, replaced = 0;
  double loop_s = 0;
  {
    // No janitor and no executor thread: this process forks its children.
    auto ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});
    Node node(ctx, "server");
    const std::string service = "/svc_crash/add";
    auto srv = node.service<AddTwoInts>(service).callback(add).create();
    ASSERT_TRUE(srv);
    SingleThreadedExecutor exec(ctx);
    ASSERT_TRUE(exec.add_service(*srv));

    std::vector<Child> children;
    std::uint64_t tag = 0;
    for (std::uint32_t i = 0; i < CHILDREN; ++i) children.push_back(fork_caller(service, ++tag));
    std::vector<bool> ready(CHILDREN, false);
    const auto start = Clock::now();
    while (kills < target_kills && Clock::now() - start < 60s) {
      exec.spin_some();
      (void)exec.spin_once(1ms);  // asleep until a request comes, at most 1 ms
      for (std::uint32_t i = 0; i < CHILDREN; ++i) {
        Child& c = children[i];
        ASSERT_GT(c.pid, 0) << "fork failed";
        const std::string out = drain(c);
        if (out.find_first_of("FX") != std::string::npos) {
          ++failures;
          std::printf("  child %d failed: '%s'\n", c.pid, out.c_str());
        }
        if (!ready[i] && out.find('R') != std::string::npos) {
          ready[i] = true;  // every client of it has been answered: now kill it mid-call
          c.deadline = Clock::now() + std::chrono::microseconds(rng() % 30'000);
        }
        if (!ready[i] || Clock::now() < c.deadline) continue;
        ::kill(c.pid, SIGKILL);
        int status = 0;
        ::waitpid(c.pid, &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
          ++kills;
        } else {
          ++failures;
          std::printf("  child %d had exited on its own: status %d\n", c.pid, status);
        }
        close_child(c);
        c = fork_caller(service, ++tag);  // needs the dead child's slots
        ready[i] = false;
        ++replaced;
      }
      if (failures > 0) break;
    }
    loop_s = std::chrono::duration<double>(Clock::now() - start).count();
    // The last kills also wait until each child's clients were all answered once: a client killed
    // before its first answer leaves its response topic to `baton clean` (docs/design/core.md).
    const auto settle_guard = Clock::now() + 30s;
    for (std::uint32_t i = 0; i < CHILDREN && failures == 0; ++i) {
      while (!ready[i] && Clock::now() < settle_guard) {
        exec.spin_some();
        (void)exec.spin_once(1ms);
        const std::string out = drain(children[i]);
        if (out.find_first_of("FX") != std::string::npos) ++failures;
        ready[i] = out.find('R') != std::string::npos;
      }
      EXPECT_TRUE(ready[i]) << "child " << children[i].pid << " never had its answers";
    }
    for (auto& c : children) {
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, nullptr, 0);
      close_child(c);
    }

    // Every dead client's request publisher slot comes back: 256 fresh clients attach and call.
    std::thread spinner([&] { exec.spin(); });
    std::vector<std::shared_ptr<Client<AddTwoInts>>> fresh;
    for (std::uint32_t k = 0; k < ClientBase::MAX_CLIENTS; ++k) {
      auto cli = node.client<AddTwoInts>(service).create();
      ASSERT_TRUE(cli) << "fresh client " << k << ": " << cli.error().detail;
      fresh.push_back(*cli);
    }
    for (std::uint32_t k = 0; k < fresh.size(); ++k) {
      auto r = fresh[k]->send_request({static_cast<std::int64_t>(k), 1}, 10s);
      ASSERT_TRUE(r) << to_string(r.error());
      fresh_ok += r->sum == static_cast<std::int64_t>(k) + 1;
    }
    exec.cancel();
    spinner.join();
    handled = (*srv)->handled();
  }
  // The service, its responders, the fresh clients and the context are gone: so is every
  // segment of this namespace, the dead children's included.
  const auto left = ScopedNamespace::list();
  for (const auto& s : left) std::printf("  left: %s\n", s.c_str());
  std::printf(
      "[service-crash] kills: %d in %.1f s (%d children replaced, %u clients each); requests "
      "answered: %llu; fresh clients answered: %llu of %u; child failures: %d; segments left: "
      "%zu\n",
      kills, loop_s, replaced, CLIENTS_PER_CHILD, static_cast<unsigned long long>(handled),
      static_cast<unsigned long long>(fresh_ok), ClientBase::MAX_CLIENTS, failures, left.size());
  EXPECT_EQ(failures, 0);
  EXPECT_GE(kills, target_kills);
  EXPECT_EQ(fresh_ok, ClientBase::MAX_CLIENTS);
  EXPECT_TRUE(left.empty());
}

}  // namespace
}  // namespace baton::stress
