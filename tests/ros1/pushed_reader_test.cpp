// The push form of the reader core (src/wire/pushed_reader.hpp), as ros1::Subscription composes
// it: each writer is delivered from the one path it was admitted on, a writer reached both ways
// is delivered once, and the sink is called one call at a time from every pushing thread.
#include "../../src/wire/pushed_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace baton::wire {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// What the sink got, as "<source>:<path>:<connection>:<sequence>:<message>".
struct Got {
  std::mutex mutex;
  std::vector<std::string> lines;
  PushedReader::Sink sink() {
    return [this](const PushedSample& s) {
      std::lock_guard lock(mutex);
      lines.push_back(std::string(s.source) + ":" + (s.path == ReadPath::Shm ? "shm" : "wire") +
                      ":" + std::to_string(s.connection) + ":" + std::to_string(s.sequence) + ":" +
                      std::string(s.bytes.begin(), s.bytes.end()));
    };
  }
};

const auto ACCEPT = [](std::string_view) { return true; };

TEST(PushedReader, delivers_a_port_sample_only_from_a_writer_admitted_on_shared_memory) {
  Got got;
  PushedReader core(got.sink());
  core.admit_shm(1, "/talker", {3, 7});
  EXPECT_TRUE(core.push_shm({3, 7}, bytes_of("a"), ACCEPT));
  // The same slot in another generation, and another slot: writers this reader was not granted
  // (read over the wire, or on another graph of the same domain).
  EXPECT_FALSE(core.push_shm({3, 8}, bytes_of("b"), ACCEPT));
  EXPECT_FALSE(core.push_shm({4, 7}, bytes_of("c"), ACCEPT));
  EXPECT_TRUE(core.push_shm({3, 7}, bytes_of("d"), ACCEPT));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"/talker:shm:1:0:a", "/talker:shm:1:1:d"}));
  EXPECT_EQ(core.ignored(), 2u);
  EXPECT_EQ(core.stats(ReadPath::Shm).received, 2u);
  EXPECT_EQ(core.stats(ReadPath::Shm).bytes, 2u);
  EXPECT_EQ(core.stats(ReadPath::Wire).received, 0u);
}

TEST(PushedReader, a_sample_the_front_end_refuses_is_not_delivered) {
  Got got;
  PushedReader core(got.sink());
  core.admit_shm(1, "/talker", {0, 1});
  std::vector<std::string> checked;
  EXPECT_FALSE(core.push_shm({0, 1}, bytes_of("too big"), [&](std::string_view source) {
    checked.emplace_back(source);
    return false;
  }));
  EXPECT_EQ(checked, std::vector<std::string>{"/talker"});
  EXPECT_TRUE(got.lines.empty());
  EXPECT_EQ(core.stats(ReadPath::Shm).received, 0u);
}

TEST(PushedReader, a_writer_admitted_over_the_wire_after_shared_memory_is_delivered_once) {
  Got got;
  PushedReader core(got.sink());
  core.admit_shm(1, "/talker", {2, 1});
  ASSERT_TRUE(core.push_shm({2, 1}, bytes_of("m0"), ACCEPT));
  // The same publisher reached over the wire too: every later message arrives both ways.
  auto tcpros = core.admit_wire(2, "/talker");
  EXPECT_FALSE(core.push_shm({2, 1}, bytes_of("m1"), ACCEPT));
  EXPECT_TRUE(core.push_wire(*tcpros, bytes_of("m1")));
  EXPECT_FALSE(core.push_shm({2, 1}, bytes_of("m2"), ACCEPT));
  EXPECT_TRUE(core.push_wire(*tcpros, bytes_of("m2")));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"/talker:shm:1:0:m0", "/talker:wire:2:0:m1",
                                                 "/talker:wire:2:1:m2"}));
  EXPECT_EQ(core.ignored(), 2u);
}

TEST(PushedReader, a_writer_admitted_on_shared_memory_after_the_wire_is_delivered_once) {
  Got got;
  PushedReader core(got.sink());
  auto tcpros = core.admit_wire(1, "/talker");
  ASSERT_TRUE(core.push_wire(*tcpros, bytes_of("m0")));
  core.admit_shm(2, "/talker", {5, 1});
  // The wire connection's thread still pushes what it had read: superseded, not delivered.
  EXPECT_FALSE(tcpros->current());
  EXPECT_FALSE(core.push_wire(*tcpros, bytes_of("m1")));
  EXPECT_TRUE(core.push_shm({5, 1}, bytes_of("m1"), ACCEPT));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"/talker:wire:1:0:m0", "/talker:shm:2:0:m1"}));
  EXPECT_EQ(core.superseded(), 1u);
  EXPECT_EQ(core.stats(ReadPath::Wire).received, 1u);
  EXPECT_EQ(core.stats(ReadPath::Shm).received, 1u);
}

TEST(PushedReader, a_revoked_writer_is_delivered_from_neither_path) {
  Got got;
  PushedReader core(got.sink());
  core.admit_shm(1, "/shm_talker", {1, 1});
  auto tcpros = core.admit_wire(2, "/tcpros_talker");
  core.revoke(1);
  core.revoke(2);
  core.revoke(3);  // never admitted: nothing
  EXPECT_FALSE(core.push_shm({1, 1}, bytes_of("x"), ACCEPT));
  EXPECT_FALSE(core.push_wire(*tcpros, bytes_of("y")));
  EXPECT_TRUE(got.lines.empty());
  // Admitted again (a new connection): delivered, its sequence from 0.
  core.admit_shm(4, "/shm_talker", {1, 1});
  EXPECT_TRUE(core.push_shm({1, 1}, bytes_of("z"), ACCEPT));
  EXPECT_EQ(got.lines, std::vector<std::string>{"/shm_talker:shm:4:0:z"});
}

TEST(PushedReader, the_sink_is_called_one_call_at_a_time_on_the_pushing_threads) {
  constexpr int kPerWriter = 2000;
  std::atomic<int> inside{0}, most{0};
  std::atomic<uint64_t> calls{0};
  std::mutex threads_mutex;
  std::vector<std::thread::id> callers;
  PushedReader core([&](const PushedSample&) {
    const int now = inside.fetch_add(1) + 1;
    for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
    }
    {
      std::lock_guard lock(threads_mutex);
      if (std::find(callers.begin(), callers.end(), std::this_thread::get_id()) == callers.end())
        callers.push_back(std::this_thread::get_id());
    }
    ++calls;
    inside.fetch_sub(1);
  });
  core.admit_shm(1, "/shm_talker", {0, 1});
  auto a = core.admit_wire(2, "/a"), b = core.admit_wire(3, "/b");
  std::vector<std::thread> pushers;
  pushers.emplace_back([&] {
    for (int i = 0; i < kPerWriter; ++i) core.push_shm({0, 1}, bytes_of("s"), ACCEPT);
  });
  pushers.emplace_back([&] {
    for (int i = 0; i < kPerWriter; ++i) core.push_wire(*a, bytes_of("a"));
  });
  pushers.emplace_back([&] {
    for (int i = 0; i < kPerWriter; ++i) core.push_wire(*b, bytes_of("b"));
  });
  for (auto& t : pushers) t.join();
  EXPECT_EQ(calls.load(), 3u * kPerWriter);
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(callers.size(), 3u);  // each on the thread that pushed it: no hand-off
  EXPECT_EQ(core.stats(ReadPath::Wire).received, 2u * kPerWriter);
  EXPECT_EQ(core.stats(ReadPath::Shm).received, 1u * kPerWriter);
}

}  // namespace
}  // namespace baton::wire
