// Node: see include/baton/ros2/ros2_node.hpp.
#include "baton/ros2/ros2_node.hpp"

namespace baton::ros2 {

Result<std::unique_ptr<Node>, Error<WireError>> Node::create(std::shared_ptr<Context> ctx,
                                                             Participant& wire, std::string name,
                                                             std::string ns) {
  std::unique_ptr<Node> n(new Node(std::move(ctx), wire, std::move(name), std::move(ns)));
  if (auto s = wire.add_node(n->get_namespace(), n->name()); !s) return unexpected(s.error());
  return n;
}

Node::~Node() { (void)wire_->remove_node(get_namespace(), name()); }

}  // namespace baton::ros2
