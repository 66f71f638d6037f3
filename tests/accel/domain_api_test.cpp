#include <cstring>

#include "baton/api/domain_endpoints.hpp"
#include "baton/api/node.hpp"
#include "test_util.hpp"

namespace baton {
namespace {

const topic::TypeInfo BLOB = topic::TypeInfo::from_name("test/msg/Blob");

TEST(DomainApiTest, subscription_in_malformed_domain_returns_domain_unavailable) {
  auto ctx = Context::create();
  Node node{ctx, "domain_api"};
  auto sut = create_domain_subscription(node, "blob", BLOB, "gpu0");
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, EndpointCreateError::DomainUnavailable);
}

TEST(DomainApiTest, publisher_loan_in_device_domain_reaches_host_and_device_subscribers) {
  auto ctx = Context::create();
  Node node{ctx, "domain_api"};
  const std::string topic = "blob_" + std::to_string(::getpid());
  auto pub = create_domain_publisher(node, topic, BLOB, "staging");
  ASSERT_TRUE(pub) << pub.error().detail;
  auto dev = create_domain_subscription(node, topic, BLOB, "staging");
  auto host = create_domain_subscription(node, topic, BLOB, "host");
  ASSERT_TRUE(dev && host);
  auto loan = (*pub)->loan(64);
  ASSERT_TRUE(loan);
  std::memcpy(loan->view().host, "device-resident", 16);
  ASSERT_TRUE((*pub)->publish(std::move(*loan), 16));
  auto a = (*dev)->take();
  auto b = (*host)->take();
  ASSERT_TRUE(a && b);
  EXPECT_STREQ(reinterpret_cast<const char*>(a->view().host), "device-resident");
  EXPECT_STREQ(reinterpret_cast<const char*>(b->view().host), "device-resident");
  EXPECT_EQ(a->path(), DomainPath::SharedCopy);
}

}  // namespace
}  // namespace baton
