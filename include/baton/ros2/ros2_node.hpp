// A baton node that is also a ROS 2 node on the wire: a baton::Node (shared-memory graph, local
// peers) listed in its Ros2Participant's ros_discovery_info for as long as it lives. The native
// ROS 2 endpoints (Ros2Publisher, Ros2Subscription) made on it list their DDS gids under it.
#pragma once

#include <memory>
#include <string>

#include "baton/api/node.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/ros2_participant.hpp"

namespace baton::ros2 {

class Ros2Node {
 public:
  // `wire` must outlive the node. Error: the first ros_discovery_info write failed.
  static Result<std::unique_ptr<Ros2Node>, Error<WireError>> create(
      std::shared_ptr<Context> ctx, Ros2Participant& wire, std::string name,
      std::string node_namespace = "/");
  ~Ros2Node();
  Ros2Node(const Ros2Node&) = delete;
  Ros2Node& operator=(const Ros2Node&) = delete;

  Node& node() noexcept { return node_; }
  Ros2Participant& wire() noexcept { return *wire_; }
  const std::string& name() const noexcept { return node_.name(); }
  const std::string& get_namespace() const noexcept { return node_.get_namespace(); }

 private:
  Ros2Node(std::shared_ptr<Context> ctx, Ros2Participant& wire, std::string name, std::string ns)
      : node_(std::move(ctx), std::move(name), std::move(ns)), wire_(&wire) {}
  Node node_;
  Ros2Participant* wire_;
};

}  // namespace baton::ros2
