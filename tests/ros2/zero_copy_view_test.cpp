// Subscription::take_view(): primitive arrays read where they lie in the publisher's
// shared-memory chunk. A 4K image from a publisher in another process is viewed in place (the
// view's bytes are inside a /dev/shm mapping, inside the received sample), the chunk stays out
// of the pool while a view holds it and goes back when it is dropped, and a corrupt sequence
// length in shared memory is dropped as malformed, never viewed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../../src/ros2/dds_wire.hpp"
#include "baton/baton.hpp"
#include "baton/ros2/cdr.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#include "baton/ros2/ros2_subscription.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "child_roles.hpp"
#include "image_4k.hpp"
#include "image_topic_test.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;

// An rgb8 image of `w` x `h` whose data is a view of `pixels` (published without a copy into
// the Value: encode reads the view).
Value image(const MessageDescription& t, uint32_t w, uint32_t h, std::span<const uint8_t> pixels) {
  Value v = default_value(t);
  v.at(t, "width") = Value::of(w);
  v.at(t, "height") = Value::of(h);
  v.at(t, "step") = Value::of(w * 3);
  v.at(t, "encoding") = Value::of_string("rgb8");
  v.at(t, "data").view = pixels;
  return v;
}

// True once `sub` has a sample (up to `timeout`).
bool wait_for(Subscription& sub, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline)
    if (sub.wait(100ms)) return true;
  return false;
}

class ZeroCopyView : public test::ImageTopicTest {
 protected:
  ZeroCopyView() : ImageTopicTest("zero_copy_view", "/zc/image") {}

  std::unique_ptr<Subscription> subscription(const std::string& topic, uint32_t depth) {
    WireQos q;
    q.depth = depth;
    auto sub = Subscription::create(*node_, *image_t_, topic, nullptr, q);
    EXPECT_TRUE(sub.has_value()) << sub.error().detail;
    return sub ? std::move(*sub) : nullptr;
  }
};

// Child role: publishes the 4K pattern image once on ZC_CHILD_TOPIC as soon as a subscription is
// there, then stays until the file ZC_CHILD_RELEASE exists and exits (the parent checks its view
// again once the publisher is gone).
BATON_CHILD_TEST_F(ZeroCopyView, image_publisher) {
  const std::string topic = test::getenv_or("ZC_CHILD_TOPIC", "");
  ASSERT_FALSE(topic.empty()) << "ZC_CHILD_TOPIC names the topic";
  const std::filesystem::path release = test::getenv_or("ZC_CHILD_RELEASE", "");
  WireQos q;
  q.depth = 1;
  auto pub = Publisher::create(*node_, *image_t_, topic, nullptr, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (pub->shm_subscribers() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_GT(pub->shm_subscribers(), 0u);
  const std::vector<uint8_t> pixels = test::pattern_4k();
  ASSERT_TRUE(pub->publish(image(*image_t_, test::W4K, test::H4K, pixels)).has_value());
  std::printf("published\n");
  std::fflush(stdout);
  while (!std::filesystem::exists(release) && std::chrono::steady_clock::now() < deadline + 60s)
    std::this_thread::sleep_for(20ms);
}

// A 3840x2160 rgb8 image from another process: the view's bytes are the publisher's chunk, as
// this process maps it from /dev/shm — not a copy on the heap — equal to what was published, and
// they stay readable after the publishing process has exited.
TEST_F(ZeroCopyView, image_4k_from_another_process_is_read_in_place_in_its_chunk) {
  auto sub = subscription(topic_, 1);
  ASSERT_NE(sub, nullptr);
  const std::string release = "/tmp/zc_release_" + std::to_string(::getpid());
  std::filesystem::remove(release);
  test::RclpyProcess child(test::RclpyProcess::ChildRole{"image_publisher"},
                           test::Env{{"ZC_CHILD_TOPIC", topic_}, {"ZC_CHILD_RELEASE", release}});
  ASSERT_TRUE(wait_for(*sub, 60s)) << child.output();
  auto s = sub->take_view();
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->from_wire());
  const Value& data = s->value().at(*image_t_, "data");
  ASSERT_TRUE(data.is_view());
  EXPECT_TRUE(data.raw.empty());
  const std::span<const uint8_t> bytes = data.bytes();
  const std::vector<uint8_t> want = test::pattern_4k();
  ASSERT_EQ(bytes.size(), want.size());
  EXPECT_EQ(s->value().at(*image_t_, "width").as<uint32_t>(), test::W4K);

  // In place: `data` is the last field, so its bytes end where the received CDR sample ends, and
  // the sample lies in a mapping of a /dev/shm file (the publisher's pool). A copy would be on
  // the heap (an anonymous mapping) and outside the sample.
  const std::span<const uint8_t> sample = s->shm_bytes();
  ASSERT_FALSE(sample.empty());
  EXPECT_EQ(bytes.data(), sample.data() + sample.size() - bytes.size());
  EXPECT_TRUE(test::in_baton_mapping(bytes.data()));
  EXPECT_TRUE(test::in_baton_mapping(bytes.data() + bytes.size() - 1));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), want.begin()));
  // take() of the same kind of sample would copy: its bytes are owned, outside any shm mapping.
  EXPECT_EQ(sub->malformed(), 0u);

  // The view holds the chunk's loan: valid after the publishing process has gone.
  { std::ofstream(release.c_str()) << "done"; }
  int code = -1;
  ASSERT_TRUE(child.wait_exit(60s, &code)) << child.output();
  EXPECT_EQ(code, 0) << child.output();
  EXPECT_NE(child.output().find("published"), std::string::npos) << child.output();
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), want.begin()));
  std::filesystem::remove(release);
}

// take() copies the same sample out (owned, on the heap), so the two APIs differ where it counts.
TEST_F(ZeroCopyView, take_copies_arrays_and_take_view_does_not) {
  auto sub = subscription(topic_, 4);
  ASSERT_NE(sub, nullptr);
  auto pub = Publisher::create(*node_, *image_t_, topic_, nullptr, WireQos{});
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  const std::vector<uint8_t> pixels(64 * 1024, 0x5a);
  ASSERT_TRUE(pub->publish(image(*image_t_, 128, 170, pixels)).has_value());
  ASSERT_TRUE(pub->publish(image(*image_t_, 128, 170, pixels)).has_value());
  auto copied = sub->take();
  ASSERT_TRUE(copied.has_value());
  const Value& owned = copied->value.at(*image_t_, "data");
  EXPECT_FALSE(owned.is_view());
  EXPECT_EQ(owned.raw, pixels);
  EXPECT_FALSE(test::in_baton_mapping(owned.raw.data()));
  auto viewed = sub->take_view();
  ASSERT_TRUE(viewed.has_value());
  EXPECT_TRUE(viewed->value().at(*image_t_, "data").is_view());
  // Equal content whichever way it was read.
  EXPECT_EQ(copied->value, viewed->value());
}

// While a view lives its chunk is not handed out again however many messages follow; once the
// view is dropped the pool recycles it. Each message has its own fill byte, so a recycled chunk
// would also change the held view's bytes. (The pool hands out the chunk freed last first, so
// the dropped view's chunk comes back once more messages are in flight than other chunks are
// free: the second phase keeps its views.)
TEST_F(ZeroCopyView, chunk_is_not_recycled_while_a_view_holds_it_and_is_after) {
  constexpr uint32_t DEPTH = 8;
  auto sub = subscription(topic_, DEPTH);
  ASSERT_NE(sub, nullptr);
  WireQos q;
  q.depth = DEPTH;
  auto pub = Publisher::create(*node_, *image_t_, topic_, nullptr, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  constexpr size_t BYTES = 64 * 1024;
  auto publish_filled = [&](uint8_t fill) {
    const std::vector<uint8_t> pixels(BYTES, fill);
    ASSERT_TRUE(pub->publish(image(*image_t_, 128, 170, pixels)).has_value());
  };
  auto data_of = [&](const SampleView& s) { return s.value().at(*image_t_, "data").bytes(); };

  publish_filled(1);
  std::optional<SampleView> held = sub->take_view();
  ASSERT_TRUE(held.has_value());
  const uint8_t* held_at = data_of(*held).data();
  // Phase 1, the view held: bursts of DEPTH messages in flight, each taken and dropped.
  for (int burst = 0; burst < 4; ++burst) {
    for (uint32_t i = 0; i < DEPTH; ++i) publish_filled(static_cast<uint8_t>(10 + i));
    for (uint32_t i = 0; i < DEPTH; ++i) {
      auto s = sub->take_view();
      ASSERT_TRUE(s.has_value()) << burst << " " << i;
      EXPECT_NE(data_of(*s).data(), held_at) << "a message reused the chunk of a live view";
      EXPECT_EQ(data_of(*s)[0], static_cast<uint8_t>(10 + i));
    }
  }
  const auto held_bytes = data_of(*held);
  EXPECT_EQ(std::count(held_bytes.begin(), held_bytes.end(), uint8_t{1}),
            static_cast<std::ptrdiff_t>(BYTES));

  // Phase 2, the view dropped: its chunk is free again and serves one of the next messages. The
  // new views are kept, so these two bursts need more chunks than phase 1 left free.
  held.reset();
  bool recycled = false;
  std::vector<SampleView> kept;
  for (int burst = 0; burst < 2; ++burst) {
    for (uint32_t i = 0; i < DEPTH; ++i) publish_filled(static_cast<uint8_t>(100 + i));
    for (uint32_t i = 0; i < DEPTH; ++i) {
      auto s = sub->take_view();
      ASSERT_TRUE(s.has_value());
      recycled = recycled || data_of(*s).data() == held_at;
      kept.push_back(std::move(*s));
    }
  }
  EXPECT_TRUE(recycled) << "the chunk of a dropped view never came back to the pool";
}

// A subscription holds at most MAX_LOANS_PER_SUBSCRIBER views: with all of them alive the next
// sample waits in the ring (take_view() says nothing is there, and logs why once), and arrives as
// soon as one view is dropped. Nothing is lost on the way.
TEST_F(ZeroCopyView, held_views_limit_is_logged_and_the_waiting_sample_arrives_after_a_drop) {
  constexpr uint32_t LIMIT = topic::MAX_LOANS_PER_SUBSCRIBER;
  auto sub = subscription(topic_, LIMIT + 4);
  ASSERT_NE(sub, nullptr);
  WireQos q;
  q.depth = LIMIT + 4;
  auto pub = Publisher::create(*node_, *image_t_, topic_, nullptr, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  for (uint32_t i = 0; i <= LIMIT; ++i) {
    const std::vector<uint8_t> pixels(1024, static_cast<uint8_t>(i));
    ASSERT_TRUE(pub->publish(image(*image_t_, 16, 21, pixels)).has_value());
  }
  std::vector<SampleView> held;
  for (uint32_t i = 0; i < LIMIT; ++i) {
    auto s = sub->take_view();
    ASSERT_TRUE(s.has_value()) << i;
    held.push_back(std::move(*s));
  }
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(sub->take_view().has_value());
  EXPECT_FALSE(sub->take().has_value());
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("samples taken with take_view() are still held"), std::string::npos) << log;
  EXPECT_EQ(log.find("still held", log.find("still held") + 1), std::string::npos)
      << "logged on every poll: " << log;

  held.erase(held.begin());
  auto last = sub->take_view();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->value().at(*image_t_, "data").bytes()[0], static_cast<uint8_t>(LIMIT));
}

// Hand-made samples in shared memory (a raw baton publisher on the same topic) whose `data`
// length points past the sample's end, or over the element limit: each is dropped, counted and
// logged, never viewed; the good sample after them arrives.
TEST_F(ZeroCopyView, corrupt_sequence_length_in_shared_memory_is_dropped_as_malformed) {
  auto sub = subscription(topic_, 16);
  ASSERT_NE(sub, nullptr);
  auto raw = node_->raw_publisher(topic_, type_info(*image_t_)).qos(QoS(16)).create();
  ASSERT_TRUE(raw.has_value()) << raw.error().detail;
  const std::vector<uint8_t> pixels(4096, 0x77);
  auto good = encode(*image_t_, image(*image_t_, 64, 21, pixels));
  ASSERT_TRUE(good.has_value()) << good.error().detail;
  const size_t corrupt = test::publish_corrupt_lengths_then_good(*raw, *good, pixels.size());

  ::testing::internal::CaptureStderr();
  std::optional<SampleView> s;
  ASSERT_TRUE(wait_for(*sub, 10s));
  s = sub->take_view();
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->value().at(*image_t_, "data").is_view());
  EXPECT_EQ(s->value().at(*image_t_, "data").bytes().size(), pixels.size());
  EXPECT_EQ(sub->malformed(), corrupt);
  EXPECT_EQ(sub->from_shm(), 1u);
  EXPECT_NE(log.find("dropped a malformed sensor_msgs/msg/Image sample from shared memory"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("data"), std::string::npos) << log;  // the error names the field
  EXPECT_FALSE(sub->take_view().has_value());
}

// Arrays of 8-byte elements: a Publisher places its samples so that they lie aligned in the
// chunk, so elements<double>() reads them in place; a sample written at the chunk's start (a raw
// publisher, offset 0) has them at 4 mod 8: bytes() still reads them, elements<double>() refuses.
TEST_F(ZeroCopyView, double_arrays_are_aligned_in_place_from_a_ros2_publisher) {
  auto js = registry_.message("sensor_msgs/msg/JointState");
  ASSERT_TRUE(js.has_value()) << js.error().detail;
  const MessageDescription& t = **js;
  WireQos q;
  q.depth = 4;
  auto sub = Subscription::create(*node_, t, topic_, nullptr, q);
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto pub = Publisher::create(*node_, t, topic_, nullptr, q);
  ASSERT_TRUE(pub.has_value()) << pub.error().detail;
  const double position[] = {0.5, -1.25, 3.0, 1e300};
  Value v = default_value(t);
  v.at(t, "position") = Value::of_array(std::span<const double>(position));
  ASSERT_TRUE(pub->publish(v).has_value());
  auto aligned = (*sub)->take_view();
  ASSERT_TRUE(aligned.has_value());
  const Value& p = aligned->value().at(t, "position");
  ASSERT_TRUE(p.is_view());
  EXPECT_TRUE(test::in_baton_mapping(p.bytes().data()));
  const auto doubles = p.elements<double>();
  ASSERT_TRUE(doubles.has_value());
  EXPECT_TRUE(
      std::equal(doubles->begin(), doubles->end(), std::begin(position), std::end(position)));

  auto raw = node_->raw_publisher(topic_, type_info(t)).qos(QoS(4)).create();
  ASSERT_TRUE(raw.has_value()) << raw.error().detail;
  auto cdr = encode(t, v);
  ASSERT_TRUE(cdr.has_value());
  ASSERT_TRUE(raw->publish_copy(cdr->data(), cdr->size()).has_value());  // at offset 0
  auto unaligned = (*sub)->take_view();
  ASSERT_TRUE(unaligned.has_value());
  const Value& u = unaligned->value().at(t, "position");
  ASSERT_TRUE(u.is_view());
  EXPECT_FALSE(u.elements<double>().has_value());
  EXPECT_EQ(u, p);  // the same bytes, read through bytes()
}

// From DDS (a plain Cyclone writer, as any foreign ROS 2 node), take_view() gives a sample that
// owns its bytes: the DDS buffer is gone once the take returns, so nothing may point into it.
TEST_F(ZeroCopyView, sample_from_dds_owns_its_arrays) {
  BATON_REQUIRE_CYCLONEDDS();
  const uint32_t domain = test::domain_id(91);  // this suite's own ROS_DOMAIN_ID
  auto part = DdsParticipant::create(domain, /*localhost_only=*/true);
  ASSERT_TRUE(part.has_value()) << part.error().detail;
  auto sub = Subscription::create(*node_, *image_t_, topic_, &*part, WireQos{});
  ASSERT_TRUE(sub.has_value()) << sub.error().detail;
  auto foreign_part = DdsParticipant::create(domain, true);
  ASSERT_TRUE(foreign_part.has_value()) << foreign_part.error().detail;
  auto writer =
      foreign_part->create_writer(dds_topic_name(topic_), image_t_->dds_type_name(), WireQos{});
  ASSERT_TRUE(writer.has_value()) << writer.error().detail;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (writer->matched_readers() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_GT(writer->matched_readers(), 0u);
  const std::vector<uint8_t> pixels(4096, 0x33);
  auto cdr = encode(*image_t_, image(*image_t_, 64, 21, pixels));
  ASSERT_TRUE(cdr.has_value()) << cdr.error().detail;
  ASSERT_TRUE(writer->write(*cdr).has_value());

  ASSERT_TRUE(wait_for(**sub, 20s));
  auto s = (*sub)->take_view();
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->from_wire());
  EXPECT_TRUE(s->shm_bytes().empty());
  const Value& data = s->value().at(*image_t_, "data");
  EXPECT_FALSE(data.is_view());
  EXPECT_EQ(data.raw, pixels);
}

}  // namespace
}  // namespace baton::ros2
