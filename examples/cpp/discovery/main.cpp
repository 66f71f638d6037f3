// Prints the baton graph of this user and namespace (BATON_NAMESPACE): nodes, topics with
// their types and endpoint counts, services, and each node's endpoints — like
// `ros2 node list`, `ros2 topic list -t -v` and `ros2 node info` together.
//
//   baton_example_discovery          print the graph once
//   baton_example_discovery --demo   also register a demo node with a publisher, a
//                                    subscription and a service, so the output is not empty
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "baton/baton.hpp"

struct Chatter {
  char text[64];
};
BATON_MESSAGE(Chatter, "example/msg/Chatter");

namespace {

const char* reliability(baton::topic::Reliability r) {
  return r == baton::topic::Reliability::Reliable ? "reliable" : "best_effort";
}
const char* durability(baton::topic::Durability d) {
  return d == baton::topic::Durability::TransientLocal ? "transient_local" : "volatile";
}

void print_endpoints(const char* title, const std::vector<baton::graph::EndpointInfo>& list) {
  if (list.empty()) return;
  std::printf("    %s:\n", title);
  for (const auto& e : list) {
    std::printf("      %s: %s (depth %u, %s, %s)\n", e.name.c_str(), e.type.name.c_str(),
                e.qos.depth, reliability(e.qos.reliability), durability(e.qos.durability));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool demo = argc > 1 && std::strcmp(argv[1], "--demo") == 0;
  if (argc > 1 && !demo) {
    std::fprintf(stderr, "usage: %s [--demo]\n", argv[0]);
    return 2;
  }
  auto ctx = baton::Context::create();
  auto registry = ctx->graph();
  if (!registry) {
    std::fprintf(stderr, "graph unavailable: %s: %s\n",
                 std::string(baton::graph::to_string(registry.error().code)).c_str(),
                 registry.error().detail.c_str());
    return 1;
  }

  // Demo endpoints live until main returns; they disappear from the graph with them.
  std::unique_ptr<baton::Node> node;
  std::optional<baton::Publisher<Chatter>> pub;
  std::shared_ptr<baton::Subscription<Chatter>> sub;
  std::shared_ptr<baton::graph::EndpointHandle> service;
  if (demo) {
    node = std::make_unique<baton::Node>(ctx, "discovery_demo", "/examples");
    auto p = node->publisher<Chatter>("chatter").create();
    auto s = node->subscription<Chatter>("chatter").qos(baton::QoS::sensor_data()).create();
    auto srv = node->register_graph_endpoint(
        baton::graph::EndpointKind::Service, "reset",
        baton::topic::TypeInfo::from_name("std_srvs/srv/Empty"), baton::QoS());
    if (!p || !s || !srv) {
      std::fprintf(stderr, "demo endpoints could not be created\n");
      return 1;
    }
    pub = std::move(*p);
    sub = *s;
    service = *srv;
  }

  const baton::graph::GraphSnapshot snap = (*registry)->snapshot();
  std::printf("graph registry '%s' (epoch %llu)\n", (*registry)->segment().name().c_str(),
              static_cast<unsigned long long>(snap.epoch));
  std::printf("participants: %zu\n", snap.participants.size());

  std::printf("nodes: %zu\n", snap.nodes.size());
  for (const auto& n : snap.nodes) {
    std::printf("  %s (pid %u)\n", n.fully_qualified_name.c_str(), n.pid);
    if (auto info = snap.node_info(n.fully_qualified_name)) {
      print_endpoints("publishers", info->publishers);
      print_endpoints("subscriptions", info->subscriptions);
      print_endpoints("services", info->services);
      print_endpoints("clients", info->clients);
    }
  }

  const auto topics = snap.topics();
  std::printf("topics: %zu\n", topics.size());
  for (const auto& t : topics) {
    std::string types;
    for (const auto& ty : t.types) types += (types.empty() ? "" : ", ") + ty;
    std::printf("  %s [%s] publishers: %u, subscriptions: %u\n", t.name.c_str(), types.c_str(),
                t.publisher_count, t.subscription_count);
  }

  const auto services = snap.services();
  std::printf("services: %zu\n", services.size());
  for (const auto& s : services) {
    std::string types;
    for (const auto& ty : s.types) types += (types.empty() ? "" : ", ") + ty;
    std::printf("  %s [%s] servers: %u, clients: %u\n", s.name.c_str(), types.c_str(),
                s.server_count, s.client_count);
  }

  for (const auto& issue : snap.issues) {
    std::printf("skipped corrupt %s entry %u: %s\n",
                std::string(baton::graph::to_string(issue.table)).c_str(), issue.index,
                issue.what.c_str());
  }
  return 0;
}
