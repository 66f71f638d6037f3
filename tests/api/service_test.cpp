#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "api/api_test_types.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;

constexpr auto GUARD = 10s;  // "must not hang" guard; never a timing assertion

void add(const AddTwoInts::Request& req, AddTwoInts::Response& res) { res.sum = req.a + req.b; }

class ServiceTest : public ::testing::Test {
 protected:
  // No janitor thread: tests here fork (run_in_child), which needs a single-threaded parent.
  std::shared_ptr<Context> ctx = Context::create(ContextOptions{std::chrono::milliseconds(0)});
  Node node{ctx, "service_test"};
  std::string name = testing::unique_name("srv");
};

TEST_F(ServiceTest, create_without_callback_returns_missing_callback) {
  auto sut = node.service<AddTwoInts>(name).create();
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, EndpointCreateError::MissingCallback);
}

TEST_F(ServiceTest, create_with_invalid_name_returns_invalid_name) {
  auto srv = node.service<AddTwoInts>("bad name!").callback(add).create();
  ASSERT_FALSE(srv);
  EXPECT_EQ(srv.error().code, EndpointCreateError::InvalidName);
  auto cli = node.client<AddTwoInts>("bad name!").create();
  ASSERT_FALSE(cli);
  EXPECT_EQ(cli.error().code, EndpointCreateError::InvalidName);
}

TEST_F(ServiceTest, send_request_without_service_returns_service_unavailable) {
  auto sut = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(sut);
  EXPECT_FALSE((*sut)->service_is_ready());
  EXPECT_FALSE((*sut)->wait_for_service(10ms));
  auto r = (*sut)->send_request({1, 2}, 50ms);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ClientError::ServiceUnavailable);
}

TEST_F(ServiceTest, send_request_to_service_nobody_spins_returns_timeout) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  auto sut = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(srv && sut);
  auto r = (*sut)->send_request({1, 2}, 50ms);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), ClientError::Timeout);
  EXPECT_EQ((*sut)->pending_requests(), 0u);  // forgotten: a late answer is dropped
}

TEST_F(ServiceTest, wait_for_service_returns_true_once_service_exists) {
  auto sut = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(sut);
  std::shared_ptr<Service<AddTwoInts>> srv;
  std::thread creator([&] {
    std::this_thread::sleep_for(10ms);
    srv = *node.service<AddTwoInts>(name).callback(add).create();
  });
  EXPECT_TRUE((*sut)->wait_for_service(GUARD));
  creator.join();
  EXPECT_TRUE((*sut)->service_is_ready());
}

TEST_F(ServiceTest, execute_one_answers_a_request_without_an_executor) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  auto cli = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(srv && cli);
  auto f = (*cli)->async_send_request({40, 2});
  ASSERT_TRUE(f);
  EXPECT_TRUE((*srv)->has_data());
  EXPECT_TRUE((*srv)->execute_one());
  EXPECT_FALSE((*srv)->execute_one());
  EXPECT_TRUE((*cli)->execute_one());
  ASSERT_EQ(f->wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f->get().sum, 42);
  EXPECT_EQ((*srv)->handled(), 1u);
}

TEST_F(ServiceTest, three_clients_in_three_threads_each_get_their_own_answers) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  SingleThreadedExecutor exec(ctx);
  ASSERT_TRUE(exec.add_service(*srv));
  std::thread spinner([&] { exec.spin(); });
  std::atomic<int> correct{0};
  std::vector<std::thread> callers;
  for (std::int64_t c = 0; c < 3; ++c) {
    callers.emplace_back([&, c] {
      auto cli = node.client<AddTwoInts>(name).create();
      ASSERT_TRUE(cli);
      ASSERT_TRUE((*cli)->wait_for_service(GUARD));
      for (std::int64_t i = 0; i < 30; ++i) {
        // Values unique per client: an answer meant for another client cannot match.
        auto r = (*cli)->send_request({c * 1'000'000, i}, GUARD);
        ASSERT_TRUE(r) << to_string(r.error());
        if (r->sum == c * 1'000'000 + i) ++correct;
      }
      EXPECT_EQ((*cli)->dropped(), 0u);
    });
  }
  for (auto& t : callers) t.join();
  exec.cancel();
  spinner.join();
  EXPECT_EQ(correct.load(), 90);
  EXPECT_EQ((*srv)->handled(), 90u);
}

// ClientBase::MAX_CLIENTS (256) clients on one service, each calling from its own thread; every
// answer carries values unique to its caller, so one delivered to the wrong client cannot match.
// A 257th client is refused with NoFreeSlot while they all live, and attaches once one is gone.
TEST_F(ServiceTest, max_clients_in_as_many_threads_each_get_their_own_answers) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  std::vector<std::shared_ptr<Client<AddTwoInts>>> clients;
  for (std::uint32_t c = 0; c < ClientBase::MAX_CLIENTS; ++c) {
    auto cli = node.client<AddTwoInts>(name).create();
    ASSERT_TRUE(cli) << "client " << c << ": " << cli.error().detail;
    clients.push_back(*cli);
  }
  auto extra = node.client<AddTwoInts>(name).create();
  ASSERT_FALSE(extra);
  EXPECT_EQ(extra.error().code, EndpointCreateError::NoFreeSlot);
  EXPECT_NE(extra.error().detail.find("already has 256 clients"), std::string::npos)
      << extra.error().detail;

  SingleThreadedExecutor exec(ctx);
  ASSERT_TRUE(exec.add_service(*srv));
  std::thread spinner([&] { exec.spin(); });
  std::atomic<int> correct{0};
  std::vector<std::thread> callers;
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(clients.size()); ++c) {
    callers.emplace_back([&, c] {
      for (std::int64_t i = 0; i < 3; ++i) {
        auto r = clients[c]->send_request({c * 1'000'000, i}, GUARD);
        ASSERT_TRUE(r) << "client " << c << ": " << to_string(r.error());
        if (r->sum == c * 1'000'000 + i) ++correct;
      }
      EXPECT_EQ(clients[c]->dropped(), 0u);
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(correct.load(), 3 * 256);

  clients.pop_back();  // frees its request publisher slot
  auto next = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(next) << next.error().detail;
  auto r = (*next)->send_request({7, 8}, GUARD);
  ASSERT_TRUE(r) << to_string(r.error());
  EXPECT_EQ(r->sum, 15);
  exec.cancel();
  spinner.join();
  EXPECT_EQ((*srv)->handled(), 3u * 256 + 1);
}

// The same number of clients spread over four processes, all alive at once.
TEST_F(ServiceTest, max_clients_in_four_processes_each_get_their_own_answers) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  const std::string service = name;
  constexpr std::int64_t PROCESSES = 4;
  constexpr std::int64_t PER_PROCESS = ClientBase::MAX_CLIENTS / PROCESSES;
  std::vector<pid_t> children;
  for (std::int64_t p = 0; p < PROCESSES; ++p) {
    // Fork before any executor thread exists; each child builds its own context.
    children.push_back(testing::run_in_child([&] {
      auto c = Context::create(ContextOptions{std::chrono::milliseconds(0)});
      Node n(c, "child");
      std::vector<std::shared_ptr<Client<AddTwoInts>>> mine;
      for (std::int64_t k = 0; k < PER_PROCESS; ++k) {
        auto cli = n.client<AddTwoInts>(service).create();
        if (!cli) return 1;
        mine.push_back(*cli);
      }
      for (std::int64_t round = 0; round < 2; ++round) {
        for (std::int64_t k = 0; k < PER_PROCESS; ++k) {
          const std::int64_t a = p * 1'000'000 + k * 1'000;
          auto r = mine[k]->send_request({a, round}, GUARD);
          if (!r) return 2;
          if (r->sum != a + round) return 3;
        }
      }
      return 0;
    }));
  }
  SingleThreadedExecutor exec(ctx);
  ASSERT_TRUE(exec.add_service(*srv));
  std::thread spinner([&] { exec.spin(); });
  for (pid_t child : children) EXPECT_EQ(testing::wait_child(child), 0);
  exec.cancel();
  spinner.join();
  EXPECT_EQ((*srv)->handled(), static_cast<std::uint64_t>(2 * PROCESSES * PER_PROCESS));
}

TEST_F(ServiceTest, sync_call_from_forked_client_reaches_service_in_parent) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  const std::string service = name;
  // Fork before any executor thread exists; the child builds its own context.
  const pid_t child = testing::run_in_child([&] {
    // No janitor thread: a forked child of a threaded parent should stay single-threaded.
    auto c = Context::create(ContextOptions{std::chrono::milliseconds(0)});
    Node n(c, "child");
    auto cli = n.client<AddTwoInts>(service).create();
    if (!cli) return 1;
    for (std::int64_t i = 0; i < 10; ++i) {
      auto r = (*cli)->send_request({i, 100}, std::chrono::seconds(10));
      if (!r) return 2;
      if (r->sum != i + 100) return 3;
    }
    return 0;
  });
  SingleThreadedExecutor exec(ctx);
  ASSERT_TRUE(exec.add_node(node));
  std::thread spinner([&] { exec.spin(); });
  EXPECT_EQ(testing::wait_child(child), 0);
  exec.cancel();
  spinner.join();
  EXPECT_EQ((*srv)->handled(), 10u);
}

TEST_F(ServiceTest, malformed_request_is_dropped_and_service_keeps_serving) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  // A hostile peer on the request topic: right type, truncated and wrong-version messages.
  auto raw = node.raw_publisher(name + "/_request", request_type_info_of<AddTwoInts>()).create();
  ASSERT_TRUE(raw);
  const char junk[8] = {};
  ASSERT_TRUE(raw->publish_copy(junk, sizeof(junk)));
  auto header = detail::make_header(123, 1);
  header.version = 99;
  std::byte bad[64] = {};
  std::memcpy(bad, &header, sizeof(header));
  ASSERT_TRUE(raw->publish_copy(bad, sizeof(bad)));
  header = detail::make_header(/*client_id=*/0xdead'0000'0001ull, 1);  // nobody listens there
  std::memcpy(bad, &header, sizeof(header));
  ASSERT_TRUE(raw->publish_copy(bad, sizeof(bad)));
  while ((*srv)->execute_one()) {
  }
  EXPECT_EQ((*srv)->dropped(), 3u);
  EXPECT_EQ((*srv)->handled(), 0u);
  auto cli = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(cli);
  auto f = (*cli)->async_send_request({1, 1});
  ASSERT_TRUE(f);
  EXPECT_TRUE((*srv)->execute_one());
  auto r = (*cli)->send_request({2, 2}, 0ms);  // picks up the first answer too, then times out
  EXPECT_FALSE(r);
  ASSERT_EQ(f->wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f->get().sum, 2);
}

TEST_F(ServiceTest, request_for_destroyed_client_is_dropped_with_its_cached_publisher) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  std::uint64_t gone_id = 0;
  {
    auto cli = node.client<AddTwoInts>(name).create();
    ASSERT_TRUE(cli);
    gone_id = (*cli)->client_id();
    ASSERT_TRUE((*cli)->async_send_request({1, 2}));
    ASSERT_TRUE((*srv)->execute_one());
    EXPECT_EQ((*srv)->cached_clients(), 1u);
  }
  // A request still naming the destroyed client (as if it was in flight when it went away).
  auto raw = node.raw_publisher(name + "/_request", request_type_info_of<AddTwoInts>()).create();
  ASSERT_TRUE(raw);
  std::byte msg[detail::message_size<AddTwoInts::Request>()] = {};
  const auto header = detail::make_header(gone_id, 2);
  std::memcpy(msg, &header, sizeof(header));
  ASSERT_TRUE(raw->publish_copy(msg, sizeof(msg)));
  ASSERT_TRUE((*srv)->execute_one());
  EXPECT_EQ((*srv)->cached_clients(), 0u);
  EXPECT_EQ((*srv)->dropped(), 1u);
}

TEST_F(ServiceTest, new_client_sweeps_destroyed_clients_from_the_service_cache) {
  auto srv = node.service<AddTwoInts>(name).callback(add).create();
  ASSERT_TRUE(srv);
  {
    auto cli = node.client<AddTwoInts>(name).create();
    ASSERT_TRUE(cli);
    ASSERT_TRUE((*cli)->async_send_request({1, 2}));
    ASSERT_TRUE((*srv)->execute_one());
  }
  auto cli = node.client<AddTwoInts>(name).create();
  ASSERT_TRUE(cli);
  auto f = (*cli)->async_send_request({5, 6});
  ASSERT_TRUE(f);
  ASSERT_TRUE((*srv)->execute_one());
  EXPECT_EQ((*srv)->cached_clients(), 1u);
  ASSERT_TRUE((*cli)->execute_one());
  EXPECT_EQ(f->get().sum, 11);
}

}  // namespace
}  // namespace baton
