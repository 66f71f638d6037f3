// Crash loop: a long-lived publisher (this process) on several topics while child subscribers
// and child publishers (tests/helpers/baton_stress_child) are SIGKILLed at random moments —
// while holding loans, inside take(), blocked in a reliable publish. Afterwards every surviving
// publisher's pool must be whole again, dead publishers' segments gone, and surviving
// subscribers must still get correct messages. Figures go to stdout so they can be quoted.
//
// BATON_STRESS_SEED overrides the seed; BATON_STRESS_KILLS the number of kills (default 240),
// BATON_STRESS_WIDE_KILLS that of the 256-subscriber loop (default 240).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <thread>

#include "baton/memory/chunk_refs.hpp"
#include "baton/memory/pool_view.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "stress/stress_payload.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using topic::PublisherOptions;
using topic::PublisherPort;
using topic::Reliability;
using topic::SubscriberOptions;
using topic::SubscriberPort;
using topic::TakenSample;
using topic::Topic;
using topic::TypeInfo;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

std::shared_ptr<Topic> open_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, TypeInfo::from_name(STRESS_TYPE));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return t ? *t : nullptr;
}

std::unique_ptr<PublisherPort> make_pub(const std::shared_ptr<Topic>& t, Reliability r,
                                        std::uint32_t depth) {
  PublisherOptions o;
  o.reliability = r;
  o.depth = depth;
  o.reliable_timeout = 20ms;
  auto p = PublisherPort::create(t, o);
  EXPECT_TRUE(p);
  return p ? std::move(*p) : nullptr;
}

std::unique_ptr<SubscriberPort> make_sub(const std::shared_ptr<Topic>& t, Reliability r,
                                         std::uint32_t depth) {
  SubscriberOptions o;
  o.reliability = r;
  o.depth = depth;
  auto s = SubscriberPort::create(t, o);
  EXPECT_TRUE(s);
  return s ? std::move(*s) : nullptr;
}

// Publishes one self-checking payload; false if the publish was refused (reliable timeout).
bool publish(PublisherPort& pub, std::uint32_t size, std::uint64_t seq, std::uint32_t writer) {
  auto loan = pub.loan(size);
  if (!loan) {
    ADD_FAILURE() << "loan failed: " << topic::to_string(loan.error());
    return false;
  }
  fill_payload(loan->data, size, seq, writer);
  return static_cast<bool>(pub.publish(*loan, size));
}

// An in-process subscriber that survives the whole loop, checking what it takes and holding a
// few samples.
struct Survivor {
  std::unique_ptr<SubscriberPort> port;
  std::uint64_t stride = 1;
  std::deque<TakenSample> held;
  std::uint64_t received = 0;
  std::uint64_t content_errors = 0;

  void drain(std::mt19937_64& rng) {
    while (auto m = port->take()) {
      if (!check_payload(m->data(), m->size(), stride)) ++content_errors;
      ++received;
      held.push_back(std::move(*m));
      while (held.size() > rng() % 3) {
        if (!check_payload(held.front().data(), held.front().size(), stride)) ++content_errors;
        held.pop_front();
      }
    }
  }
};

struct Figures {
  std::map<std::string, int> kills;
  int total_kills = 0;
  int mid_take_window = 0;  // killed with a loan recorded but not (or no longer) pinned
  int killed_holding = 0;   // killed with at least one pinned loan
  int blocked_kills = 0;    // killed while blocked in a reliable publish (state S, no return)
  int child_failures = 0;   // children that exited on their own (content or setup error)
  std::uint64_t published = 0;
  std::uint64_t reliable_timeouts = 0;
  std::uint32_t reclaimed = 0;
};

// Finds the subscriber slot a (stopped) child owns and classifies its loan records.
void inspect_loans(const Topic& t, pid_t pid, Figures& f) {
  for (std::uint32_t k = 0; k < topic::MAX_SUBSCRIBERS; ++k) {
    topic::SubscriberSlot* s = t.subscriber_slot(k);
    if (topic::slot_pid(s->state.load()) != static_cast<std::uint32_t>(pid)) continue;
    bool window = false, holding = false;
    for (auto& h : s->held) {
      const std::uint64_t e = h.load();
      if ((e & topic::HELD_VALID) == 0) continue;
      const std::uint32_t p = topic::held_pub_slot(e);
      const std::uint32_t gen = t.publisher_slot(p)->generation.load();
      memory::PoolView view(t.pool_name(p, gen));
      auto c = view.resolve(topic::held_chunk(e));
      if (!c) continue;
      if (memory::holds_ref(c->control, k)) {
        holding = true;
      } else {
        window = true;
      }
    }
    f.mid_take_window += window;
    f.killed_holding += holding;
  }
}

int kill_and_reap(Child& c, Figures& f) {
  ::kill(c.pid, SIGKILL);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    ++f.child_failures;
    std::printf("  child %d (%s) had exited on its own: status %d\n", c.pid, c.kind.c_str(),
                status);
  } else {
    ++f.kills[c.kind];
    ++f.total_kills;
  }
  close_child(c);
  return status;
}

TEST(CrashLoopTest, random_sigkills_of_endpoints_leave_no_leaked_chunks_or_segments) {
  ScopedNamespace ns("crash");
  const std::uint64_t seed = env_u64("BATON_STRESS_SEED", 20240607);
  const int target_kills = static_cast<int>(env_u64("BATON_STRESS_KILLS", 240));
  std::mt19937_64 rng(seed);
  std::printf("[crash-loop] namespace %s seed %llu target kills %d\n", ns.name().c_str(),
              static_cast<unsigned long long>(seed), target_kills);
  ASSERT_EQ(::access(helper_path("baton_stress_child").c_str(), X_OK), 0)
      << "helper missing: " << helper_path("baton_stress_child");

  const std::string small_rel = "/stress/small_rel", small_be = "/stress/small_be",
                    big_be = "/stress/big_be", block = "/stress/block";
  auto t_rel = open_topic(small_rel);
  auto t_be = open_topic(small_be);
  auto t_big = open_topic(big_be);
  auto t_block = open_topic(block);
  ASSERT_TRUE(t_rel && t_be && t_big && t_block);

  auto p_rel = make_pub(t_rel, Reliability::Reliable, 4);
  auto p_be = make_pub(t_be, Reliability::BestEffort, 2);
  auto p_big = make_pub(t_big, Reliability::BestEffort, 3);
  ASSERT_TRUE(p_rel && p_be && p_big);
  Survivor s_rel{make_sub(t_rel, Reliability::Reliable, 16)};
  Survivor s_be{make_sub(t_be, Reliability::BestEffort, 4)};
  Survivor s_big{make_sub(t_big, Reliability::BestEffort, 2), 97};
  auto stuck = make_sub(t_block, Reliability::Reliable, 1);  // never takes: blocks publishers
  ASSERT_TRUE(s_rel.port && s_be.port && s_big.port && stuck);

  // Long-lived child subscribers: never SIGKILLed, stopped with SIGTERM at the end.
  std::vector<Child> survivors = {
      spawn_child({"sub", small_rel, "rel", "8", "3", std::to_string(rng()), "1"}, "survivor"),
      spawn_child({"sub", big_be, "be", "2", "2", std::to_string(rng()), "97"}, "survivor")};
  for (auto& c : survivors) {
    ASSERT_GT(c.pid, 0);
    ASSERT_NE(read_until(c, 'R', 5s).find('R'), std::string::npos) << "survivor did not attach";
  }

  Figures f;
  auto random_kind = [&]() -> Child {
    const std::string s = std::to_string(rng());
    switch (rng() % 10) {
      case 0:
      case 1:
        return spawn_child({"sub", small_rel, "rel", "4", std::to_string(rng() % 5), s, "1"},
                           "sub-rel");
      case 2:
      case 3:
        return spawn_child({"sub", small_be, "be", "3", std::to_string(rng() % 5), s, "1"},
                           "sub-be");
      case 4:
        return spawn_child({"sub", big_be, "be", "2", std::to_string(rng() % 4), s, "97"},
                           "sub-big");
      case 5:
        return spawn_child({"busytake", small_be}, "mid-take");
      case 6:
        return spawn_child({"pub", small_rel, "rel", "3", "200", s}, "pub-rel");
      case 7:
        return spawn_child({"pub", small_be, "be", "2", "128", s}, "pub-be");
      case 8:
        return spawn_child({"pub", big_be, "be", "2", std::to_string((1 << 20) - 4096), s},
                           "pub-big");
      default:
        return spawn_child({"sub", small_be, "be", "16", "16", s, "1"}, "sub-hold16");
    }
  };
  auto lifetime = [&]() {
    // A quarter die during start-up (claiming a slot, attaching), the rest while running.
    return rng() % 4 == 0 ? std::chrono::microseconds(rng() % 10'000)
                          : std::chrono::microseconds(10'000 + rng() % 190'000);
  };

  // Kill one child publisher while it is blocked in a reliable publish on `block`.
  auto blocked_publish_kill = [&]() {
    Child c = spawn_child({"blockpub", block}, "blocked-publish");
    ASSERT_GT(c.pid, 0);
    ASSERT_NE(read_until(c, 'A', 5s).find('A'), std::string::npos);
    (void)stuck->has_data();  // attach to the new publisher: its cursor now holds it back
    ASSERT_EQ(::write(c.to_child, "G", 1), 1);
    std::string out = read_until(c, 'P', 5s);
    ASSERT_NE(out.find('P'), std::string::npos) << "first publish never returned";
    // depth 1 reliable subscriber, nothing taken: the second publish must block.
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 30));
    out += drain(c);
    const char st = process_state(c.pid);
    const bool blocked = out == "AP" || out == "P";
    if (blocked && (st == 'S' || st == 'R')) ++f.blocked_kills;
    EXPECT_TRUE(blocked) << "reliable publish did not block: child wrote '" << out << "'";
    kill_and_reap(c, f);
  };

  std::vector<Child> children;
  const auto start = Clock::now();
  std::uint64_t iteration = 0;
  std::uint64_t seq_rel = 0, seq_be = 0, seq_big = 0;
  while (f.total_kills < target_kills && Clock::now() - start < 45s) {
    ++iteration;
    if (!publish(*p_rel, 24 + rng() % 232, seq_rel++, 1)) ++f.reliable_timeouts;
    publish(*p_be, 24 + rng() % 232, seq_be++, 2);
    f.published += 2;
    if (iteration % 4 == 0) {
      publish(*p_big, (1u << 20) - static_cast<std::uint32_t>(rng() % 8192), seq_big++, 3);
      ++f.published;
    }
    s_rel.drain(rng);
    s_be.drain(rng);
    s_big.drain(rng);

    const auto now = Clock::now();
    for (auto& c : children) {
      if (c.pid < 0 || now < c.deadline) continue;
      if (c.kind == "mid-take") {
        ::kill(c.pid, SIGSTOP);
        int st = 0;
        ::waitpid(c.pid, &st, WUNTRACED);
        inspect_loans(*t_be, c.pid, f);
      } else if (c.kind.rfind("sub", 0) == 0) {
        inspect_loans(c.kind == "sub-rel"   ? *t_rel
                      : c.kind == "sub-big" ? *t_big
                                            : *t_be,
                      c.pid, f);
      }
      kill_and_reap(c, f);
      c.pid = -1;
    }
    std::erase_if(children, [](const Child& c) { return c.pid < 0; });
    while (children.size() < 6) {
      Child c = random_kind();
      ASSERT_GT(c.pid, 0) << "spawn failed";
      c.deadline = Clock::now() + lifetime();
      children.push_back(std::move(c));
    }
    if (iteration % 500 == 0 ||
        (f.total_kills > 0 && f.total_kills % 25 == 0 && f.blocked_kills < f.total_kills / 25)) {
      blocked_publish_kill();
    }
    if (iteration % 64 == 0) {
      for (auto* t : {&t_rel, &t_be, &t_big, &t_block}) f.reclaimed += (*t)->reclaim_dead();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1500));
  }
  for (auto& c : children) kill_and_reap(c, f);
  children.clear();
  const double loop_s = std::chrono::duration<double>(Clock::now() - start).count();

  // Anyone may reclaim: this process does it for every dead endpoint.
  for (auto* t : {&t_rel, &t_be, &t_big, &t_block}) f.reclaimed += (*t)->reclaim_dead();
  for (auto* p : {&p_rel, &p_be, &p_big}) (*p)->collect_returns();
  for (auto* s : {&s_rel, &s_be, &s_big}) s->drain(rng);

  // Surviving subscribers still get new messages, intact and (reliable) in order.
  for (auto* s : {&s_rel, &s_be, &s_big}) s->held.clear();
  std::uint64_t post_ok = 0;
  for (std::uint64_t i = 0; i < 50; ++i) {
    ASSERT_TRUE(publish(*p_rel, 100, 1'000'000 + i, 100));
    ASSERT_TRUE(publish(*p_be, 64, 1'000'000 + i, 101));
    publish(*p_big, 1 << 20, 1'000'000 + i, 102);
    for (auto [s, writer] : {std::pair{&s_rel, 100u}, {&s_be, 101u}, {&s_big, 102u}}) {
      auto m = s->port->take();
      ASSERT_TRUE(m) << "survivor got nothing after the loop (writer " << writer << ")";
      std::uint64_t seq = 0;
      std::uint32_t w = 0;
      ASSERT_TRUE(check_payload(m->data(), m->size(), s->stride, &seq, &w));
      EXPECT_EQ(w, writer);
      EXPECT_EQ(seq, 1'000'000 + i);
      post_ok += (w == writer && seq == 1'000'000 + i);
    }
  }
  std::uint64_t child_received = 0;
  for (auto& c : survivors) {
    ::kill(c.pid, SIGTERM);
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    std::string out = drain(c);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "surviving child subscriber failed: status " << status << " output " << out;
    const auto at = out.find("received=");
    if (at != std::string::npos) child_received += std::strtoull(out.c_str() + at + 9, nullptr, 10);
    close_child(c);
  }

  // Every surviving publisher's pool is whole: free + ring == all chunks.
  for (auto* t : {&t_rel, &t_be, &t_big, &t_block}) f.reclaimed += (*t)->reclaim_dead();
  std::uint64_t leaked = 0, chunks = 0;
  for (auto* p : {&p_rel, &p_be, &p_big}) {
    (*p)->collect_returns();
    const auto& pool = (*p)->pool();
    chunks += pool.chunk_count();
    const std::uint64_t accounted = pool.free_count() + (*p)->ring_occupancy();
    EXPECT_EQ(accounted, pool.chunk_count()) << "publisher on " << (*p)->topic().name();
    leaked += pool.chunk_count() - std::min(accounted, pool.chunk_count());
  }
  // Segments: 4 topics + each live publisher's segment and data segments; nothing of the dead.
  std::size_t expected_segments = 4;
  for (auto* p : {&p_rel, &p_be, &p_big}) expected_segments += 1 + (*p)->pool().segment_count();
  const auto segments = ScopedNamespace::list();
  EXPECT_EQ(segments.size(), expected_segments);
  if (segments.size() != expected_segments) {
    for (const auto& s : segments) std::printf("  segment %s\n", s.c_str());
  }
  for (auto* t : {&t_rel, &t_be, &t_big, &t_block}) {
    EXPECT_EQ((*t)->subscriber_count() + (*t)->publisher_count(),
              t == &t_rel || t == &t_be || t == &t_big ? 2u : 1u)
        << (*t)->name();
  }

  std::printf("[crash-loop] kills: %d total in %.1f s (", f.total_kills, loop_s);
  for (auto& [k, n] : f.kills) std::printf("%s %d, ", k.c_str(), n);
  std::printf(")\n");
  std::printf(
      "[crash-loop] killed holding pinned loans: %d; killed inside take/release window: %d; "
      "killed blocked in reliable publish: %d\n",
      f.killed_holding, f.mid_take_window, f.blocked_kills);
  std::printf(
      "[crash-loop] messages: %llu published by this process, %llu taken by in-process "
      "survivors, %llu by surviving child subscribers; %llu reliable timeouts\n",
      static_cast<unsigned long long>(f.published),
      static_cast<unsigned long long>(s_rel.received + s_be.received + s_big.received),
      static_cast<unsigned long long>(child_received),
      static_cast<unsigned long long>(f.reliable_timeouts));
  std::printf(
      "[crash-loop] slots reclaimed: %u; leaked chunks: %llu of %llu; segments: %zu "
      "(expected %zu); content errors: %llu; child failures: %d; post-loop messages "
      "checked: %llu\n",
      f.reclaimed, static_cast<unsigned long long>(leaked), static_cast<unsigned long long>(chunks),
      segments.size(), expected_segments,
      static_cast<unsigned long long>(s_rel.content_errors + s_be.content_errors +
                                      s_big.content_errors),
      f.child_failures, static_cast<unsigned long long>(post_ok));
  EXPECT_GE(f.total_kills, 200);
  EXPECT_EQ(f.child_failures, 0);
  EXPECT_EQ(s_rel.content_errors + s_be.content_errors + s_big.content_errors, 0u);
  EXPECT_EQ(leaked, 0u);
  EXPECT_GT(f.blocked_kills, 0);
}

// Which reference word subscriber slot k pins in (0: refs, 1..4: refs_ext, chunk_refs.hpp).
std::uint32_t ref_word_index(std::uint32_t k) {
  return k < memory::WORD0_SUBSCRIBER_BITS ? 0 : 1 + (k - memory::WORD0_SUBSCRIBER_BITS) / 64;
}

// The loop above with every one of the 256 subscriber slots taken. In-process subscribers hold
// all slots but the one a child is about to claim (slots are claimed lowest free first), chosen
// so that children land in every reference word — often at a word's edge — and are SIGKILLed
// holding loans, mid-take or mid-release. Every in-process subscriber re-checks what it holds,
// so a chunk reused while any of the 256 held it shows as a content error.
TEST(CrashLoopTest, sigkills_in_every_reference_word_of_a_256_subscriber_topic_leak_nothing) {
  ScopedNamespace ns("crash256");
  const std::uint64_t seed = env_u64("BATON_STRESS_SEED", 20240607);
  const int target_kills = static_cast<int>(env_u64("BATON_STRESS_WIDE_KILLS", 240));
  std::mt19937_64 rng(seed);
  std::printf("[crash-loop-256] namespace %s seed %llu target kills %d\n", ns.name().c_str(),
              static_cast<unsigned long long>(seed), target_kills);
  ASSERT_EQ(::access(helper_path("baton_stress_child").c_str(), X_OK), 0);

  const std::string wide = "/stress/wide";
  auto t = open_topic(wide);
  ASSERT_TRUE(t);
  auto p_rel = make_pub(t, Reliability::Reliable, 4);
  auto p_be = make_pub(t, Reliability::BestEffort, 2);
  ASSERT_TRUE(p_rel && p_be);

  std::vector<Survivor> fillers(topic::MAX_SUBSCRIBERS);
  auto fill_slot = [&](std::uint32_t k) {
    fillers[k].port = make_sub(t, Reliability::Reliable, 16);
    ASSERT_TRUE(fillers[k].port);
    ASSERT_EQ(fillers[k].port->slot(), k) << "the freed slot was not the lowest free one";
  };
  for (std::uint32_t k = 0; k < topic::MAX_SUBSCRIBERS; ++k) fill_slot(k);
  ASSERT_FALSE(SubscriberPort::create(t, {})) << "a 257th subscriber was admitted";

  const std::vector<std::uint32_t> edges = {0, 62, 63, 64, 126, 127, 128, 190, 191, 192, 254, 255};
  struct WideChild {
    Child c;
    std::uint32_t slot;
  };
  std::vector<WideChild> children;
  Figures f;
  std::array<int, 1 + memory::EXT_REF_WORDS> kills_per_word{}, holding_per_word{};
  std::uint64_t fillers_content_errors = 0, fillers_received = 0;

  // Frees `slot` and starts a child subscriber that claims it.
  auto spawn_into = [&](std::uint32_t slot) {
    if (fillers[slot].port) fillers_received += fillers[slot].received;
    fillers_content_errors += fillers[slot].content_errors;
    fillers[slot] = Survivor{};
    const std::string s = std::to_string(rng());
    Child c;
    switch (rng() % 4) {
      case 0:
        c = spawn_child({"sub", wide, "rel", "4", std::to_string(rng() % 5), s, "1"}, "sub-rel");
        break;
      case 1:
        c = spawn_child({"sub", wide, "be", "16", "16", s, "1"}, "sub-hold16");
        break;
      case 2:
        c = spawn_child({"sub", wide, "be", "3", std::to_string(rng() % 5), s, "1"}, "sub-be");
        break;
      default:
        c = spawn_child({"busytake", wide}, "mid-take");
        break;
    }
    ASSERT_GT(c.pid, 0) << "spawn failed";
    // Attached: every child role prints "R" once its port exists (then its slot is its own).
    ASSERT_NE(read_until(c, 'R', 30s).find('R'), std::string::npos) << c.kind << " never attached";
    ASSERT_EQ(topic::slot_state(t->subscriber_slot(slot)->state.load()), topic::SlotState::Active);
    ASSERT_EQ(topic::slot_pid(t->subscriber_slot(slot)->state.load()),
              static_cast<std::uint32_t>(c.pid))
        << c.kind << " child did not attach to slot " << slot;
    c.deadline = Clock::now() + std::chrono::microseconds(
                                    rng() % 4 == 0 ? rng() % 10'000 : 10'000 + rng() % 190'000);
    children.push_back({std::move(c), slot});
  };

  const auto start = Clock::now();
  std::uint64_t seq_rel = 0, seq_be = 0;
  while (f.total_kills < target_kills && Clock::now() - start < 45s) {
    if (!publish(*p_rel, 24 + rng() % 232, seq_rel++, 1)) ++f.reliable_timeouts;
    publish(*p_be, 24 + rng() % 232, seq_be++, 2);
    f.published += 2;
    for (auto& s : fillers) {
      if (s.port) s.drain(rng);
    }
    const auto now = Clock::now();
    for (auto& w : children) {
      if (w.c.pid < 0 || now < w.c.deadline) continue;
      if (w.c.kind == "mid-take") {
        ::kill(w.c.pid, SIGSTOP);
        int st = 0;
        ::waitpid(w.c.pid, &st, WUNTRACED);
      }
      const int holding_before = f.killed_holding;
      inspect_loans(*t, w.c.pid, f);
      kill_and_reap(w.c, f);
      ++kills_per_word[ref_word_index(w.slot)];
      holding_per_word[ref_word_index(w.slot)] += f.killed_holding - holding_before;
      w.c.pid = -1;
      f.reclaimed += t->reclaim_dead();
      fill_slot(w.slot);  // the only free slot: the refill must land exactly there
    }
    std::erase_if(children, [](const WideChild& w) { return w.c.pid < 0; });
    while (children.size() < 4) {
      std::uint32_t slot =
          rng() % 2 == 0 ? edges[rng() % edges.size()] : static_cast<std::uint32_t>(rng() % 256);
      if (!fillers[slot].port) continue;  // a child holds it
      spawn_into(slot);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1500));
  }
  for (auto& w : children) {
    inspect_loans(*t, w.c.pid, f);
    kill_and_reap(w.c, f);
    ++kills_per_word[ref_word_index(w.slot)];
  }
  children.clear();
  const double loop_s = std::chrono::duration<double>(Clock::now() - start).count();

  f.reclaimed += t->reclaim_dead();
  for (auto& s : fillers) {
    if (!s.port) continue;
    s.drain(rng);
    s.held.clear();  // re-checked as they go
    fillers_received += s.received;
    fillers_content_errors += s.content_errors;
  }
  std::uint64_t leaked = 0, chunks = 0;
  for (auto* p : {&p_rel, &p_be}) {
    (*p)->collect_returns();
    const auto& pool = (*p)->pool();
    chunks += pool.chunk_count();
    const std::uint64_t accounted = pool.free_count() + (*p)->ring_occupancy();
    EXPECT_EQ(accounted, pool.chunk_count()) << "publisher slot " << (*p)->slot();
    leaked += pool.chunk_count() - std::min(accounted, pool.chunk_count());
  }
  // The topic, two publisher segments and their data segments; nothing of the dead.
  std::size_t expected_segments = 1;
  for (auto* p : {&p_rel, &p_be}) expected_segments += 1 + (*p)->pool().segment_count();
  EXPECT_EQ(ScopedNamespace::list().size(), expected_segments);
  std::uint32_t live_subs = 0;
  for (auto& s : fillers) live_subs += s.port != nullptr;
  EXPECT_EQ(t->subscriber_count(), live_subs);

  std::printf("[crash-loop-256] kills: %d in %.1f s (", f.total_kills, loop_s);
  for (auto& [k, n] : f.kills) std::printf("%s %d, ", k.c_str(), n);
  std::printf(") per reference word (refs, refs_ext[0..3]):");
  for (std::size_t i = 0; i < kills_per_word.size(); ++i) {
    std::printf(" %d (%d holding)", kills_per_word[i], holding_per_word[i]);
  }
  std::printf(
      "\n[crash-loop-256] killed holding pinned loans: %d; inside take/release window: %d; "
      "messages: %llu published, %llu taken by the in-process subscribers; %llu reliable "
      "timeouts; slots reclaimed: %u; leaked chunks: %llu of %llu; content errors: %llu; child "
      "failures: %d\n",
      f.killed_holding, f.mid_take_window, static_cast<unsigned long long>(f.published),
      static_cast<unsigned long long>(fillers_received),
      static_cast<unsigned long long>(f.reliable_timeouts), f.reclaimed,
      static_cast<unsigned long long>(leaked), static_cast<unsigned long long>(chunks),
      static_cast<unsigned long long>(fillers_content_errors), f.child_failures);
  EXPECT_GE(f.total_kills, target_kills * 3 / 4);
  for (std::size_t i = 0; i < kills_per_word.size(); ++i) {
    EXPECT_GT(kills_per_word[i], 0) << "no child was killed in reference word " << i;
  }
  EXPECT_GT(f.killed_holding, 0);
  EXPECT_EQ(f.child_failures, 0);
  EXPECT_EQ(fillers_content_errors, 0u);
  EXPECT_EQ(leaked, 0u);
}

}  // namespace
}  // namespace baton::stress
