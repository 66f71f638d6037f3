// Seed 004's chain (para_in -> add_para -> add) as ROS 1 nodes: the roles of one node, written
// once for the C++ client libraries (roscpp_chain.cpp, baton_chain.cpp; rospy_chain.py is the
// same in Python). C++17: the roscpp program cannot be built as C++20.
//
// Protocol, options and logs are bench/stream/stream_roles.hpp's, so bench/suite/stream.py
// starts and reads these programs as it does the stream programs:
//   sender   (para_in)  stream's own sender: HELLO until the receiver is ready, then --per-size
//                       messages at --rate Hz, each logged "seq t_send_ns" just before publish,
//                       then END until the receiver is done
//   relay    (add_para) publishes from inside its subscription callback, value += seq
//   receiver (add)      logs "seq t_recv_ns size" inside its subscription callback
// Unlike the stream programs, a message is handled on the thread the client library calls back
// on (as a ROS node is written), not handed to the main thread first.
//
// Messages (--sizes picks one):
//   --sizes 8         the paper's "two int32 values" as std_msgs/Int32MultiArray data [seq,
//                     value] (Debian ships no two-int32 type; this is the closest std_msgs type)
//   --sizes 24883200  sensor_msgs/Image 3840x2160 rgb8: header.stamp.secs = seq, header.frame_id
//                     = value in decimal, data the image (size = data bytes); not header.seq,
//                     which rospy overwrites with its own count
#pragma once

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/stream/stream_roles.hpp"

namespace baton::bench::seed004 {

namespace st = baton::bench::stream;

inline constexpr std::uint32_t kImageWidth = 3840, kImageHeight = 2160;
inline constexpr std::uint64_t kImageBytes = std::uint64_t{kImageWidth} * kImageHeight * 3;
inline constexpr std::uint64_t kTwoInt32Bytes = 8;

enum class Message { TwoInt32, Image4k };

// What a role needs of a ROS 1 client library: one publisher and / or one subscription.
class Client {
 public:
  // Called on the library's thread, one message at a time: seq, value, size (see above).
  using OnMessage = std::function<void(std::uint32_t, std::uint32_t, std::uint64_t)>;
  virtual ~Client() = default;
  virtual void advertise(const std::string& topic) = 0;
  virtual void subscribe(const std::string& topic, OnMessage on_message) = 0;
  virtual void publish(std::uint32_t seq, std::uint32_t value) = 0;  // exits on an error
  // Written to <sync>/<name>.stats after a sender or receiver finished ("key count" lines).
  virtual std::vector<std::pair<std::string, std::uint64_t>> stats() const { return {}; }
};

inline Message message_of(const st::Options& o) {
  if (o.sizes.size() == 1 && o.sizes[0] == kTwoInt32Bytes) return Message::TwoInt32;
  if (o.sizes.size() == 1 && o.sizes[0] == kImageBytes) return Message::Image4k;
  st::fail("seed 004 nodes send two int32 (--sizes 8) or a 4K image (--sizes 24883200)");
}

// The stream sender drives a Client through stream's Transport (it only advertises and sends).
class SenderTransport final : public st::Transport {
 public:
  explicit SenderTransport(Client& c) : c_(c) {}
  void advertise(const std::string& topic, std::uint64_t) override { c_.advertise(topic); }
  void subscribe(const std::string&, std::uint64_t) override { st::fail("a sender subscribes"); }
  void send(std::uint32_t seq, std::uint32_t value, std::uint64_t) override {
    c_.publish(seq, value);
  }
  bool receive(std::uint32_t*, std::uint32_t*, std::uint64_t*, std::uint64_t) override {
    st::fail("a sender receives");
  }

 private:
  Client& c_;
};

class Roles {
 public:
  Roles(const st::Options& o, Client& c)
      : o_(o), c_(c), deadline_(now_ns() + static_cast<std::uint64_t>(o.timeout_s * 1e9)) {}

  int run() {
    int rc = 0;
    if (o_.role == "sender") {
      SenderTransport t(c_);
      rc = st::Roles(o_, t).run();
    } else if (o_.role == "receiver") {
      rc = receiver();
    } else if (o_.role == "relay") {
      relay();
      return 0;
    } else {
      st::fail("seed 004 nodes are a sender, a relay or a receiver");
    }
    write_stats();
    return rc;
  }

 private:
  // What the receiver's callback shares with its main thread; the callback keeps it alive, as it
  // may still be called (and return at once) while the subscription is being destroyed.
  struct Received {
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<st::Record> log;
    std::uint64_t corrupt = 0;
    bool ready = false, end = false;
  };

  int receiver() {
    auto r = std::make_shared<Received>();
    r->log.reserve(o_.total());
    c_.subscribe(o_.in, [r, &o = o_](std::uint32_t seq, std::uint32_t value, std::uint64_t size) {
      const std::uint64_t t = now_ns();
      std::lock_guard<std::mutex> lock(r->mutex);
      if (r->end) return;
      if (seq == st::kHello) {
        if (!r->ready) st::touch(o, "ready");
        r->ready = true;
        return;
      }
      if (seq == st::kEnd) {
        r->end = true;
        r->wake.notify_all();
        return;
      }
      std::uint32_t expect = st::source_value(seq);
      for (std::uint32_t k = 0; k < o.relays; ++k) expect = st::relayed_value(seq, expect);
      if (seq >= o.total() || value != expect || size != o.size_of(seq)) {
        ++r->corrupt;
        return;
      }
      r->log.push_back({seq, t, size});
    });
    {
      std::unique_lock<std::mutex> lock(r->mutex);
      while (!r->wake.wait_for(lock, std::chrono::milliseconds(200), [&] { return r->end; }))
        check_deadline("waiting for messages");
    }
    // `end` is set: the callback records nothing more, the log is ours.
    st::write_log(o_, "recv", r->log, true);
    if (r->corrupt)
      std::fprintf(stderr, "warning: %s: %llu corrupt messages\n", o_.name.c_str(),
                   static_cast<unsigned long long>(r->corrupt));
    st::touch(o_, "done");
    return r->corrupt ? 2 : 0;
  }

  void relay() {
    c_.advertise(o_.out);
    c_.subscribe(o_.in, [&c = c_](std::uint32_t seq, std::uint32_t value, std::uint64_t) {
      c.publish(seq, seq >= st::kEnd ? value : st::relayed_value(seq, value));
    });
    while (!st::g_stop) {  // until the coordinator's SIGTERM
      st::sleep_ns(100'000'000);
      if (!st::g_stop) check_deadline("relaying");
    }
  }

  void check_deadline(const char* what) {
    if (st::g_stop) st::fail(o_.role + " " + o_.name + ": stopped by a signal while " + what);
    if (now_ns() > deadline_) st::fail(o_.role + " " + o_.name + ": timed out " + what);
    if (getppid() == 1) std::_Exit(1);  // the coordinator is gone
  }

  void write_stats() const {
    const auto stats = c_.stats();
    if (stats.empty()) return;
    const std::string path = o_.sync + "/" + o_.name + ".stats";
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) st::fail("cannot write " + path);
    for (const auto& [key, n] : stats)
      std::fprintf(f, "%s %llu\n", key.c_str(), static_cast<unsigned long long>(n));
    std::fclose(f);
  }

  const st::Options& o_;
  Client& c_;
  const std::uint64_t deadline_;
};

}  // namespace baton::bench::seed004
