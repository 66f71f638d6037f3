// Helper process for tests/stress/crash_loop_test.cpp: one baton endpoint that the test kills
// with SIGKILL at random moments. Modes (argv[1]):
//
//   sub <topic> <rel|be> <depth> <max_hold> <seed> <stride>
//       Takes messages, checks their content when taken and again before release, holds up to
//       max_hold of them at once. On SIGTERM prints "received=N errors=E" and exits 0 if E == 0.
//   busytake <topic>
//       Prints "R" once attached, then busy-polls take() + release() so a kill most likely lands
//       inside one of them.
//   pub <topic> <rel|be> <depth> <size> <seed>
//       Publishes self-checking payloads of `size` bytes without pause.
//   blockpub <topic>
//       Reliable publisher (30 s timeout): waits for a byte on stdin, then publishes until it
//       blocks on a full reliable subscriber; writes 'P' after each successful publish.
//   pubexit <topic> <rel|be> <first> <count> [reliable_timeout_ms]
//       Publisher of depth `first + count` (tests/topic/publisher_departure_test.cpp): prints
//       "A" once created, waits for a line on stdin, publishes `first` self-checking messages,
//       prints "F" and waits for another line if `count` > 0, publishes `count` more, prints "P"
//       and exits normally (destructors run: the clean close under test).
//
// Exit codes: 0 clean, 2 usage, 3 content error, 4 setup failure.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "stress/stress_payload.hpp"

using namespace baton::topic;
using namespace std::chrono_literals;

namespace {

volatile sig_atomic_t g_stop = 0;
void on_term(int) { g_stop = 1; }

std::shared_ptr<Topic> open_topic(const char* name) {
  auto t = Topic::open_or_create(name, TypeInfo::from_name(baton::stress::STRESS_TYPE));
  if (!t) {
    std::fprintf(stderr, "child %d: topic %s: %s\n", getpid(), name, t.error().detail.c_str());
    std::_Exit(4);
  }
  return *t;
}

Reliability reliability_of(const char* s) {
  return std::strcmp(s, "rel") == 0 ? Reliability::Reliable : Reliability::BestEffort;
}

[[noreturn]] void content_error(const TakenSample& s, const char* when) {
  std::fprintf(stderr, "child %d: content error %s: seq %llu size %llu from publisher slot %u\n",
               getpid(), when, static_cast<unsigned long long>(s.sequence()),
               static_cast<unsigned long long>(s.size()), s.publisher_slot());
  std::_Exit(3);
}

int run_sub(int argc, char** argv) {
  if (argc < 8) return 2;
  auto topic = open_topic(argv[2]);
  SubscriberOptions so;
  so.reliability = reliability_of(argv[3]);
  so.depth = static_cast<std::uint32_t>(std::atoi(argv[4]));
  const int max_hold = std::atoi(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  const std::uint64_t stride = std::strtoull(argv[7], nullptr, 10);
  auto sub = SubscriberPort::create(topic, so);
  if (!sub) return 4;
  std::printf("R\n");
  std::fflush(stdout);
  std::deque<TakenSample> held;
  std::uint64_t received = 0;
  while (!g_stop) {
    (*sub)->wait(20ms);
    while (!g_stop) {
      auto m = (*sub)->take();
      if (!m) break;
      if (!baton::stress::check_payload(m->data(), m->size(), stride)) content_error(*m, "at take");
      ++received;
      held.push_back(std::move(*m));
      const auto keep = static_cast<std::size_t>(rng() % (max_hold + 1));
      while (held.size() > keep) {
        // Release a random one: re-check first, a chunk reused while on loan would show here.
        const std::size_t i = rng() % held.size();
        if (!baton::stress::check_payload(held[i].data(), held[i].size(), stride)) {
          content_error(held[i], "before release");
        }
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  for (auto& h : held) {
    if (!baton::stress::check_payload(h.data(), h.size(), stride)) content_error(h, "at exit");
  }
  std::printf("received=%llu errors=0\n", static_cast<unsigned long long>(received));
  std::fflush(stdout);
  return 0;
}

int run_busytake(int argc, char** argv) {
  if (argc < 3) return 2;
  auto topic = open_topic(argv[2]);
  SubscriberOptions so;
  so.reliability = Reliability::BestEffort;
  so.depth = 4;
  so.wait_mode = WaitMode::BusyPoll;
  auto sub = SubscriberPort::create(topic, so);
  if (!sub) return 4;
  std::printf("R\n");  // attached: the test may kill it from now on
  std::fflush(stdout);
  while (!g_stop) {
    auto m = (*sub)->take();
    if (m && !baton::stress::check_payload(m->data(), m->size(), 61)) content_error(*m, "at take");
  }
  return 0;
}

int run_pub(int argc, char** argv) {
  if (argc < 7) return 2;
  auto topic = open_topic(argv[2]);
  PublisherOptions po;
  po.reliability = reliability_of(argv[3]);
  po.depth = static_cast<std::uint32_t>(std::atoi(argv[4]));
  po.reliable_timeout = 20ms;
  const auto size = static_cast<std::uint32_t>(std::atoi(argv[5]));
  auto pub = PublisherPort::create(topic, po);
  if (!pub) return 4;
  const auto writer = static_cast<std::uint32_t>(getpid());
  for (std::uint64_t seq = 0; !g_stop; ++seq) {
    auto loan = (*pub)->loan(size);
    if (!loan) return 4;
    baton::stress::fill_payload(loan->data, size, seq, writer);
    (void)(*pub)->publish(*loan, size);  // a reliable timeout drops the message: fine here
  }
  return 0;
}

int run_blockpub(int argc, char** argv) {
  if (argc < 3) return 2;
  auto topic = open_topic(argv[2]);
  PublisherOptions po;
  po.reliability = Reliability::Reliable;
  po.depth = 2;
  po.reliable_timeout = 30s;
  auto pub = PublisherPort::create(topic, po);
  if (!pub) return 4;
  std::printf("A");
  std::fflush(stdout);
  char go = 0;
  if (::read(0, &go, 1) != 1) return 4;
  const auto writer = static_cast<std::uint32_t>(getpid());
  for (std::uint64_t seq = 0; !g_stop; ++seq) {
    auto loan = (*pub)->loan(64);
    if (!loan) return 4;
    baton::stress::fill_payload(loan->data, 64, seq, writer);
    if (!(*pub)->publish(*loan, 64)) return 5;
    std::printf("P");
    std::fflush(stdout);
  }
  return 0;
}

// Publishes messages [from, to) of `writer`; false on a failed loan or publish.
bool publish_range(PublisherPort& pub, std::uint64_t from, std::uint64_t to, std::uint32_t writer) {
  for (std::uint64_t seq = from; seq < to; ++seq) {
    auto loan = pub.loan(64);
    if (!loan) return false;
    baton::stress::fill_payload(loan->data, 64, seq, writer);
    if (!pub.publish(*loan, 64)) return false;
  }
  return true;
}

bool wait_line() {
  char c = 0;
  while (::read(0, &c, 1) == 1) {
    if (c == '\n') return true;
  }
  return false;
}

int run_pubexit(int argc, char** argv) {
  if (argc < 6) return 2;
  auto topic = open_topic(argv[2]);
  const auto first = std::strtoull(argv[4], nullptr, 10);
  const auto count = std::strtoull(argv[5], nullptr, 10);
  PublisherOptions po;
  po.reliability = reliability_of(argv[3]);
  po.depth = static_cast<std::uint32_t>(first + count);
  if (argc > 6) po.reliable_timeout = std::chrono::milliseconds(std::atoi(argv[6]));
  auto pub = PublisherPort::create(topic, po);
  if (!pub) return 4;
  const auto writer = static_cast<std::uint32_t>(getpid());
  std::printf("A\n");
  std::fflush(stdout);
  if (!wait_line() || !publish_range(**pub, 0, first, writer)) return 4;
  if (count > 0) {
    std::printf("F\n");
    std::fflush(stdout);
    if (!wait_line() || !publish_range(**pub, first, first + count, writer)) return 4;
  }
  std::printf("P\n");
  std::fflush(stdout);
  return 0;  // ~PublisherPort: the clean close
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  signal(SIGTERM, on_term);
  signal(SIGPIPE, SIG_IGN);
  const std::string mode = argv[1];
  if (mode == "sub") return run_sub(argc, argv);
  if (mode == "busytake") return run_busytake(argc, argv);
  if (mode == "pub") return run_pub(argc, argv);
  if (mode == "blockpub") return run_blockpub(argc, argv);
  if (mode == "pubexit") return run_pubexit(argc, argv);
  return 2;
}
