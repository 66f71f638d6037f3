// CUDA domains in the topic queue on a discrete GPU: a cuda:0 subscriber gets each host message
// copied into the device once (a second cuda:0 subscriber shares that copy), and a message a
// kernel wrote into a cuda:0 publisher's loan reaches a host subscriber in another process, which
// imports the publisher's pool to copy it out. Skips without a CUDA device.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "baton/memory/domain/kernels.hpp"
#include "baton/topic/domain_publisher.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "child_role.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using memory::domain::DomainSpec;
using memory::domain::kernels::transform_byte;
using testing::DeviceBytes;
using namespace std::chrono_literals;

constexpr std::uint64_t MSG = 8192;
constexpr std::uint64_t N = 3;

unsigned char pattern(std::uint64_t seq, std::uint64_t i) {
  return static_cast<unsigned char>((seq * 31 + i * 7) & 0xFF);
}

std::shared_ptr<Topic> make_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Blob"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return t ? *t : nullptr;
}

std::unique_ptr<DomainSubscriber> subscriber(std::shared_ptr<Topic> t, const char* domain) {
  auto s = DomainSubscriber::create(t, {}, *DomainSpec::parse(domain));
  EXPECT_TRUE(s) << domain << ": " << (s ? "" : to_string(s.error().code));
  return s ? std::move(*s) : nullptr;
}

TEST(CudaTopicTest, cuda_subscribers_get_each_host_message_copied_into_the_device_once) {
  BATON_CUDA_OR_SKIP(cuda);
  if (cuda->zero_copy_from_host()) GTEST_SKIP() << cuda->info().name << " is integrated: no copy";
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  auto topic = make_topic(testing::unique_name("cudasub"));
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  auto first = subscriber(topic, "cuda:0");
  auto second = subscriber(topic, "cuda:0");
  ASSERT_TRUE(first && second);
  for (std::uint64_t seq = 0; seq < N; ++seq) {
    auto loan = (*pub)->loan(MSG);
    ASSERT_TRUE(loan);
    for (std::uint64_t i = 0; i < MSG; ++i) loan->data[i] = std::byte{pattern(seq, i)};
    ASSERT_TRUE((*pub)->publish(*loan, MSG));
  }
  const auto copies = cuda->stats().copies.load();
  DeviceBytes out(*cuda, MSG);
  ASSERT_TRUE(out.ok());
  for (std::uint64_t seq = 0; seq < N; ++seq) {
    auto a = first->take();
    ASSERT_TRUE(a) << to_string(a.error());
    EXPECT_EQ(a->path(), DomainPath::MadeCopy);
    ASSERT_NE(a->view().device, 0u);
    // A kernel reads the device copy: its output proves the copy holds the published bytes.
    ASSERT_TRUE(testing::run_transform(*cuda, k, a->view().device, out.ptr(), MSG));
    const auto result = out.read();
    ASSERT_EQ(result.size(), MSG);
    for (std::uint64_t i = 0; i < MSG; ++i) {
      ASSERT_EQ(result[i], transform_byte(pattern(seq, i))) << "seq " << seq << " byte " << i;
    }
    auto b = second->take();
    ASSERT_TRUE(b) << to_string(b.error());
    EXPECT_EQ(b->path(), DomainPath::SharedCopy);
    EXPECT_EQ(b->view().device, a->view().device);  // the same device bytes, not a second copy
  }
  EXPECT_EQ(first->domain_copies(0), N);
  EXPECT_EQ(second->domain_copies(0), N);
  EXPECT_EQ(cuda->stats().copies.load() - copies, N);  // one host-to-device copy per message
}

// Child role: a host subscriber that checks each message is transform(pattern(seq)).
BATON_CHILD_TEST(cuda_host_subscriber) {
  const char* name = std::getenv("BATON_CUDA_TOPIC");
  ASSERT_NE(name, nullptr) << "BATON_CUDA_TOPIC names the topic";
  auto topic = make_topic(name);
  ASSERT_TRUE(topic);
  auto sub = subscriber(topic, "host");
  ASSERT_TRUE(sub);
  for (std::uint64_t seq = 0; seq < N; ++seq) {
    ASSERT_TRUE(sub->wait(10s)) << "message " << seq << " never came";
    auto m = sub->take();
    ASSERT_TRUE(m) << to_string(m.error());
    ASSERT_EQ(m->size(), MSG);
    ASSERT_NE(m->view().host, nullptr);
    for (std::uint64_t i = 0; i < MSG; ++i) {
      ASSERT_EQ(static_cast<unsigned char>(m->view().host[i]), transform_byte(pattern(seq, i)))
          << "seq " << seq << " byte " << i;
    }
  }
}

TEST(CudaTopicTest, kernel_output_published_in_cuda_reaches_a_host_subscriber_in_another_process) {
  BATON_CUDA_OR_SKIP(cuda);
  if (!cuda->can_export()) GTEST_SKIP() << cuda->info().name << " cannot export pools";
  BATON_CUDA_KERNELS_OR_SKIP(k, *cuda);
  const std::string name = testing::unique_name("cudapub");
  auto topic = make_topic(name);
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("cuda:0"));
  ASSERT_TRUE(pub) << pub.error().detail;
  const pid_t child =
      testing::spawn_child_role("cuda_host_subscriber", {{"BATON_CUDA_TOPIC", name}});
  // Attached, and registered as a domain reader (else publish would write the host bytes here).
  ASSERT_TRUE(testing::eventually(
      [&] { return (*pub)->port().subscriber_count() == 1 && (*pub)->table().reader_mask() != 0; },
      20s));
  DeviceBytes in(*cuda, MSG);
  ASSERT_TRUE(in.ok());
  std::vector<unsigned char> host(MSG);
  const auto copies = cuda->stats().copies.load();
  for (std::uint64_t seq = 0; seq < N; ++seq) {
    for (std::uint64_t i = 0; i < MSG; ++i) host[i] = pattern(seq, i);
    ASSERT_TRUE(in.write(host.data(), MSG));
    auto loan = (*pub)->loan(MSG);
    ASSERT_TRUE(loan);
    ASSERT_NE(loan->view().device, 0u);
    ASSERT_TRUE(testing::run_transform(*cuda, k, in.ptr(), loan->view().device, MSG));
    ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));
  }
  EXPECT_EQ(testing::wait_exit(child), 0) << "the host subscriber process failed (output above)";
  EXPECT_EQ(cuda->stats().copies.load(), copies);  // this process copied nothing to host
  EXPECT_EQ((*pub)->table().copies(0), N);         // the subscriber's process did, once each
}

}  // namespace
}  // namespace baton::topic
