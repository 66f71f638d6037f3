#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "baton/baton.hpp"
#include "baton/shm/naming.hpp"
#include "test_util.hpp"

struct GraphPose {
  double x, y;
};
BATON_MESSAGE(GraphPose, "test/msg/GraphPose");

namespace baton {
namespace {

class GraphApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options.graph_registry = testing::unique_name("graph_api");
    options.janitor_period = std::chrono::milliseconds(0);  // reclaim explicitly
    ctx = Context::create(options);
  }
  void TearDown() override { shm::Segment::unlink(shm::segment_name("g", options.graph_registry)); }
  std::shared_ptr<graph::Registry> registry() {
    auto r = ctx->graph();
    EXPECT_TRUE(r) << (r ? "" : r.error().detail);
    return r ? *r : nullptr;
  }

  ContextOptions options;
  std::shared_ptr<Context> ctx;
  std::string topic = testing::unique_name("graph_api_topic");
};

bool has_node(const std::vector<graph::NodeInfo>& nodes, const std::string& fq) {
  return std::any_of(nodes.begin(), nodes.end(),
                     [&](const graph::NodeInfo& n) { return n.fully_qualified_name == fq; });
}

TEST_F(GraphApiTest, register_graph_endpoint_with_invalid_name_returns_invalid_name) {
  Node node(ctx, "n");
  auto sut = node.register_graph_endpoint(graph::EndpointKind::Service, "bad name!",
                                          topic::TypeInfo::from_name("x/srv/Y"), QoS());
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, graph::RegisterError::InvalidName);
}

TEST_F(GraphApiTest, node_publisher_and_subscription_appear_in_graph) {
  Node node(ctx, "talker", "/demo");
  auto pub = node.publisher<GraphPose>("pose").qos(QoS(3).best_effort()).create();
  auto sub = node.subscription<GraphPose>("pose").create();
  ASSERT_TRUE(pub && sub);

  auto sut = registry();
  ASSERT_TRUE(sut);
  EXPECT_TRUE(has_node(sut->nodes(), "/demo/talker"));
  auto topics = sut->topics();
  ASSERT_EQ(topics.size(), 1u);
  EXPECT_EQ(topics[0].name, "/demo/pose");
  EXPECT_EQ(topics[0].types, std::vector<std::string>{"test/msg/GraphPose"});
  EXPECT_EQ(topics[0].publisher_count, 1u);
  EXPECT_EQ(topics[0].subscription_count, 1u);

  auto info = sut->node_info("/demo/talker");
  ASSERT_TRUE(info);
  ASSERT_EQ(info->publishers.size(), 1u);
  EXPECT_EQ(info->publishers[0].qos.depth, 3u);
  EXPECT_EQ(info->publishers[0].qos.reliability, topic::Reliability::BestEffort);
  EXPECT_EQ(info->subscriptions.size(), 1u);
}

TEST_F(GraphApiTest, destroyed_endpoints_and_nodes_leave_the_graph) {
  auto node = std::make_unique<Node>(ctx, "short_lived");
  auto pub = node->publisher<GraphPose>(topic).create();
  ASSERT_TRUE(pub);
  auto sut = registry();
  ASSERT_EQ(sut->topics().size(), 1u);
  *pub = Publisher<GraphPose>();  // drops the last reference to the publisher
  EXPECT_TRUE(sut->topics().empty());
  node.reset();
  EXPECT_FALSE(has_node(sut->nodes(), "/short_lived"));
}

TEST_F(GraphApiTest, service_registered_through_node_is_listed) {
  Node node(ctx, "server");
  auto sut =
      node.register_graph_endpoint(graph::EndpointKind::Service, "add_two_ints",
                                   topic::TypeInfo::from_name("example/srv/AddTwoInts"), QoS());
  ASSERT_TRUE(sut) << sut.error().detail;
  auto services = registry()->services();
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0].name, "/add_two_ints");
  EXPECT_EQ(services[0].server_count, 1u);
}

TEST_F(GraphApiTest, context_reclaim_removes_nodes_of_killed_process) {
  Node parent(ctx, "parent");
  int ready[2], hold[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(hold), 0);
  pid_t child = fork();
  if (child == 0) {
    auto child_ctx = Context::create(options);
    Node node(child_ctx, "child");
    auto pub = node.publisher<GraphPose>(topic).create();
    char ok = (pub && node.graph_node()) ? 'y' : 'n';
    (void)!write(ready[1], &ok, 1);
    char c;
    (void)!read(hold[0], &c, 1);  // blocks until killed
    _exit(0);
  }
  close(ready[1]);
  close(hold[0]);
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  auto sut = registry();
  EXPECT_TRUE(has_node(sut->nodes(), "/child"));

  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(hold[1]);
  EXPECT_GE(ctx->reclaim_dead(), 3u);  // participant, node, endpoint (+ topic slot)
  auto after = sut->snapshot(false);
  EXPECT_FALSE(has_node(after.nodes, "/child"));
  EXPECT_TRUE(has_node(after.nodes, "/parent"));
  EXPECT_TRUE(after.topics().empty());
}

TEST_F(GraphApiTest, unusable_registry_leaves_publish_subscribe_working) {
  ContextOptions bad = options;
  bad.graph_registry = testing::unique_name("graph_api_foreign");
  const std::string seg_name = shm::segment_name("g", bad.graph_registry);
  int fd = shm_open(seg_name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  const std::uint32_t ready = shm::SEGMENT_READY;
  char junk[64];
  std::memset(junk, 0x5A, sizeof(junk));
  std::memcpy(junk + 28, &ready, sizeof(ready));  // "ready" but foreign: refused at once
  ASSERT_EQ(write(fd, junk, sizeof(junk)), 64);
  close(fd);

  auto bad_ctx = Context::create(bad);
  Node node(bad_ctx, "no_discovery");
  EXPECT_EQ(node.graph_node(), nullptr);
  auto g = bad_ctx->graph();
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().code, graph::RegistryOpenError::Incompatible);
  auto pub = node.publisher<GraphPose>(topic).create();
  auto sub = node.subscription<GraphPose>(topic).create();
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE(pub->publish(GraphPose{1.0, 2.0}));
  auto m = (*sub)->take();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->y, 2.0);
  shm::Segment::unlink(seg_name);
}

}  // namespace
}  // namespace baton
