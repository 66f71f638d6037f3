// What the master sends a subscriber node when a topic's publishers change: publisherUpdate on
// the node's slave API, sent by the test itself (the master's own may come before or after).
#pragma once

#include <gtest/gtest.h>
#include <xmlrpcpp/XmlRpc.h>

#include <string>
#include <vector>

#include "baton/ros1/node.hpp"

namespace baton::ros1::test {

// Tells `node` that `topic`'s publishers are now `uris` (their slave API URIs).
inline void send_publisher_update(const Node& node, const std::string& topic,
                                  const std::vector<std::string>& uris) {
  const int port = std::stoi(node.uri().substr(node.uri().rfind(':') + 1));
  XmlRpc::XmlRpcClient c("127.0.0.1", port, "/");
  XmlRpc::XmlRpcValue update, answer;
  update[0] = std::string("/master");
  update[1] = topic;
  update[2].setSize(0);
  for (size_t i = 0; i < uris.size(); ++i) update[2][static_cast<int>(i)] = uris[i];
  ASSERT_TRUE(c.execute("publisherUpdate", update, answer));
  EXPECT_EQ(int(answer[0]), 1) << answer.toXml();
}

}  // namespace baton::ros1::test
