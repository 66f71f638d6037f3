// The graph registry's lifetime as an application sees it through Context: the registry file goes
// with the namespace's last Context, stays while another process's Context lives, and a Context
// whose registry was removed under it (it had no participant there) opens the new one by name.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "baton/baton.hpp"
#include "baton/shm/naming.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

class GraphLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options.graph_registry = testing::unique_name("graph_life");
    options.janitor_period = std::chrono::milliseconds(0);
    seg_name = shm::segment_name("g", options.graph_registry);
  }
  void TearDown() override { shm::Segment::unlink(seg_name); }
  bool registry_exists() const {
    return shm::Segment::open(seg_name, shm::SegmentKind::Graph, 0).has_value();
  }

  ContextOptions options;
  std::string seg_name;
};

bool sees(const std::shared_ptr<Context>& ctx, const std::string& fq) {
  auto g = ctx->graph();
  if (!g) return false;
  auto nodes = (*g)->nodes();
  return std::any_of(nodes.begin(), nodes.end(),
                     [&](const graph::NodeInfo& n) { return n.fully_qualified_name == fq; });
}

TEST_F(GraphLifecycleTest, graph_participant_error_is_empty_after_success) {
  auto ctx = Context::create(options);
  ASSERT_NE(ctx->graph_participant(), nullptr);
  EXPECT_EQ(ctx->graph_participant_error(), "");
}

TEST_F(GraphLifecycleTest, last_context_destroyed_removes_the_registry) {
  auto a = Context::create(options);
  auto b = Context::create(options);
  {
    Node na(a, "a");
    Node nb(b, "b");
    ASSERT_TRUE(na.graph_node() && nb.graph_node());
    EXPECT_TRUE(registry_exists());
  }
  a.reset();
  EXPECT_TRUE(registry_exists());  // b's participant is still registered
  b.reset();
  EXPECT_FALSE(registry_exists());
}

TEST_F(GraphLifecycleTest, registry_stays_while_another_process_has_a_context) {
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  if (child == 0) {
    char c = 'n';
    {
      auto ctx = Context::create(options);
      Node node(ctx, "child");
      c = node.graph_node() ? 'y' : 'n';
      (void)!::write(ready[1], &c, 1);
      (void)!::read(done[0], &c, 1);
    }  // the child's Context goes last: it removes the registry
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  {
    auto ctx = Context::create(options);
    Node node(ctx, "parent");
    EXPECT_TRUE(sees(ctx, "/child"));
  }
  EXPECT_TRUE(registry_exists());
  (void)!::write(done[1], "x", 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
  EXPECT_FALSE(registry_exists());
}

TEST_F(GraphLifecycleTest, reader_context_follows_the_registry_to_its_successor) {
  auto reader = Context::create(options);
  auto first = reader->graph();  // no participant: this context does not keep the registry
  ASSERT_TRUE(first);
  {
    auto other = Context::create(options);
    Node gone(other, "gone");
    EXPECT_TRUE(sees(reader, "/gone"));
  }
  EXPECT_FALSE(registry_exists());                  // the only participant left
  EXPECT_TRUE((*first)->snapshot().nodes.empty());  // the old mapping: an empty graph
  auto writer = Context::create(options);
  Node fresh(writer, "fresh");
  ASSERT_TRUE(fresh.graph_node());
  EXPECT_TRUE(sees(reader, "/fresh"));  // reopened by name
  auto now = reader->graph();
  ASSERT_TRUE(now);
  EXPECT_NE(*now, *first);
  // A node made in the reader registers in the registry everybody else uses.
  Node late(reader, "late");
  ASSERT_TRUE(late.graph_node());
  EXPECT_TRUE(sees(writer, "/late"));
}

}  // namespace
}  // namespace baton
