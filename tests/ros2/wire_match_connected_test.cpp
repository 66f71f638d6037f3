// DdsRawReader::matched_writers() counts a writer only once CycloneDDS has connected it to the
// reader (src/ros2/dds_wire.cpp, sync point "match-connected"). Cyclone raises the match before
// it connects the writer's receive side and finishes matching the writer with every local reader;
// data arriving meanwhile is dropped, and for a non-Cyclone writer (Fast DDS) the first heartbeat
// Cyclone accepts afterwards makes a volatile reader skip it for good. A peer that publishes as
// soon as both sides say "matched" then lost its first samples (once in CI: "rclpy 0" in
// WireNative.rclpy_and_baton_publishers_to_baton_subscription_each_message_once).
//
// Here a second reader of the topic, in a participant that Cyclone matches after ours, holds
// Cyclone's matching of rclpy's writer in its listener: our reader's match is raised, but the
// writer is not connected until the hold ends. The reader must not count the writer meanwhile,
// and once it does, rclpy's first sample arrives. A second test holds the reader's own listener
// calls: a writer Cyclone already lists as matched must not count before its listener call ran.
#include <dds/dds.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "../../src/ros2/dds_wire.hpp"
#include "rclpy_process.hpp"
#include "ros2_test_env.hpp"
#include "test_util.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;
using baton::testing::eventually;

const uint32_t DOMAIN_ID = test::domain_id(79);  // this suite's own ROS_DOMAIN_ID
constexpr int N = 20;

// std_msgs/String for a plain Cyclone reader: one string member, no keys.
struct StringMsg {
  char* data;
};
const uint32_t kStringOps[] = {uint32_t{DDS_OP_ADR} | uint32_t{DDS_OP_TYPE_STR},
                               offsetof(StringMsg, data), DDS_OP_RTS};
const dds_topic_descriptor_t kStringDesc = {sizeof(StringMsg),
                                            alignof(StringMsg),
                                            0u,
                                            0u,
                                            "std_msgs::msg::dds_::String_",
                                            nullptr,
                                            2u,
                                            kStringOps,
                                            "",
                                            {nullptr, 0},
                                            {nullptr, 0},
                                            0u};

// Cyclone orders the local readers it matches with a new remote writer by GUID as it holds it:
// four host-order (here little-endian) words compared bytewise. dds_get_guid gives network order.
std::array<uint8_t, 16> cyclone_match_order(const std::array<uint8_t, 16>& network_guid) {
  std::array<uint8_t, 16> key{};
  for (size_t w = 0; w < 4; ++w)
    for (size_t b = 0; b < 4; ++b) key[4 * w + b] = network_guid[4 * w + 3 - b];
  return key;
}

// std_msgs/String's data from little-endian CDR: header (4), length with the NUL (4), characters.
std::string string_of(const std::vector<uint8_t>& cdr) {
  if (cdr.size() < 8 || cdr[1] != 0x01) return "<not little-endian CDR>";
  const uint32_t len = cdr[4] | cdr[5] << 8 | cdr[6] << 16 | static_cast<uint32_t>(cdr[7]) << 24;
  if (len == 0 || len > cdr.size() - 8) return "<bad length>";
  return std::string(cdr.begin() + 8, cdr.begin() + 8 + (len - 1));
}

// A reader whose subscription-matched listener holds Cyclone's matching thread until released.
class MatchHold {
 public:
  ~MatchHold() {
    release();
    if (participant_ > 0) dds_delete(participant_);  // after release: the listener returns
  }
  // Made in a fresh participant until Cyclone matches it after `after` (GUID, network order).
  bool create(const std::string& dds_topic, const std::array<uint8_t, 16>& after) {
    for (int attempt = 0; attempt < 64; ++attempt) {
      dds_entity_t pp = dds_create_participant(DOMAIN_ID, nullptr, nullptr);
      if (pp < 0) return false;
      dds_entity_t topic = dds_create_topic(pp, &kStringDesc, dds_topic.c_str(), nullptr, nullptr);
      dds_listener_t* l = dds_create_listener(this);
      dds_lset_subscription_matched(l, &MatchHold::on_matched);
      dds_entity_t rd = topic > 0 ? dds_create_reader(pp, topic, nullptr, l) : topic;
      dds_delete_listener(l);
      dds_guid_t g{};
      std::array<uint8_t, 16> mine{};
      if (rd > 0 && dds_get_guid(rd, &g) == DDS_RETCODE_OK)
        std::copy(std::begin(g.v), std::end(g.v), mine.begin());
      if (rd > 0 && cyclone_match_order(mine) > cyclone_match_order(after)) {
        participant_ = pp;
        return true;
      }
      dds_delete(pp);
      if (rd < 0) return false;
    }
    return false;
  }
  bool wait_held(std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return held_; });
  }
  void release() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  static void on_matched(dds_entity_t, const dds_subscription_matched_status_t st, void* arg) {
    if (st.current_count_change <= 0) return;
    auto* self = static_cast<MatchHold*>(arg);
    std::unique_lock lock(self->mu_);
    self->held_ = true;
    self->cv_.notify_all();
    self->cv_.wait_for(lock, 60s, [&] { return self->open_; });  // bounded: a failing test ends
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false, open_ = false;
  dds_entity_t participant_ = 0;
};

TEST(WireMatchConnected, reader_counts_a_fast_dds_writer_once_connected_and_gets_its_first_sample) {
  BATON_REQUIRE_CYCLONEDDS();
  BATON_REQUIRE_ROS_VENV();
  auto dp = DdsParticipant::create(DOMAIN_ID, /*localhost_only=*/true);
  ASSERT_TRUE(dp.has_value()) << dp.error().detail;
  static int run = 0;  // --gtest_repeat: a fresh topic each time
  const std::string ros_topic =
      "/match_connected_" + std::to_string(::getpid()) + "_" + std::to_string(run++);
  const std::string dds_topic = dds_topic_name(ros_topic);
  WireQos q;
  q.depth = 100;
  auto reader = dp->create_reader(dds_topic, "std_msgs::msg::dds_::String_", q);
  ASSERT_TRUE(reader.has_value()) << reader.error().detail;
  MatchHold hold;
  ASSERT_TRUE(hold.create(dds_topic, reader->guid()));

  // Fast DDS's side matches both readers; Cyclone's side is held right after ours matched.
  test::RclpyProcess rclpy("rclpy_native_peer.py",
                           {"talk", ros_topic, std::to_string(N), "60", "subs=2", "gated"},
                           test::Env{{"ROS_DOMAIN_ID", std::to_string(DOMAIN_ID)},
                                     {"ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"}});
  ASSERT_TRUE(hold.wait_held(60s)) << rclpy.output();
  ASSERT_TRUE(rclpy.wait_for_output("matched", 60s)) << rclpy.output();
  // As an application would: publish once both sides count the match. While the hold lasts the
  // writer is not connected, so a count now is too early; only then does the hold end here.
  const uint32_t counted_while_held = reader->matched_writers();
  const uint32_t foreign_while_held = reader->matched_foreign_writers();
  if (counted_while_held == 0) hold.release();
  ASSERT_TRUE(eventually([&] { return reader->matched_writers() == 1; }, 60s));
  EXPECT_EQ(reader->matched_foreign_writers(), 1u);
  ASSERT_TRUE(rclpy.send_line("go"));
  ASSERT_TRUE(rclpy.wait_for_output("sent " + std::to_string(N), 60s)) << rclpy.output();
  hold.release();
  EXPECT_EQ(counted_while_held, 0u) << "counted before Cyclone connected the writer";
  EXPECT_EQ(foreign_while_held, 0u);
  std::set<std::string> got;
  eventually(
      [&] {
        while (auto cdr = reader->take(0ms)) got.insert(string_of(*cdr));
        return got.size() >= static_cast<size_t>(N);
      },
      60s);
  EXPECT_EQ(got.size(), static_cast<size_t>(N)) << rclpy.output();
  EXPECT_EQ(got.count("rclpy 0"), 1u) << rclpy.output();
}

// Cyclone lists a new writer among the reader's matches (and releases the reader's lock) before it
// calls the reader's subscription-matched listener, and that call waits while another listener
// call of the reader runs. A count in between saw the writer in Cyclone's list with nothing noted
// about it and counted it, not yet connected (WireNative's exactly-once test once saw 2 writers,
// then 1). Here the reader's data-available callback holds the reader's listener calls while a
// second writer matches: it must not count until its listener call ran.
TEST(WireMatchConnected, writer_not_counted_before_its_match_listener_ran) {
  BATON_REQUIRE_CYCLONEDDS();
  auto dp = DdsParticipant::create(DOMAIN_ID, /*localhost_only=*/true);
  ASSERT_TRUE(dp.has_value()) << dp.error().detail;
  const std::string dds_topic = dds_topic_name("/listener_order_" + std::to_string(::getpid()));
  WireQos q;
  q.depth = 10;
  auto reader = dp->create_reader(dds_topic, "std_msgs::msg::dds_::String_", q);
  ASSERT_TRUE(reader.has_value()) << reader.error().detail;
  std::mutex mu;
  std::condition_variable cv;
  bool holding = false, open = false;
  reader->on_data_available([&] {
    std::unique_lock lock(mu);
    holding = true;
    cv.notify_all();
    cv.wait_for(lock, 60s, [&] { return open; });  // bounded: a failing test ends
  });
  auto release = [&] {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  };

  // Plain Cyclone writers of this process, each in its own participant (the wire's reader
  // ignores only its own participant's writers).
  auto plain_writer = [&] {
    const dds_entity_t pp = dds_create_participant(DOMAIN_ID, nullptr, nullptr);
    const dds_entity_t t = dds_create_topic(pp, &kStringDesc, dds_topic.c_str(), nullptr, nullptr);
    return std::pair{pp, t > 0 ? dds_create_writer(pp, t, nullptr, nullptr) : t};
  };
  auto [pp1, w1] = plain_writer();
  ASSERT_GT(w1, 0);
  ASSERT_TRUE(eventually([&] { return reader->matched_writers() == 1; }, 60s));
  // The first writer's sample: its delivery runs the data-available callback, which holds.
  std::thread writing([&] {
    StringMsg m{const_cast<char*>("held")};
    dds_write(w1, &m);
  });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 60s, [&] { return holding; }));
  }
  // The second writer: Cyclone lists it among the reader's matches, and its listener call waits.
  dds_entity_t pp2 = 0, w2 = 0;
  std::thread matching([&] { std::tie(pp2, w2) = plain_writer(); });
  const bool listed =
      eventually([&] { return reader->matched_writer_endpoints().size() == 2; }, 60s);
  const uint32_t counted_while_held = reader->matched_writers();
  release();
  writing.join();
  matching.join();
  ASSERT_TRUE(listed);
  EXPECT_EQ(counted_while_held, 1u) << "counted before its match listener ran";
  EXPECT_TRUE(eventually([&] { return reader->matched_writers() == 2; }, 60s));
  dds_delete(pp1);
  dds_delete(pp2);
}

}  // namespace
}  // namespace baton::ros2
