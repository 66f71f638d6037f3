// A baton node that is also a ROS 2 node on the wire: a baton::Node (shared-memory graph, local
// peers) listed in its Participant's ros_discovery_info for as long as it lives. The native
// ROS 2 endpoints (Publisher, Subscription) made on it list their DDS gids under it.
#pragma once

#include <memory>
#include <string>

#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/ros2_participant.hpp"

namespace baton::ros2 {

class Node {
 public:
  // `wire` must outlive the node. Error: the first ros_discovery_info write failed.
  static Result<std::unique_ptr<Node>, Error<WireError>> create(std::shared_ptr<Context> ctx,
                                                                Participant& wire, std::string name,
                                                                std::string node_namespace = "/");
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  baton::Node& node() noexcept { return node_; }
  Participant& wire() noexcept { return *wire_; }
  const std::string& name() const noexcept { return node_.name(); }
  const std::string& get_namespace() const noexcept { return node_.get_namespace(); }

 private:
  Node(std::shared_ptr<Context> ctx, Participant& wire, std::string name, std::string ns)
      : node_(std::move(ctx), std::move(name), std::move(ns)), wire_(&wire) {}
  baton::Node node_;
  Participant* wire_;
};

// The names before issue 18 dropped the "Ros2" prefix; deprecated, removed in the next release.
using Ros2Node [[deprecated("use baton::ros2::Node")]] = Node;

}  // namespace baton::ros2
