// C++ ping-pong through rcl, the layer under rclcpp (issue 22's benchmark), two processes, on
// whatever RMW RMW_IMPLEMENTATION names (rmw_fastrtps_cpp, or rmw_baton_cpp preloaded):
//
//   pong: takes every message on <topic>/ping and publishes one back on <topic>/pong;
//   ping: publishes one message (sequence number = its index), waits for its reply on
//         <topic>/pong, and records the round trip; one-way latency = round trip / 2.
//
// --message image (default): sensor_msgs::msg::Image with its C++ type support
//   (rosidl_typesupport_cpp), taken into and published from an ordinary C++ message
//   (std::vector data): a copy on each side, as in rclcpp without loans. pong publishes the
//   message it took.
// --message fixed: baton_bench_msgs::msg::Fixed64 / 64k / 4m / 4k (bench/ros2/msg: a stamp, a
//   sequence number and a fixed uint8 array of the size), published and taken as owned messages.
// --message fixed --loans: the same types through rcl's loans, as rclcpp's borrow_loaned_message()
//   and loaned takes do: ping borrows a message, writes its sequence number and publishes the loan;
//   pong takes the loan, reads the sequence number in place, returns it, and publishes a new loan
//   with that number (as native baton's ping-pong: nothing copies the payload). Fails unless the
//   RMW lends both endpoints' messages (rmw_baton_cpp; rmw_fastrtps_cpp with data-sharing).
//
// Each side waits until both of its endpoints have matched the other side, and ping then sends
// handshakes until one comes back (HANDSHAKE below), so discovery is never timed. Reliable, keep
// last 1, volatile: what a request / reply pair of rclcpp nodes would use.
//
//   baton-bench-rcl-pingpong --role ping|pong --size 64|64k|4m|4k --topic T
//                            [--message image|fixed] [--loans 0|1]
//                            [--runs N] [--warmup W] [--raw FILE] [--timeout S]
// ping writes one one-way latency in microseconds per line to --raw; both exit 0 on success.
#include <sys/prctl.h>

#include <baton_bench_msgs/msg/fixed4k.hpp>
#include <baton_bench_msgs/msg/fixed4m.hpp>
#include <baton_bench_msgs/msg/fixed64.hpp>
#include <baton_bench_msgs/msg/fixed64k.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <rosidl_typesupport_cpp/message_type_support.hpp>
#include <sensor_msgs/msg/image.hpp>
#include <string>
#include <thread>
#include <vector>

#include "rcl_node.hpp"

namespace {

namespace rcl = baton::bench::rcl;
using Clock = rcl::Clock;
using Image = sensor_msgs::msg::Image;

struct Args {
  std::string role, size, topic, raw, message = "image";
  bool loans = false;
  int runs = 1000, warmup = 100;
  double timeout_s = 30;
};

// The Image of a size name: data bytes and the shape a camera would give them.
bool shape_image(const std::string& size, Image& img) {
  uint32_t width = 0, height = 0, channels = 1;
  if (size == "64") {
    width = 64, height = 1;
  } else if (size == "64k") {
    width = 256, height = 256;
  } else if (size == "4m") {
    width = 2048, height = 2048;
  } else if (size == "4k") {
    width = 3840, height = 2160, channels = 3;
  } else {
    return false;
  }
  img.width = width;
  img.height = height;
  img.encoding = channels == 3 ? "rgb8" : "mono8";
  img.step = width * channels;
  img.data.assign(static_cast<size_t>(img.step) * height, 0);
  for (size_t i = 0; i < img.data.size(); i += 4096) img.data[i] = static_cast<uint8_t>(i >> 12);
  return true;
}

// What the ping-pong needs of a message type: a filled message to publish, its sequence number
// and its payload size.
template <typename Msg>
struct Traits;
template <>
struct Traits<Image> {
  static std::unique_ptr<Image> make(const std::string& size) {
    auto m = std::make_unique<Image>();
    shape_image(size, *m);
    return m;
  }
  static int64_t seq(const Image& m) { return m.header.stamp.sec; }
  static void set_seq(Image& m, int64_t i) { m.header.stamp.sec = static_cast<int32_t>(i); }
  static size_t bytes(const Image& m) { return m.data.size(); }
};
template <typename Fixed>
struct FixedTraits {
  static std::unique_ptr<Fixed> make(const std::string&) {
    auto m = std::make_unique<Fixed>();
    for (size_t i = 0; i < m->data.size(); i += 4096) m->data[i] = static_cast<uint8_t>(i >> 12);
    return m;
  }
  static int64_t seq(const Fixed& m) { return static_cast<int64_t>(m.seq); }
  static void set_seq(Fixed& m, int64_t i) {
    m.seq = static_cast<uint64_t>(i);
    m.stamp.sec = static_cast<int32_t>(i);
  }
  static size_t bytes(const Fixed& m) { return m.data.size(); }
};
template <>
struct Traits<baton_bench_msgs::msg::Fixed64> : FixedTraits<baton_bench_msgs::msg::Fixed64> {};
template <>
struct Traits<baton_bench_msgs::msg::Fixed64k> : FixedTraits<baton_bench_msgs::msg::Fixed64k> {};
template <>
struct Traits<baton_bench_msgs::msg::Fixed4m> : FixedTraits<baton_bench_msgs::msg::Fixed4m> {};
template <>
struct Traits<baton_bench_msgs::msg::Fixed4k> : FixedTraits<baton_bench_msgs::msg::Fixed4k> {};

// The ping or the pong side: one node publishing on `out_topic` and taking from `in_topic`, with
// owned messages or loans.
template <typename Msg>
class Side {
 public:
  Side(const char* name, const std::string& out_topic, const std::string& in_topic, bool loans)
      : node_(name),
        pub_(node_, ts(), out_topic, rcl::reliable_qos(1)),
        sub_(node_, ts(), in_topic, rcl::reliable_qos(1), loans),
        loans_(loans) {
    if (loans && !(pub_.can_loan() && sub_.can_loan())) {
      std::fprintf(stderr,
                   "baton-bench-rcl-pingpong: %s lends no messages of this type (publisher %d, "
                   "subscription %d): the loan row cannot run on it\n",
                   node_.rmw(), pub_.can_loan(), sub_.can_loan());
      std::_Exit(1);
    }
  }
  // Both sides' endpoints matched: discovery is never timed.
  void await_match(double timeout_s) {
    rcl::await([&] { return pub_.subscribers() > 0 && sub_.publishers() > 0; }, timeout_s,
               "baton-bench-rcl-pingpong: no peer matched");
  }
  // Publishes message `i`: `owned` (its sequence number set to i), or a new loan.
  void send(Msg& owned, int64_t i) {
    if (!loans_) {
      Traits<Msg>::set_seq(owned, i);
      pub_.publish(&owned);
      return;
    }
    auto* m = static_cast<Msg*>(pub_.borrow());
    Traits<Msg>::set_seq(*m, i);
    pub_.publish_loaned(m);
  }
  // What receive() took: its sequence number and payload bytes.
  struct Got {
    int64_t seq = 0;
    size_t bytes = 0;
  };
  // Takes one message (into `owned`, or as a loan read in place and returned) into `got`; false
  // on timeout.
  bool receive(Msg& owned, std::chrono::nanoseconds wait, Got& got) {
    if (!loans_) {
      if (!sub_.take(&owned, wait)) return false;
      got = {Traits<Msg>::seq(owned), Traits<Msg>::bytes(owned)};
      return true;
    }
    const auto* m = static_cast<const Msg*>(sub_.take_loaned(wait));
    if (m == nullptr) return false;
    got = {Traits<Msg>::seq(*m), Traits<Msg>::bytes(*m)};
    sub_.return_loan(m);
    return true;
  }
  // Whether the reply publisher still has its subscriber (ping has not left yet).
  bool peer_present() { return pub_.subscribers() > 0; }

 private:
  static const rosidl_message_type_support_t* ts() {
    return rosidl_typesupport_cpp::get_message_type_support_handle<Msg>();
  }
  rcl::Node node_;
  rcl::Publisher pub_;
  rcl::Subscription sub_;
  bool loans_;
};

// The handshake before the timed runs: ping sends HANDSHAKE every 200 ms until one comes back.
// Matching is not enough: Fast DDS's data-sharing lost the first sample after both ends had
// matched (in 2 of 3 runs at 64 KiB without loans), and a ping-pong that waits for its one
// reply would then wait forever. Discovery and that start-up are never timed.
constexpr int64_t HANDSHAKE = -1;

template <typename Msg>
int ping(const Args& a) {
  Side<Msg> side("rcl_ping", a.topic + "/ping", a.topic + "/pong", a.loans);
  auto out = Traits<Msg>::make(a.size);
  auto back = std::make_unique<Msg>();
  const size_t bytes = Traits<Msg>::bytes(*out);
  side.await_match(a.timeout_s);
  const auto start_deadline = Clock::now() + rcl::seconds(a.timeout_s);
  for (bool answered = false; !answered;) {
    if (Clock::now() > start_deadline) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: no handshake reply in %.0f s\n", a.timeout_s);
      return 1;
    }
    side.send(*out, HANDSHAKE);
    typename Side<Msg>::Got got;
    answered = side.receive(*back, std::chrono::milliseconds(200), got) && got.seq == HANDSHAKE;
  }
  std::vector<double> one_way_us;
  one_way_us.reserve(static_cast<size_t>(a.runs));
  const auto wait = rcl::seconds(a.timeout_s);
  for (int i = 0; i < a.warmup + a.runs; ++i) {
    const auto t0 = Clock::now();
    side.send(*out, i);
    typename Side<Msg>::Got got;
    bool took = side.receive(*back, wait, got);
    while (took && got.seq == HANDSHAKE) took = side.receive(*back, wait, got);  // a late answer
    const auto t1 = Clock::now();
    if (!took) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: ping %d got no reply in %.0f s\n", i,
                   a.timeout_s);
      return 1;
    }
    if (got.seq != i || got.bytes != bytes) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: reply %d is seq %lld with %zu bytes\n", i,
                   static_cast<long long>(got.seq), got.bytes);
      return 1;
    }
    if (i >= a.warmup)
      one_way_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  std::ofstream raw(a.raw);
  for (double v : one_way_us) raw << v << "\n";
  return raw ? 0 : 1;
}

// Answers every message (handshakes included) until ping leaves; fails after `timeout_s` with
// neither a message nor ping's leaving.
template <typename Msg>
int pong(const Args& a) {
  Side<Msg> side("rcl_pong", a.topic + "/pong", a.topic + "/ping", a.loans);
  auto msg = std::make_unique<Msg>();
  side.await_match(a.timeout_s);
  int answered = 0;
  auto idle_since = Clock::now();
  // Ping leaves once it has taken the last reply (a reliable writer that is destroyed drops
  // what it has not sent, so pong stays until then).
  while (side.peer_present()) {
    typename Side<Msg>::Got got;
    if (side.receive(*msg, std::chrono::milliseconds(100), got)) {
      side.send(*msg, got.seq);  // owned: the message just taken, as it came
      ++answered;
      idle_since = Clock::now();
    } else if (Clock::now() - idle_since > rcl::seconds(a.timeout_s)) {
      std::fprintf(stderr, "baton-bench-rcl-pingpong: pong got no ping in %.0f s\n", a.timeout_s);
      return 1;
    }
  }
  return answered >= a.warmup + a.runs ? 0 : 1;
}

template <typename Msg>
int run(const Args& a) {
  return a.role == "ping" ? ping<Msg>(a) : pong<Msg>(a);
}

// The fixed-size type of a size name.
int run_fixed(const Args& a) {
  if (a.size == "64") return run<baton_bench_msgs::msg::Fixed64>(a);
  if (a.size == "64k") return run<baton_bench_msgs::msg::Fixed64k>(a);
  if (a.size == "4m") return run<baton_bench_msgs::msg::Fixed4m>(a);
  return run<baton_bench_msgs::msg::Fixed4k>(a);
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --role ping|pong --size 64|64k|4m|4k --topic T [--message image|fixed] "
               "[--loans 0|1] [--runs N] [--warmup W] [--raw FILE] [--timeout S]\n"
               "(--loans 1 needs --message fixed)\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the runner
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--role")
      a.role = v;
    else if (k == "--size")
      a.size = v;
    else if (k == "--topic")
      a.topic = v;
    else if (k == "--message")
      a.message = v;
    else if (k == "--loans")
      a.loans = v == "1";
    else if (k == "--raw")
      a.raw = v;
    else if (k == "--runs")
      a.runs = std::atoi(v.c_str());
    else if (k == "--warmup")
      a.warmup = std::atoi(v.c_str());
    else if (k == "--timeout")
      a.timeout_s = std::atof(v.c_str());
    else
      return usage(argv[0]);
  }
  Image probe;
  const bool fixed = a.message == "fixed";
  if (argc % 2 == 0 || a.topic.empty() || a.runs <= 0 || a.warmup < 0 ||
      !shape_image(a.size, probe) || (a.role == "ping" && a.raw.empty()) ||
      (a.role != "ping" && a.role != "pong") || (!fixed && a.message != "image") ||
      (a.loans && !fixed))
    return usage(argv[0]);
  return fixed ? run_fixed(a) : run<Image>(a);
}
