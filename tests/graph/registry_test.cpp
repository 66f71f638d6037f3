#include "baton/graph/registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "baton/shm/naming.hpp"
#include "test_util.hpp"

namespace baton::graph {
namespace {

const topic::TypeInfo POSE = topic::TypeInfo::from_name("geometry_msgs/msg/Pose", "56");
const topic::TypeInfo STRING = topic::TypeInfo::from_name("std_msgs/msg/String", "8");
const topic::TypeInfo ADD = topic::TypeInfo::from_name("example/srv/AddTwoInts", "16");
const EndpointQos DEFAULT_QOS{10, topic::Reliability::Reliable, topic::Durability::Volatile};

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options.name = testing::unique_name("graph");
    options.ready_timeout_ms = 50;
  }
  void TearDown() override { shm::Segment::unlink(shm::segment_name("g", options.name)); }

  std::shared_ptr<Registry> open() {
    auto r = Registry::open_or_create(options);
    EXPECT_TRUE(r) << (r ? "" : r.error().detail);
    return r ? *r : nullptr;
  }

  RegistryOptions options;
};

bool has_node(const std::vector<NodeInfo>& nodes, const std::string& fq) {
  return std::any_of(nodes.begin(), nodes.end(),
                     [&](const NodeInfo& n) { return n.fully_qualified_name == fq; });
}

const TopicInfo* find_topic(const std::vector<TopicInfo>& topics, const std::string& name) {
  for (const auto& t : topics) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// A participant left by a process that exited without deregistering (as a crash leaves it).
void plant_dead_participant(const RegistryOptions& options) {
  const pid_t child = ::fork();
  if (child == 0) {
    auto r = Registry::open_or_create(options);
    if (r) {
      auto me = (*r)->register_participant();
      if (me) std::_Exit(0);  // no destructor: the entry stays registered to a dead pid
    }
    std::_Exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// The janitors of the participants take turns (Registry::reclaim_dead_if_due): a periodic pass
// right after another participant's is skipped; an explicit reclaim_dead() never is.
TEST_F(RegistryTest, a_periodic_pass_right_after_another_janitors_is_skipped) {
  auto mine = open();
  auto theirs = open();  // another process's janitor would map the same registry
  ASSERT_TRUE(mine && theirs);
  auto me = mine->register_participant();  // keeps the registry open
  ASSERT_TRUE(me);
  plant_dead_participant(options);
  EXPECT_EQ(theirs->reclaim_dead_if_due(std::chrono::hours(1)), 1u);
  plant_dead_participant(options);
  EXPECT_EQ(mine->reclaim_dead_if_due(std::chrono::hours(1)), 0u);  // skipped: left in place
  EXPECT_EQ(mine->reclaim_dead(), 1u);
}

TEST_F(RegistryTest, register_node_with_bad_names_returns_invalid_name) {
  auto sut = open();
  auto me = sut->register_participant();
  ASSERT_TRUE(me) << me.error().detail;
  auto empty = sut->register_node(*me, "", "/");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, RegisterError::InvalidName);
  auto too_long = sut->register_node(*me, std::string(NODE_NAME_CAPACITY + 1, 'n'), "/");
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error().code, RegisterError::InvalidName);
  EXPECT_NE(too_long.error().detail.find("at most"), std::string::npos) << too_long.error().detail;
  auto nul = sut->register_node(*me, std::string("a\0b", 3), "/");
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error().code, RegisterError::InvalidName);
  auto node = sut->register_node(*me, "ok", "/");
  ASSERT_TRUE(node);
  auto long_topic =
      sut->register_endpoint(EndpointKind::Publisher, *node,
                             std::string(ENDPOINT_NAME_CAPACITY + 1, 't'), POSE, DEFAULT_QOS);
  ASSERT_FALSE(long_topic);
  EXPECT_EQ(long_topic.error().code, RegisterError::InvalidName);
  auto null_node = sut->register_endpoint(EndpointKind::Publisher, nullptr, "/t", POSE, {});
  ASSERT_FALSE(null_node);
  EXPECT_EQ(null_node.error().code, RegisterError::InvalidHandle);
}

TEST_F(RegistryTest, layout_version_is_pinned) {
  // Changing the registry layout must be a deliberate, reviewed change.
  EXPECT_EQ(REGISTRY_LAYOUT_VERSION, 5u);
  EXPECT_EQ(REGISTRY_MAGIC, 0x3147455254534752ull);
  EXPECT_EQ(RegistrySegmentLayout::total_size, 2441472u);
  EXPECT_EQ(to_string(RegisterError::TableFull), "graph registry table full");
  EXPECT_EQ(to_string(EndpointKind::Subscription), "subscription");
}

TEST_F(RegistryTest, registered_nodes_and_topics_are_listed_with_types_and_counts) {
  auto sut = open();
  auto me = sut->register_participant();
  ASSERT_TRUE(me);
  auto talker = sut->register_node(*me, "talker", "/robot");
  auto listener = sut->register_node(*me, "listener", "");
  ASSERT_TRUE(talker && listener);
  auto p1 = sut->register_endpoint(
      EndpointKind::Publisher, *talker, "/robot/pose", POSE,
      EndpointQos{5, topic::Reliability::BestEffort, topic::Durability::TransientLocal});
  auto s1 = sut->register_endpoint(EndpointKind::Subscription, *listener, "/robot/pose", POSE,
                                   DEFAULT_QOS);
  auto s2 =
      sut->register_endpoint(EndpointKind::Subscription, *talker, "/robot/pose", POSE, DEFAULT_QOS);
  auto p2 =
      sut->register_endpoint(EndpointKind::Publisher, *listener, "/chatter", STRING, DEFAULT_QOS);
  ASSERT_TRUE(p1 && s1 && s2 && p2);

  auto nodes = sut->nodes();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_TRUE(has_node(nodes, "/robot/talker"));
  EXPECT_TRUE(has_node(nodes, "/listener"));
  for (const auto& n : nodes) EXPECT_EQ(n.pid, static_cast<std::uint32_t>(::getpid()));

  auto topics = sut->topics();
  ASSERT_EQ(topics.size(), 2u);
  const TopicInfo* pose = find_topic(topics, "/robot/pose");
  ASSERT_NE(pose, nullptr);
  EXPECT_EQ(pose->types, std::vector<std::string>{"geometry_msgs/msg/Pose"});
  EXPECT_EQ(pose->publisher_count, 1u);
  EXPECT_EQ(pose->subscription_count, 2u);
  const TopicInfo* chatter = find_topic(topics, "/chatter");
  ASSERT_NE(chatter, nullptr);
  EXPECT_EQ(chatter->publisher_count, 1u);
  EXPECT_EQ(chatter->subscription_count, 0u);

  auto pubs = sut->endpoints_of("/robot/pose");
  ASSERT_EQ(pubs.size(), 3u);
  auto pub = std::find_if(pubs.begin(), pubs.end(),
                          [](const EndpointInfo& e) { return e.kind == EndpointKind::Publisher; });
  ASSERT_NE(pub, pubs.end());
  EXPECT_EQ(pub->type, POSE);  // name and hash round-trip
  EXPECT_EQ(pub->qos,
            (EndpointQos{5, topic::Reliability::BestEffort, topic::Durability::TransientLocal}));
  EXPECT_EQ(pub->node_fully_qualified_name, "/robot/talker");
  EXPECT_TRUE(sut->snapshot().issues.empty());
}

TEST_F(RegistryTest, node_info_lists_each_endpoint_kind) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "calc", "/math");
  auto other = sut->register_node(*me, "other", "/math");
  ASSERT_TRUE(node && other);
  auto pub = sut->register_endpoint(EndpointKind::Publisher, *node, "/out", STRING, DEFAULT_QOS);
  auto sub = sut->register_endpoint(EndpointKind::Subscription, *node, "/in", STRING, DEFAULT_QOS);
  auto srv = sut->register_endpoint(EndpointKind::Service, *node, "/add", ADD, DEFAULT_QOS);
  auto cli = sut->register_endpoint(EndpointKind::Client, *other, "/add", ADD, DEFAULT_QOS);
  ASSERT_TRUE(pub && sub && srv && cli);

  auto sut_info = sut->node_info("/math/calc");
  ASSERT_TRUE(sut_info);
  ASSERT_EQ(sut_info->publishers.size(), 1u);
  EXPECT_EQ(sut_info->publishers[0].name, "/out");
  ASSERT_EQ(sut_info->subscriptions.size(), 1u);
  EXPECT_EQ(sut_info->subscriptions[0].name, "/in");
  ASSERT_EQ(sut_info->services.size(), 1u);
  EXPECT_EQ(sut_info->services[0].type.name, "example/srv/AddTwoInts");
  EXPECT_TRUE(sut_info->clients.empty());
  EXPECT_FALSE(sut->node_info("/math/nobody"));

  auto services = sut->services();
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0].server_count, 1u);
  EXPECT_EQ(services[0].client_count, 1u);
  EXPECT_EQ(sut->topics().size(), 2u);  // services are not topics
}

TEST_F(RegistryTest, destroying_handles_unregisters_and_bumps_epoch) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "n", "/");
  ASSERT_TRUE(node);
  auto pub = sut->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, DEFAULT_QOS);
  ASSERT_TRUE(pub);
  const std::uint64_t before = sut->epoch();
  EXPECT_FALSE(sut->snapshot_if_changed(before));  // nothing moved
  pub->reset();
  EXPECT_GT(sut->epoch(), before);
  EXPECT_TRUE(sut->topics().empty());
  EXPECT_EQ(sut->nodes().size(), 1u);
  node->reset();
  EXPECT_TRUE(sut->nodes().empty());
  me->reset();
  EXPECT_TRUE(sut->snapshot().participants.empty());
}

TEST_F(RegistryTest, endpoint_handle_keeps_its_node_registered) {
  auto sut = open();
  std::shared_ptr<EndpointHandle> pub;
  {
    auto me = sut->register_participant();
    auto node = sut->register_node(*me, "n", "/");
    auto p = sut->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, DEFAULT_QOS);
    ASSERT_TRUE(p);
    pub = *p;
  }
  EXPECT_EQ(sut->nodes().size(), 1u);
  EXPECT_EQ(sut->topics().size(), 1u);
  pub.reset();
  EXPECT_TRUE(sut->nodes().empty());
}

TEST_F(RegistryTest, reclaim_never_removes_entries_of_live_participants) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "alive", "/");
  auto pub = sut->register_endpoint(EndpointKind::Publisher, *node, "/t", STRING, DEFAULT_QOS);
  ASSERT_TRUE(pub);
  EXPECT_EQ(sut->reclaim_dead(), 0u);
  EXPECT_EQ(sut->nodes().size(), 1u);
  EXPECT_EQ(sut->topics().size(), 1u);
}

// The child registers, reports, and waits for the parent; the parent then kills it.
TEST_F(RegistryTest, killed_child_disappears_after_reclaim_pass) {
  auto sut = open();
  auto me = sut->register_participant();
  auto mine = sut->register_node(*me, "parent", "/");
  ASSERT_TRUE(mine);
  int ready[2], hold[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(hold), 0);
  pid_t child = fork();
  if (child == 0) {
    auto reg = Registry::open_or_create(options);
    if (!reg) _exit(2);
    auto p = (*reg)->register_participant();
    if (!p) _exit(3);
    auto n = (*reg)->register_node(*p, "child", "/kids");
    if (!n) _exit(4);
    auto e =
        (*reg)->register_endpoint(EndpointKind::Publisher, *n, "/from_child", STRING, DEFAULT_QOS);
    if (!e) _exit(5);
    // The child also sees the parent's node.
    char ok = has_node((*reg)->nodes(), "/parent") ? 'y' : 'n';
    (void)!write(ready[1], &ok, 1);
    char c;
    (void)!read(hold[0], &c, 1);  // blocks until killed
    _exit(0);
  }
  close(ready[1]);
  close(hold[0]);
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1) << "child failed to register";
  EXPECT_EQ(ok, 'y') << "child did not see the parent's node";

  auto nodes = sut->nodes();
  ASSERT_TRUE(has_node(nodes, "/kids/child"));
  for (const auto& n : nodes) {
    if (n.fully_qualified_name == "/kids/child") {
      EXPECT_EQ(n.pid, static_cast<std::uint32_t>(child));
    }
  }
  ASSERT_NE(find_topic(sut->topics(), "/from_child"), nullptr);

  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  close(ready[0]);
  close(hold[1]);

  // participant + node + endpoint
  EXPECT_EQ(sut->reclaim_dead(), 3u);
  auto after = sut->snapshot(false);
  EXPECT_FALSE(has_node(after.nodes, "/kids/child"));
  EXPECT_TRUE(has_node(after.nodes, "/parent"));
  EXPECT_EQ(find_topic(after.topics(), "/from_child"), nullptr);
  EXPECT_EQ(after.participants.size(), 1u);
}

TEST_F(RegistryTest, inherited_handle_destroyed_in_child_leaves_parent_registered) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "parent", "/");
  ASSERT_TRUE(node);
  pid_t child = fork();
  if (child == 0) {
    node->reset();  // runs ~NodeHandle and ~ParticipantHandle in the child
    me->reset();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(has_node(sut->nodes(), "/parent"));
}

TEST_F(RegistryTest, corrupted_entries_are_skipped_and_reported) {
  auto sut = open();
  auto me = sut->register_participant();
  auto good = sut->register_node(*me, "good", "/");
  auto bad_len = sut->register_node(*me, "bad_len", "/");
  auto bad_idx = sut->register_node(*me, "bad_idx", "/");
  ASSERT_TRUE(good && bad_len && bad_idx);
  auto ok_pub = sut->register_endpoint(EndpointKind::Publisher, *good, "/ok", STRING, DEFAULT_QOS);
  auto e_kind = sut->register_endpoint(EndpointKind::Publisher, *good, "/k", STRING, DEFAULT_QOS);
  auto e_node = sut->register_endpoint(EndpointKind::Publisher, *good, "/n", STRING, DEFAULT_QOS);
  auto e_len = sut->register_endpoint(EndpointKind::Publisher, *good, "/l", STRING, DEFAULT_QOS);
  auto e_state = sut->register_endpoint(EndpointKind::Publisher, *good, "/s", STRING, DEFAULT_QOS);
  ASSERT_TRUE(ok_pub && e_kind && e_node && e_len && e_state);

  // A hostile or buggy peer writes garbage through its own mapping.
  const shm::Segment& seg = sut->segment();
  auto* nodes = seg.at<NodeEntry>(RegistrySegmentLayout::nodes_offset);
  auto* eps = seg.at<EndpointEntry>(RegistrySegmentLayout::endpoints_offset);
  nodes[(*bad_len)->index()].name_len.store(60000);
  nodes[(*bad_idx)->index()].participant.store(0xFFFFFFF0u);
  eps[(*e_kind)->index()].kind.store(200);
  eps[(*e_node)->index()].node.store(1u << 30);
  eps[(*e_len)->index()].type_name_len.store(65535);
  eps[(*e_state)->index()].state.store(0xDEADBEEF000000FFull);

  EXPECT_EQ(sut->reclaim_dead(), 0u);  // corrupt entries of a live process are not removed
  auto snap = sut->snapshot();
  ASSERT_EQ(snap.nodes.size(), 1u);
  EXPECT_EQ(snap.nodes[0].fully_qualified_name, "/good");
  ASSERT_EQ(snap.endpoints.size(), 1u);
  EXPECT_EQ(snap.endpoints[0].name, "/ok");
  ASSERT_EQ(snap.issues.size(), 6u);
  auto mentions = [&](Table t, const std::string& what) {
    return std::any_of(snap.issues.begin(), snap.issues.end(), [&](const GraphIssue& i) {
      return i.table == t && i.what.find(what) != std::string::npos;
    });
  };
  EXPECT_TRUE(mentions(Table::Nodes, "length 60000"));
  EXPECT_TRUE(mentions(Table::Nodes, "participant index"));
  EXPECT_TRUE(mentions(Table::Endpoints, "kind 200"));
  EXPECT_TRUE(mentions(Table::Endpoints, "node index"));
  EXPECT_TRUE(mentions(Table::Endpoints, "65535"));
  EXPECT_TRUE(mentions(Table::Endpoints, "state byte 0xff"));
  EXPECT_EQ(sut->topics().size(), 1u);
  EXPECT_TRUE(sut->node_info("/good"));
}

TEST_F(RegistryTest, foreign_segment_with_bad_magic_is_refused) {
  const std::string seg_name = shm::segment_name("g", options.name);
  int fd = shm_open(seg_name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  char junk[64];
  std::memset(junk, 0x5A, sizeof(junk));
  ASSERT_EQ(write(fd, junk, sizeof(junk)), 64);
  close(fd);
  auto sut = Registry::open_or_create(options);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, RegistryOpenError::Incompatible);
  EXPECT_NE(sut.error().detail.find("magic"), std::string::npos) << sut.error().detail;
  EXPECT_NE(sut.error().detail.find(seg_name), std::string::npos) << sut.error().detail;
}

TEST_F(RegistryTest, registry_of_other_layout_version_is_refused) {
  auto first = open();
  ASSERT_TRUE(first);
  const_cast<RegistryHeader*>(
      first->segment().at<RegistryHeader>(RegistrySegmentLayout::header_offset))
      ->layout_version = 99;
  auto sut = Registry::open_or_create(options);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, RegistryOpenError::Incompatible);
  EXPECT_NE(sut.error().detail.find("99"), std::string::npos) << sut.error().detail;
}

TEST_F(RegistryTest, registry_with_wrong_kind_is_refused) {
  auto seg =
      shm::Segment::create(shm::segment_name("g", options.name), 4096, shm::SegmentKind::Topic);
  ASSERT_TRUE(seg);
  seg->mark_ready();
  auto sut = Registry::open_or_create(options);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, RegistryOpenError::Incompatible);
}

TEST_F(RegistryTest, two_opens_share_one_registry) {
  auto a = open();
  auto b = open();
  auto me = a->register_participant();
  auto node = a->register_node(*me, "shared", "/");
  ASSERT_TRUE(node);
  EXPECT_TRUE(has_node(b->nodes(), "/shared"));
}

TEST_F(RegistryTest, full_tables_return_table_full) {
  auto sut = open();
  std::vector<std::shared_ptr<ParticipantHandle>> participants;
  for (std::uint32_t i = 0; i < MAX_PARTICIPANTS; ++i) {
    auto p = sut->register_participant();
    ASSERT_TRUE(p) << i;
    participants.push_back(*p);
  }
  auto extra = sut->register_participant();
  ASSERT_FALSE(extra);
  EXPECT_EQ(extra.error().code, RegisterError::TableFull);
  EXPECT_NE(extra.error().detail.find("256"), std::string::npos) << extra.error().detail;
  participants.resize(1);

  std::vector<std::shared_ptr<NodeHandle>> nodes;
  for (std::uint32_t i = 0; i < MAX_NODES; ++i) {
    auto n = sut->register_node(participants[0], "n" + std::to_string(i), "/");
    ASSERT_TRUE(n) << i;
    nodes.push_back(*n);
  }
  auto extra_node = sut->register_node(participants[0], "one_too_many", "/");
  ASSERT_FALSE(extra_node);
  EXPECT_EQ(extra_node.error().code, RegisterError::TableFull);

  std::vector<std::shared_ptr<EndpointHandle>> endpoints;
  for (std::uint32_t i = 0; i < MAX_ENDPOINTS; ++i) {
    auto e = sut->register_endpoint(EndpointKind::Subscription, nodes[i % MAX_NODES], "/t", STRING,
                                    DEFAULT_QOS);
    ASSERT_TRUE(e) << i;
    endpoints.push_back(*e);
  }
  auto extra_ep =
      sut->register_endpoint(EndpointKind::Publisher, nodes[0], "/t", STRING, DEFAULT_QOS);
  ASSERT_FALSE(extra_ep);
  EXPECT_EQ(extra_ep.error().code, RegisterError::TableFull);
  auto topics = sut->topics();
  ASSERT_EQ(topics.size(), 1u);
  EXPECT_EQ(topics[0].subscription_count, MAX_ENDPOINTS);

  endpoints.pop_back();  // one free entry is enough
  EXPECT_TRUE(sut->register_endpoint(EndpointKind::Publisher, nodes[0], "/t", STRING, DEFAULT_QOS));
}

TEST_F(RegistryTest, concurrent_registration_and_snapshots_never_report_issues) {
  auto sut = open();
  auto me = sut->register_participant();
  ASSERT_TRUE(me);
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        auto node = sut->register_node(*me, "w" + std::to_string(t), "/ns" + std::to_string(i));
        if (!node) {
          ++failures;
          continue;
        }
        auto e = sut->register_endpoint(EndpointKind::Publisher, *node,
                                        "/topic_" + std::to_string(t), STRING, DEFAULT_QOS);
        if (!e) ++failures;
      }
    });
  }
  std::thread reader([&] {
    while (!stop.load()) {
      auto snap = sut->snapshot();
      if (!snap.issues.empty()) ++failures;
      for (const auto& n : snap.nodes) {
        if (n.name.size() != 2 || n.namespace_.rfind("/ns", 0) != 0) ++failures;
      }
    }
  });
  for (auto& w : writers) w.join();
  stop.store(true);
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(sut->nodes().empty());
  EXPECT_TRUE(sut->topics().empty());
}

// Pages of the registry's file that are allocated in tmpfs (resident), counted with mincore on
// the segment's mapping: a page becomes resident once any process reads or writes it.
std::size_t resident_pages(const shm::Segment& seg) {
  const long page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec((seg.size() + page - 1) / page);
  EXPECT_EQ(mincore(seg.base(), seg.size(), vec.data()), 0) << std::strerror(errno);
  return static_cast<std::size_t>(
      std::count_if(vec.begin(), vec.end(), [](unsigned char v) { return (v & 1) != 0; }));
}

TEST_F(RegistryTest, a_registry_with_few_entries_keeps_the_rest_of_its_tables_untouched) {
  auto sut = open();
  auto me = sut->register_participant();
  ASSERT_TRUE(me) << me.error().detail;
  auto node = sut->register_node(*me, "n", "/");
  ASSERT_TRUE(node);
  std::vector<std::shared_ptr<EndpointHandle>> eps;
  for (int i = 0; i < 10; ++i) {
    auto e = sut->register_endpoint(EndpointKind::Subscription, *node, "/t", STRING, DEFAULT_QOS);
    ASSERT_TRUE(e) << e.error().detail;
    eps.push_back(std::move(*e));
  }
  auto snap = sut->snapshot();
  EXPECT_EQ(snap.endpoints.size(), 10u);
  sut->reclaim_dead();
  // Header + participant table (5 pages) + a node row + ten endpoint rows: a few pages of the
  // 597 of full tables (every row was read by each snapshot before the high-water marks).
  const std::size_t all = (sut->segment().size() + 4095) / 4096;
  const std::size_t resident = resident_pages(sut->segment());
  EXPECT_GE(resident, 2u);  // the header and the rows in use are (mincore sees tmpfs pages)
  EXPECT_LE(resident, 16u) << "of " << all;
  const auto* h = sut->segment().at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  EXPECT_EQ(h->nodes_used.load(), 1u);
  EXPECT_EQ(h->endpoints_used.load(), 10u);
}

TEST_F(RegistryTest, a_freed_row_below_the_mark_is_claimed_before_the_mark_moves) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "n", "/");
  ASSERT_TRUE(me && node);
  auto a = sut->register_endpoint(EndpointKind::Publisher, *node, "/a", STRING, DEFAULT_QOS);
  auto b = sut->register_endpoint(EndpointKind::Publisher, *node, "/b", STRING, DEFAULT_QOS);
  ASSERT_TRUE(a && b);
  const std::uint32_t freed = (*a)->index();
  (*a).reset();
  auto c = sut->register_endpoint(EndpointKind::Publisher, *node, "/c", STRING, DEFAULT_QOS);
  ASSERT_TRUE(c);
  EXPECT_EQ((*c)->index(), freed);
  const auto* h = sut->segment().at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  EXPECT_EQ(h->endpoints_used.load(), 2u);
}

TEST_F(RegistryTest, corrupt_high_water_marks_are_clamped_and_never_reuse_a_row_in_use) {
  auto sut = open();
  auto me = sut->register_participant();
  auto node = sut->register_node(*me, "n", "/");
  ASSERT_TRUE(me && node);
  std::vector<std::shared_ptr<EndpointHandle>> eps;
  for (int i = 0; i < 5; ++i) {
    auto e = sut->register_endpoint(EndpointKind::Publisher, *node, "/t" + std::to_string(i),
                                    STRING, DEFAULT_QOS);
    ASSERT_TRUE(e);
    eps.push_back(std::move(*e));
  }
  auto* h = sut->segment().at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  // Too large: read as the whole table, nothing past the real rows is reported.
  h->nodes_used.store(0xFFFFFFFFu);
  auto snap = sut->snapshot();
  EXPECT_EQ(snap.nodes.size(), 1u);
  EXPECT_EQ(snap.endpoints.size(), 5u);
  EXPECT_TRUE(snap.issues.empty());
  // Too small: the next claim walks the mark past the five rows in use instead of taking one.
  h->endpoints_used.store(0);
  auto next = sut->register_endpoint(EndpointKind::Publisher, *node, "/next", STRING, DEFAULT_QOS);
  ASSERT_TRUE(next) << next.error().detail;
  for (const auto& e : eps) EXPECT_NE((*next)->index(), e->index());
  EXPECT_EQ(h->endpoints_used.load(), 6u);
  EXPECT_EQ(sut->snapshot().endpoints.size(), 6u);
}

}  // namespace
}  // namespace baton::graph
