// Large ROS 2 arrays in memory domains: the two-phase Publisher::loan() (an Image's `data`
// written in place, in the host chunk or in a device domain), DomainSubscription (the array
// read where the subscriber's domain has it: ZeroCopy on host-unified OpenCL, the publisher's own
// device buffer shared, or one copy per process), a plain host Subscription and an rclpy
// (Fast DDS) subscriber of a device-published image getting equal bytes, and corrupt lengths in
// shared memory dropped. OpenCL tests use the real PoCL device and skip without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_domain_subscription.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/topic/topic_layout.hpp"
#include "image_4k.hpp"
#include "image_topic_test.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#include "child_roles.hpp"
#endif

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;
using memory::domain::DomainBackend;

const uint32_t DOMAIN_ID = test::domain_id(83);  // this suite's own ROS_DOMAIN_ID

// A 4K rgb8 image whose `data` is reserved: written later, in place.
Value image_shape(const MessageDescription& t, int32_t seq = 0) {
  Value v = default_value(t);
  v.at(t, "header").items[1].str = "domain_4k";  // header.frame_id
  test::set_image_seq(v, t, seq);
  v.at(t, "width") = Value::of(test::W4K);
  v.at(t, "height") = Value::of(test::H4K);
  v.at(t, "step") = Value::of(test::W4K * 3);
  v.at(t, "encoding") = Value::of_string("rgb8");
  v.at(t, "data") = Value::reserved(uint64_t{test::W4K} * test::H4K * 3);
  return v;
}

std::shared_ptr<DomainBackend> backend_of(const std::string& domain) {
  auto b = memory::domain::open_domain(domain);
  return b ? *b : nullptr;
}

// Writes `bytes` into `a` as a user would: clEnqueueWriteBuffer into the cl_mem at its offset on
// OpenCL, a plain store where the CPU addresses the domain.
bool write_array(DomainBackend& b, const DeviceArray& a, std::span<const uint8_t> bytes) {
  if (bytes.size() != a.bytes) return false;
#if BATON_HAVE_OPENCL
  if (auto* cl = dynamic_cast<memory::domain::OpenClBackend*>(&b); cl && a.view.native) {
    return clEnqueueWriteBuffer(cl->queue(), static_cast<cl_mem>(a.view.native), CL_TRUE, a.offset,
                                a.bytes, bytes.data(), 0, nullptr, nullptr) == CL_SUCCESS;
  }
#endif
  if (a.view.host == nullptr) return false;
  std::memcpy(a.view.host + a.offset, bytes.data(), bytes.size());
  return true;
}

// Reads `a` back from its domain (clEnqueueReadBuffer on OpenCL).
std::vector<uint8_t> read_array(DomainBackend& b, const DeviceArray& a) {
  std::vector<uint8_t> out(a.bytes);
#if BATON_HAVE_OPENCL
  if (auto* cl = dynamic_cast<memory::domain::OpenClBackend*>(&b); cl && a.view.native) {
    if (clEnqueueReadBuffer(cl->queue(), static_cast<cl_mem>(a.view.native), CL_TRUE, a.offset,
                            a.bytes, out.data(), 0, nullptr, nullptr) != CL_SUCCESS)
      out.clear();
    return out;
  }
#endif
  if (a.view.host == nullptr) return {};
  std::memcpy(out.data(), a.view.host + a.offset, a.bytes);
  return out;
}

// Publishes one 4K image from `pub` with `data` written into the loan in its domain.
void publish_image(Publisher& pub, const MessageDescription& t, DomainBackend& b,
                   const std::vector<uint8_t>& pixels, int32_t seq = 0) {
  auto loan = pub.loan(image_shape(t, seq));
  ASSERT_TRUE(loan.has_value()) << loan.error().detail;
  auto data = loan->device_array("data");
  ASSERT_TRUE(data.has_value());
  EXPECT_EQ(data->bytes, pixels.size());
  ASSERT_TRUE(write_array(b, *data, pixels));
  auto s = pub.publish(std::move(*loan));
  ASSERT_TRUE(s.has_value()) << s.error().detail;
}

template <typename Sub>
bool wait_for(Sub& sub, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline)
    if (sub.wait(100ms)) return true;
  return false;
}

uint64_t copies_into_domain(const DomainSubscription& sub) {
  uint64_t n = 0;
  for (uint32_t p = 0; p < topic::MAX_PUBLISHERS; ++p) n += sub.port().domain_copies(p);
  return n;
}

class DomainArrays : public test::ImageTopicTest {
 protected:
  DomainArrays() : ImageTopicTest("domain_arrays", "/da/image") {}

  WireQos depth(uint32_t n) const {
    WireQos q;
    q.depth = n;
    return q;
  }

  // Skips unless `domain` opens here (OpenCL needs a platform: PoCL on CI).
  bool have(const std::string& domain) {
    auto b = memory::domain::open_domain(domain);
    if (!b) std::printf("[ SKIP note ] %s: %s\n", domain.c_str(), b.error().detail.c_str());
    return b.has_value();
  }

  // Starts this binary's child publisher of one 4K image in `domain` (role domain_image_publisher)
  // once `subs` subscriptions are on the topic; it stays until the release file exists (or 90 s).
  std::unique_ptr<test::RclpyProcess> child_publisher(const std::string& domain, int subs) {
    release_ = "/tmp/da_release_" + std::to_string(::getpid());
    std::filesystem::remove(release_);
    return std::make_unique<test::RclpyProcess>(
        test::RclpyProcess::ChildRole{"domain_image_publisher"},
        test::Env{{"DA_TOPIC", topic_},
                  {"DA_DOMAIN", domain},
                  {"DA_SUBS", std::to_string(subs)},
                  {"DA_RELEASE", release_}});
  }
  void release_child() { std::ofstream(release_) << "done"; }

  std::string release_;
};

TEST_F(DomainArrays, endpoints_in_an_unknown_domain_return_endpoint_error) {
  auto pub = Publisher::create(*node_, *image_t_, topic_, nullptr, {}, "nosuchdomain:3");
  ASSERT_FALSE(pub.has_value());
  EXPECT_EQ(pub.error().code, WireError::Endpoint);
  EXPECT_NE(pub.error().detail.find("nosuchdomain"), std::string::npos) << pub.error().detail;
  auto sub = DomainSubscription::create(*node_, *image_t_, topic_, nullptr, "nosuchdomain:3");
  ASSERT_FALSE(sub.has_value());
  EXPECT_EQ(sub.error().code, WireError::Endpoint);
  EXPECT_NE(sub.error().detail.find("nosuchdomain"), std::string::npos) << sub.error().detail;
}

// Child role: publishes the 4K pattern image once in DA_DOMAIN when DA_SUBS subscriptions are
// there, then stays until DA_RELEASE exists.
BATON_CHILD_TEST_F(DomainArrays, domain_image_publisher) {
  const std::string topic = test::getenv_or("DA_TOPIC", "");
  ASSERT_FALSE(topic.empty()) << "DA_TOPIC names the topic (set by child_publisher)";
  const std::string domain = test::getenv_or("DA_DOMAIN", "host");
  const uint32_t subs = static_cast<uint32_t>(std::stoul(test::getenv_or("DA_SUBS", "1")));
  const std::filesystem::path release = test::getenv_or("DA_RELEASE", "");
  auto pub = Publisher::create(*node_, *image_t_, topic, nullptr, depth(1), domain);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (pub->shm_subscribers() < subs && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_GE(pub->shm_subscribers(), subs);
  auto b = backend_of(domain);
  ASSERT_NE(b, nullptr);
  publish_image(*pub, *image_t_, *b, test::pattern_4k());
  std::printf("published\n");
  std::fflush(stdout);
  while (!std::filesystem::exists(release) && std::chrono::steady_clock::now() < deadline + 60s)
    std::this_thread::sleep_for(20ms);
}

// Two-phase publish on host shared memory: the array's room lies inside the loaned chunk,
// element-aligned, and what was written there is what a take_view() subscriber reads in place.
TEST_F(DomainArrays, two_phase_host_loan_array_lies_in_the_chunk_and_arrives_equal) {
  WireQos q = depth(1);
  auto sub = Subscription::create(*node_, *image_t_, topic_, nullptr, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto pub = Publisher::create(*node_, *image_t_, topic_, nullptr, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  EXPECT_EQ(pub->domain(), "host");
  auto loan = pub->loan(image_shape(*image_t_));
  ASSERT_TRUE(loan.has_value()) << loan.error().detail;
  const std::span<uint8_t> sample = loan->host_sample();
  const std::span<uint8_t> data = loan->array("data");
  const std::vector<uint8_t> pixels = test::pattern_4k();
  ASSERT_EQ(data.size(), pixels.size());
  // Inside the loan's CDR sample (the last field: it ends where the sample ends), in /dev/shm.
  EXPECT_EQ(data.data() + data.size(), sample.data() + sample.size());
  EXPECT_TRUE(test::in_baton_mapping(data.data()));
  // The CDR body starts 8-aligned, so the array is aligned for any element type.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(sample.data() + 4) % 8, 0u);
  EXPECT_TRUE(loan->array("width").empty());    // not an array
  EXPECT_TRUE(loan->array("nothing").empty());  // no such field
  ASSERT_TRUE(loan->device_array("data").has_value());
  EXPECT_EQ(loan->device_array("data")->view.host + loan->device_array("data")->offset,
            reinterpret_cast<std::byte*>(data.data()));
  std::memcpy(data.data(), pixels.data(), pixels.size());
  ASSERT_TRUE(pub->publish(std::move(*loan)).has_value());

  ASSERT_TRUE(wait_for(**sub, 10s));
  auto s = (*sub)->take_view();
  ASSERT_TRUE(s.has_value());
  const Value& got = s->value().at(*image_t_, "data");
  ASSERT_TRUE(got.is_view());
  EXPECT_TRUE(std::equal(got.bytes().begin(), got.bytes().end(), pixels.begin(), pixels.end()));
  EXPECT_EQ(s->value().at(*image_t_, "width").as<uint32_t>(), test::W4K);
  EXPECT_EQ(s->value().at(*image_t_, "encoding").str, "rgb8");
  EXPECT_EQ(s->value().at(*image_t_, "header").items[1].str, "domain_4k");

  // A loan of another publisher is refused and nothing is published.
  auto other = Publisher::create(*node_, *image_t_, topic_ + "_other", nullptr, q);
  ASSERT_TRUE(other.has_value());
  auto foreign = other->loan(image_shape(*image_t_));
  ASSERT_TRUE(foreign.has_value());
  auto refused = pub->publish(std::move(*foreign));
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, CdrError::Internal);
}

// A publisher in a copying domain whose subscriber is in the same domain: the subscriber reads
// the publisher's own device buffer (SharedCopy, no copy into the domain), small fields decoded
// from the host chunk. "staging" runs everywhere; opencl:0:sc where OpenCL is.
TEST_F(DomainArrays, copying_domain_subscriber_in_the_publishers_domain_shares_its_buffer) {
  for (const std::string domain : {"staging", "opencl:0:sc"}) {
    SCOPED_TRACE(domain);
    if (!have(domain)) continue;
    const std::string topic = topic_ + "_" + domain.substr(0, domain.find(':'));
    // The publisher first: a domain subscriber registers as such with the publishers present
    // when it is made (one that comes later counts it as a host reader until its first take).
    auto pub = Publisher::create(*node_, *image_t_, topic, nullptr, depth(1), domain);
    ASSERT_TRUE(pub.has_value()) << pub.error().detail;
    EXPECT_EQ(pub->domain(), domain);
    auto sub = DomainSubscription::create(*node_, *image_t_, topic, nullptr, domain, depth(1));
    ASSERT_TRUE(sub.has_value()) << sub.error().detail;
    auto b = backend_of(domain);
    const std::vector<uint8_t> pixels = test::pattern_4k();
    const uint64_t bytes_before = b->stats().bytes.load();
    ASSERT_NO_FATAL_FAILURE(publish_image(*pub, *image_t_, *b, pixels));
    ASSERT_TRUE(wait_for(**sub, 10s));
    auto s = (*sub)->take();
    ASSERT_TRUE(s.has_value());
    // The backend moved only the small fields into the loan (a header and a few scalars), never
    // the 24 MB image to or from host memory: the message was not forced to host to decode it.
    EXPECT_LT(b->stats().bytes.load() - bytes_before, 1024u);
    EXPECT_FALSE(s->from_wire());
    EXPECT_EQ(s->path(), DomainPath::SharedCopy);
    EXPECT_EQ(copies_into_domain(**sub), 0u) << "no copy: the publisher's buffer is shared";
    EXPECT_EQ(s->value().at(*image_t_, "width").as<uint32_t>(), test::W4K);
    EXPECT_EQ(s->value().at(*image_t_, "encoding").str, "rgb8");
    EXPECT_EQ(s->value().at(*image_t_, "data").reserved_count, pixels.size());
    auto data = s->array("data");
    ASSERT_TRUE(data.has_value());
    EXPECT_TRUE(read_array(*b, *data) == pixels) << "device bytes differ";
    EXPECT_EQ((*sub)->malformed(), 0u);
  }
}

// A 4K image published in a device domain by another process: a domain subscription reads it in
// its domain (one copy per process for OpenCL's copying mode, whose buffers cannot be shared
// between processes; none at all for "staging", whose pools are shared), and a plain host
// Subscription gets the same bytes from the host chunk.
TEST_F(DomainArrays, image_4k_published_in_a_device_domain_by_another_process_arrives_equal) {
  struct Case {
    std::string domain;
    DomainPath path;
    uint64_t copies;
  };
  for (const Case& c :
       {Case{"staging", DomainPath::SharedCopy, 0}, Case{"opencl:0:sc", DomainPath::MadeCopy, 1}}) {
    SCOPED_TRACE(c.domain);
    if (!have(c.domain)) continue;
    topic_ += "_" + c.domain.substr(0, c.domain.find(':'));
    auto dsub = DomainSubscription::create(*node_, *image_t_, topic_, nullptr, c.domain, depth(1));
    ASSERT_TRUE(dsub.has_value()) << dsub.error().detail;
    auto hsub = Subscription::create(*node_, *image_t_, topic_, nullptr, depth(1));
    ASSERT_TRUE(hsub.has_value()) << hsub.error().detail;
    auto child = child_publisher(c.domain, 2);
    const std::vector<uint8_t> pixels = test::pattern_4k();

    ASSERT_TRUE(wait_for(**dsub, 60s)) << child->output();
    auto s = (*dsub)->take();
    ASSERT_TRUE(s.has_value()) << child->output();
    EXPECT_EQ(s->path(), c.path);
    EXPECT_EQ(copies_into_domain(**dsub), c.copies);
    auto data = s->array("data");
    ASSERT_TRUE(data.has_value());
    EXPECT_TRUE(read_array((*dsub)->port().backend(), *data) == pixels) << "device bytes differ";
    EXPECT_EQ(s->value().at(*image_t_, "header").items[1].str, "domain_4k");

    ASSERT_TRUE(wait_for(**hsub, 30s));
    auto h = (*hsub)->take();
    ASSERT_TRUE(h.has_value());
    EXPECT_TRUE(h->value.at(*image_t_, "data").raw == pixels) << "host bytes differ";
    EXPECT_EQ(h->value.at(*image_t_, "height").as<uint32_t>(), test::H4K);
    release_child();
  }
}

// On a host-unified OpenCL device (PoCL) the domain is host memory: the subscriber's cl_mem is
// the publisher's chunk, mapped in this process, and nothing is copied anywhere.
TEST_F(DomainArrays, image_4k_in_unified_opencl_from_another_process_is_read_in_place) {
#if BATON_HAVE_OPENCL
  if (!have("opencl:0")) GTEST_SKIP() << "no OpenCL platform found";
  auto b = backend_of("opencl:0");
  if (!b->info().host_unified) GTEST_SKIP() << b->info().name << " is not host-unified";
  auto dsub = DomainSubscription::create(*node_, *image_t_, topic_, nullptr, "opencl:0", depth(1));
  ASSERT_TRUE(dsub.has_value()) << dsub.error().detail;
  const uint64_t copies_before = b->stats().copies.load();
  auto child = child_publisher("opencl:0", 1);
  ASSERT_TRUE(wait_for(**dsub, 60s)) << child->output();
  auto s = (*dsub)->take();
  ASSERT_TRUE(s.has_value()) << child->output();
  EXPECT_EQ(s->path(), DomainPath::ZeroCopy);
  auto data = s->array("data");
  ASSERT_TRUE(data.has_value());
  void* host_ptr = nullptr;
  ASSERT_EQ(clGetMemObjectInfo(static_cast<cl_mem>(data->view.native), CL_MEM_HOST_PTR,
                               sizeof(host_ptr), &host_ptr, nullptr),
            CL_SUCCESS);
  const auto* first = static_cast<const std::byte*>(host_ptr) + data->offset;
  EXPECT_TRUE(test::in_baton_mapping(first)) << "the array is not in the publisher's chunk";
  EXPECT_TRUE(test::in_baton_mapping(first + data->bytes - 1));
  // The CDR body (after the 4-byte header) is 8-aligned: every element type lies aligned.
  const auto* body = static_cast<const std::byte*>(host_ptr) + s->sample_offset() + 4;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(body) % 8, 0u);
  EXPECT_TRUE(read_array(*b, *data) == test::pattern_4k()) << "device bytes differ";
  EXPECT_EQ(copies_into_domain(**dsub), 0u);
  EXPECT_EQ(b->stats().copies.load(), copies_before) << "a copy was made in this process";
  release_child();
#else
  GTEST_SKIP() << "no OpenCL platform found: baton was built without the OpenCL ICD loader";
#endif
}

// Shared memory is never trusted: a sequence length pointing past the sample is dropped,
// counted and logged by a domain subscription, never located; the good sample after it arrives.
TEST_F(DomainArrays, corrupt_length_in_shared_memory_is_dropped_counted_and_logged) {
  auto sub = DomainSubscription::create(*node_, *image_t_, topic_, nullptr, "host", depth(16));
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto raw = node_->raw_publisher(topic_, type_info(*image_t_)).qos(QoS(16)).create();
  ASSERT_TRUE(raw.has_value()) << raw.error().detail;
  Value v = image_shape(*image_t_);
  v.at(*image_t_, "data") =
      Value::of_array(std::span<const uint8_t>(std::vector<uint8_t>(4096, 7)));
  auto good = encode(*image_t_, v);
  ASSERT_TRUE(good.has_value()) << good.error().detail;
  const size_t corrupt = test::publish_corrupt_lengths_then_good(*raw, *good, 4096);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(wait_for(**sub, 10s));
  auto s = (*sub)->take();
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->array("data")->bytes, 4096u);
  EXPECT_EQ((*sub)->malformed(), corrupt);
  EXPECT_EQ((*sub)->from_shm(), 1u);
  EXPECT_NE(log.find("dropped a malformed sensor_msgs/msg/Image sample from shared memory"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("data"), std::string::npos) << log;
  EXPECT_FALSE((*sub)->take().has_value());
}

// The DDS wire: an rclpy subscriber on Fast DDS gets the image a baton publisher wrote in
// opencl:0:sc (one copy to host for the wire), and an rclpy image reaches a domain subscription
// with one copy into the domain.
class DomainArraysWire : public DomainArrays {
 protected:
  void SetUp() override {
    BATON_REQUIRE_CYCLONEDDS();
    DomainArrays::SetUp();
    if (IsSkipped()) return;
    auto wire = Participant::create(registry_, DOMAIN_ID, /*localhost_only=*/true);
    ASSERT_TRUE(wire.has_value()) << wire.error().detail;
    wire_ = std::move(*wire);
    auto node = Node::create(ctx_, *wire_, "domain_camera", "/da");
    ASSERT_TRUE(node.has_value()) << node.error().detail;
    ros_node_ = std::move(*node);
  }
  std::unique_ptr<test::RclpyProcess> peer(const std::vector<std::string>& args) {
    return std::make_unique<test::RclpyProcess>(
        "rclpy_native_peer.py", args,
        test::Env{{"ROS_DOMAIN_ID", std::to_string(DOMAIN_ID)},
                  {"ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"}});
  }
  std::unique_ptr<Participant> wire_;
  std::unique_ptr<Node> ros_node_;
};

// A 4K camera stream at 10 Hz from a device domain publisher: at least 95 % of the images reach
// rclpy on Fast DDS with every byte equal, the first one among them.
TEST_F(DomainArraysWire, image_4k_stream_from_a_device_domain_publisher_reaches_rclpy_equal) {
  const std::string domain = "opencl:0:sc";
  if (!have(domain)) GTEST_SKIP() << "no OpenCL platform found";
  const std::string topic = "/da/image_out_" + std::to_string(::getpid());
  auto pub = Publisher::create(*ros_node_, *image_t_, topic, depth(10), domain);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  auto b = backend_of(domain);
  const std::vector<uint8_t> pixels = test::pattern_4k();
  auto listener = peer({"image-listen", topic, "90", std::to_string(test::kCameraImages)});
  ASSERT_TRUE(baton::testing::eventually([&] { return pub->wire_foreign_readers() > 0; }, 60s))
      << listener->output();
  const auto start = std::chrono::steady_clock::now();
  for (int seq = 0; seq < test::kCameraImages; ++seq) {
    std::this_thread::sleep_until(start + seq * std::chrono::milliseconds(1000 / test::kCameraHz));
    ASSERT_NO_FATAL_FAILURE(publish_image(*pub, *image_t_, *b, pixels, seq));
  }
  int code = -1;
  EXPECT_TRUE(listener->wait_exit(90s, &code)) << listener->output();
  EXPECT_EQ(pub->wire_samples(), static_cast<uint64_t>(test::kCameraImages));
  const auto intact = test::intact_images(listener->output(), "domain_4k");
  EXPECT_GE(static_cast<int>(intact.size()), test::kCameraMinDelivered) << listener->output();
  EXPECT_TRUE(intact.count(0)) << "the first image did not arrive\n" << listener->output();
}

// A DDS sample is checked on the host and brought into the domain with one copy, into a pool of
// its own that leaves nothing behind (staging names a /dev/shm segment after it).
TEST_F(DomainArraysWire, rclpy_image_reaches_a_domain_subscription_with_one_copy) {
  for (const std::string domain : {"staging", "opencl:0:sc"}) {
    SCOPED_TRACE(domain);
    if (!have(domain)) continue;
    const std::string topic =
        "/da/image_in_" + std::to_string(::getpid()) + "_" + domain.substr(0, domain.find(':'));
    auto sub = DomainSubscription::create(*ros_node_, *image_t_, topic, domain, depth(1));
    ASSERT_TRUE(sub.has_value()) << sub.error().detail;
    auto b = backend_of(domain);
    const uint64_t copies_before = b->stats().copies.load();
    auto talker = peer({"image-talk", topic, "90"});
    {
      std::optional<DomainSample> got;
      const auto deadline = std::chrono::steady_clock::now() + 90s;
      while (!got && std::chrono::steady_clock::now() < deadline) {
        (*sub)->wait(100ms);
        got = (*sub)->take();
      }
      ASSERT_TRUE(got.has_value()) << talker->output();
      EXPECT_TRUE(got->from_wire());
      EXPECT_EQ(got->path(), DomainPath::MadeCopy);
      EXPECT_EQ(b->stats().copies.load(), copies_before + 1) << "one copy into " << domain;
      EXPECT_EQ(got->value().at(*image_t_, "header").items[1].str, "rclpy_4k");
      EXPECT_EQ(got->value().at(*image_t_, "width").as<uint32_t>(), test::W4K);
      auto data = got->array("data");
      ASSERT_TRUE(data.has_value());
      EXPECT_EQ((got->sample_offset() + 4) % 8, 0u);  // the CDR body lies 8-aligned there too
      EXPECT_TRUE(read_array(*b, *data) == test::pattern_4k()) << "device bytes differ";
    }
    talker.reset();
    while ((*sub)->take()) {
    }  // samples that came meanwhile
    const std::string mine = "r2dds_" + std::to_string(::getpid()) + "_";
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
      EXPECT_EQ(e.path().filename().string().find(mine), std::string::npos)
          << e.path() << " left behind";
  }
}

}  // namespace
}  // namespace baton::ros2
