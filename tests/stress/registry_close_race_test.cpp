// Register / unregister race on one graph registry (protocol in registry_layout.hpp): several
// processes each repeatedly register a participant (through Context::graph_participant, or the
// Registry directly with a pause between open and claim) and a node, and drop everything again,
// so the last one out removes the registry while others are registering. Invariants checked on
// every round: the registry linked under the name is the one holding this process's participant,
// and a snapshot of it shows this process's node — never a removed registry, so two live
// participants are never in different registries. Afterwards no registry is left. Reopen counts go
// to stdout.
//
// BATON_STRESS_ROUNDS overrides the registrations per process (default 2000).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "baton/api/context.hpp"
#include "baton/shm/clock.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

constexpr int PROCESSES = 4;
const char* const REGISTRY = "churn";

// The participant word entry `index` has in the registry currently linked under the name, or 0.
std::uint64_t linked_participant_word(std::uint32_t index) {
  auto seg = shm::Segment::open(shm::segment_name("g", REGISTRY), shm::SegmentKind::Graph, 50);
  if (!seg || index >= graph::MAX_PARTICIPANTS) return 0;
  bool incompatible = false;
  if (!graph::validate_registry_segment(*seg, &incompatible).empty()) return 0;
  return (seg->at<graph::ParticipantEntry>(graph::RegistrySegmentLayout::participants_offset) +
          index)
      ->state.load(std::memory_order_acquire);
}

// Registers through Context::graph_participant, which reopens a registry closed under it.
std::shared_ptr<graph::ParticipantHandle> register_via_context(const std::shared_ptr<Context>& ctx,
                                                               int* reopened) {
  auto first = ctx->graph();
  auto me = ctx->graph_participant();
  if (!me) std::fprintf(stderr, "register: %s\n", ctx->graph_participant_error().c_str());
  if (me && first && *first != me->registry()) ++*reopened;
  return me;
}

// Registers through the Registry itself, pausing between open and claim so that a closer often
// runs in between: the claimer's half of the protocol must refuse the claim then (Closed).
std::shared_ptr<graph::ParticipantHandle> register_directly(int round, int* reopened) {
  graph::RegistryOptions options;
  options.name = REGISTRY;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto reg = graph::Registry::open_or_create(options);
    if (!reg) {
      std::fprintf(stderr, "open: %s\n", reg.error().detail.c_str());
      return nullptr;
    }
    for (int k = 0; k < (round % 16) * 200; ++k) shm::cpu_relax();
    auto me = (*reg)->register_participant();
    if (me) return *me;
    if (me.error().code != graph::RegisterError::Closed) {
      std::fprintf(stderr, "register: %s\n", me.error().detail.c_str());
      return nullptr;
    }
    ++*reopened;
  }
  std::fprintf(stderr, "register: the registry was closed under 100 attempts\n");
  return nullptr;
}

// One child: `rounds` registrations, alternating both ways. Exit code: 0, 1 = invariant broken,
// 2 = registering failed.
int churn(int rounds, int id) {
  ContextOptions options;
  options.janitor_period = std::chrono::milliseconds(0);
  options.graph_registry = REGISTRY;
  int reopened = 0;
  const std::string node_name = "churn" + std::to_string(id);
  for (int i = 0; i < rounds; ++i) {
    auto ctx = Context::create(options);
    auto me =
        (i + id) % 2 == 0 ? register_via_context(ctx, &reopened) : register_directly(i, &reopened);
    if (!me) return 2;
    auto node = me->registry()->register_node(me, node_name, "/");
    if (!node) {
      std::fprintf(stderr, "round %d: node: %s\n", i, node.error().detail.c_str());
      return 2;
    }
    const std::uint64_t mine =
        graph::entry_word(graph::EntryState::Active, me->pid(), me->generation());
    if (linked_participant_word(me->index()) != mine) {
      std::fprintf(stderr, "round %d: our participant is not in the linked registry\n", i);
      return 1;
    }
    const auto nodes = me->registry()->snapshot(false).nodes;
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const graph::NodeInfo& n) { return n.name == node_name; })) {
      std::fprintf(stderr, "round %d: our node is missing from our registry\n", i);
      return 1;
    }
  }
  std::printf("process %d: %d registrations, %d reopened a registry closed under them\n", id,
              rounds, reopened);
  std::fflush(stdout);
  return 0;
}

TEST(RegistryCloseRace, registering_while_the_last_participant_leaves_never_splits_the_graph) {
  ScopedNamespace ns("registry-race");
  const char* env = std::getenv("BATON_STRESS_ROUNDS");
  const int rounds = env != nullptr ? std::atoi(env) : 2000;
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  pid_t children[PROCESSES];
  for (int c = 0; c < PROCESSES; ++c) {
    children[c] = ::fork();
    if (children[c] == 0) {
      ::close(start[1]);
      char go = 0;
      (void)!::read(start[0], &go, 1);  // all start together, so their registrations overlap
      std::_Exit(churn(rounds, c));
    }
  }
  ::close(start[0]);
  ::close(start[1]);  // EOF releases every child at once
  for (int c = 0; c < PROCESSES; ++c) {
    int status = 0;
    ::waitpid(children[c], &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << c << " died";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << c << " (1: invariant, 2: register failed)";
  }
  EXPECT_FALSE(
      shm::Segment::open(shm::segment_name("g", REGISTRY), shm::SegmentKind::Graph, 0).has_value())
      << "the last participant left, the registry stayed";
}

}  // namespace
}  // namespace baton::stress
