// The open-loop "stream" protocol of bench/suite's scenarios A, B, D, seed 004's chain and the
// subscriber sweep, written once for every C++ system (baton, CycloneDDS, iceoryx, roscpp).
// bench/peers/iceoryx2_pingpong/src/stream.rs and bench/suite/py_stream.py implement the same
// protocol for iceoryx2 and rclpy / rospy; bench/suite/stream.py starts the roles and reads
// their logs. Each process plays one role:
//
//   sender    publishes --per-size messages of each of --sizes on --out, at --rate Hz
//             (0: without pause), logs "seq t_send_ns" per message
//   receiver  takes from --in, logs "seq t_recv_ns size" per message
//   relay     takes from --in and publishes the same size on --out (seed 004's add_para,
//             scenario D's echo side); runs until killed
//   pinger    scenario D's first node: publishes on --out at --rate Hz unless more than
//             --watermark of its messages are unanswered (then the tick is skipped), takes the
//             answers from --in; logs sends and answers (RTT = answer - send)
//
// Every message starts with {uint32 seq, uint32 value} (8 bytes: exactly seed 004's two-int32
// message); the rest of the payload is left as the transport hands it out. value = seq ^ KEY at
// the source, and every relay adds seq, so a receiver checks integrity without trusting sizes.
// Start: a sender repeats HELLO every 10 ms until --wait-ready files "ready.*" exist in --sync
// (a receiver creates ready.<name> on its first HELLO; a pinger once its own HELLO came back),
// so every subscription is matched before the first timed message, whatever discovery does.
// End: the sender repeats END every 20 ms until --wait-done files "done.*" exist (a receiver
// writes its log, then done.<name>, on END), then exits. Times are CLOCK_MONOTONIC: all roles
// run on one machine, so t_recv - t_send is the one-way latency the seed 003 paper measures
// (it stored the send time in the message; here it stays in the sender's log).
#pragma once

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"  // split(), pp::parse_u64(): one command-line syntax

namespace baton::bench::stream {

namespace pp = baton::bench::pp;

inline constexpr std::uint32_t kHello = 0xFFFFFFFFu;
inline constexpr std::uint32_t kEnd = 0xFFFFFFFEu;
inline constexpr std::uint32_t kKey = 0x5A5A5A5Au;
inline constexpr std::uint64_t kHeaderBytes = 8;

// Set by SIGTERM / SIGINT: the coordinator stops relays this way once a run is over, and they
// return normally so their middleware cleans up (baton segments, iceoryx runtime files).
inline volatile sig_atomic_t g_stop = 0;

[[noreturn]] inline void fail(const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

// What a role needs from a middleware: one publisher and / or one subscription per process.
class Transport {
 public:
  virtual ~Transport() = default;
  // Creates the publisher for messages of up to `max_size` bytes, history `depth`.
  virtual void advertise(const std::string& topic, std::uint64_t max_size) = 0;
  // Creates the subscription (history `depth`) in the transport's wait mode.
  virtual void subscribe(const std::string& topic, std::uint64_t max_size) = 0;
  // Publishes `size` bytes that begin with {seq, value}; fails (exits) on an error.
  virtual void send(std::uint32_t seq, std::uint32_t value, std::uint64_t size) = 0;
  // Takes the next message if one arrives within `timeout_ns`; false on timeout. `size` is the
  // payload size as received (>= kHeaderBytes, checked by the transport).
  virtual bool receive(std::uint32_t* seq, std::uint32_t* value, std::uint64_t* size,
                       std::uint64_t timeout_ns) = 0;
  // Whether send() honours --fill; a transport that does not is refused, never measured as if.
  virtual bool fills() const { return false; }
};

struct Options {
  std::string role;
  std::string out, in;
  std::vector<std::uint64_t> sizes = {64};
  std::uint64_t per_size = 100;
  double rate = 0;  // Hz; 0 = no pause
  std::uint64_t watermark = 0;
  std::uint32_t depth = 64;
  std::uint32_t relays = 0;       // relays between the source and this receiver
  std::uint64_t subscribers = 1;  // per topic: sizes preallocating services (iceoryx2's)
  std::string mode = "blocking";
  std::string sync;  // directory for ready / done files and logs
  std::string name;
  std::uint64_t wait_ready = 1, wait_done = 1;
  double timeout_s = 120;
  int cpu = -1;
  std::string domain = "0";
  // Sender: write every payload byte of each message, as a camera filling its frame does, so
  // the pages a stream really cycles through are resident (the memory cell, issue 20).
  bool fill = false;
  std::uint64_t max_size() const { return *std::max_element(sizes.begin(), sizes.end()); }
  std::uint64_t total() const { return per_size * sizes.size(); }
  std::uint64_t size_of(std::uint64_t seq) const { return sizes[seq / per_size]; }
};

inline void print_help(const char* program, const char* system) {
  std::printf(
      "usage: %s --role sender|receiver|relay|pinger [options]\n\n"
      "One role of bench/suite's open-loop scenarios over %s (see bench/stream/stream_roles.hpp;\n"
      "bench/suite/stream.py starts the roles and reads their logs).\n\n"
      "  --out TOPIC / --in TOPIC   topic published / subscribed\n"
      "  --sizes LIST               payload bytes, each for --per-size messages (K/M suffixes)\n"
      "  --per-size N               messages per size (default 100)\n"
      "  --rate HZ                  send rate; 0 = without pause (default)\n"
      "  --watermark W              pinger: skip a tick while > W messages are unanswered\n"
      "  --depth D                  history depth of publisher and subscription (default 64)\n"
      "  --relays K                 receiver: relays between source and receiver (checks value)\n"
      "  --subscribers N            subscribers per topic (unused here; iceoryx2 sizes by it)\n"
      "  --mode blocking|busy-poll  how the subscription waits (default blocking)\n"
      "  --sync DIR --name NAME     ready / done files and logs (<DIR>/<NAME>.send|.recv)\n"
      "  --wait-ready N             sender / pinger: start once N ready.* files exist\n"
      "  --wait-done N              sender: stop repeating END once N done.* files exist\n"
      "  --timeout S                give up after S seconds (default 120)\n"
      "  --cpu C                    pin to CPU C (default: not pinned)\n"
      "  --domain ID                DDS domain id (DDS systems only)\n"
      "  --fill 0|1                 sender: write every payload byte (baton and iceoryx2 only)\n",
      program, system);
}

inline Options parse_options(int argc, char** argv, const char* program, const char* system) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail("option " + key + " needs a value (see --help)");
      return argv[++i];
    };
    if (key == "--help" || key == "-h") {
      print_help(program, system);
      std::exit(0);
    } else if (key == "--role") {
      o.role = value();
    } else if (key == "--out") {
      o.out = value();
    } else if (key == "--in") {
      o.in = value();
    } else if (key == "--sizes") {
      o.sizes.clear();
      for (const auto& s : pp::split(value(), ',')) o.sizes.push_back(pp::parse_u64(s, "size"));
    } else if (key == "--per-size") {
      o.per_size = pp::parse_u64(value(), "--per-size");
    } else if (key == "--rate") {
      o.rate = std::atof(value().c_str());
    } else if (key == "--watermark") {
      o.watermark = pp::parse_u64(value(), "--watermark");
    } else if (key == "--depth") {
      o.depth = static_cast<std::uint32_t>(pp::parse_u64(value(), "--depth"));
    } else if (key == "--relays") {
      o.relays = static_cast<std::uint32_t>(pp::parse_u64(value(), "--relays"));
    } else if (key == "--subscribers") {
      o.subscribers = pp::parse_u64(value(), "--subscribers");
    } else if (key == "--mode") {
      o.mode = value();
    } else if (key == "--sync") {
      o.sync = value();
    } else if (key == "--name") {
      o.name = value();
    } else if (key == "--fill") {
      o.fill = pp::parse_u64(value(), "--fill") != 0;
    } else if (key == "--wait-ready") {
      o.wait_ready = pp::parse_u64(value(), "--wait-ready");
    } else if (key == "--wait-done") {
      o.wait_done = pp::parse_u64(value(), "--wait-done");
    } else if (key == "--timeout") {
      o.timeout_s = std::atof(value().c_str());
    } else if (key == "--cpu") {
      o.cpu = std::atoi(value().c_str());
    } else if (key == "--domain") {
      o.domain = value();
    } else {
      fail("unknown option '" + key + "' (see --help)");
    }
  }
  if (o.role != "sender" && o.role != "receiver" && o.role != "relay" && o.role != "pinger")
    fail("--role must be sender, receiver, relay or pinger");
  if (o.mode != "blocking" && o.mode != "busy-poll") fail("--mode must be blocking or busy-poll");
  if (o.sizes.empty() || o.per_size == 0) fail("--sizes and --per-size must not be empty / 0");
  for (auto s : o.sizes)
    if (s < kHeaderBytes) fail("sizes must be >= 8 bytes (the {seq, value} header)");
  if (o.total() >= kEnd) fail("too many messages");
  if (o.depth == 0) fail("--depth must be > 0");
  if (o.sync.empty() || o.name.empty()) fail("--sync DIR and --name NAME are required");
  if ((o.role == "sender" || o.role == "relay" || o.role == "pinger") && o.out.empty())
    fail("--out TOPIC is required for role " + o.role);
  if ((o.role != "sender") && o.in.empty()) fail("--in TOPIC is required for role " + o.role);
  return o;
}

inline std::uint32_t source_value(std::uint32_t seq) { return seq ^ kKey; }
inline std::uint32_t relayed_value(std::uint32_t seq, std::uint32_t value) { return value + seq; }

// Counts the files in `dir` whose names start with `prefix`.
inline std::uint64_t count_files(const std::string& dir, const char* prefix) {
  std::uint64_t n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix, std::strlen(prefix)) == 0) ++n;
    closedir(d);
  }
  return n;
}

inline void touch(const Options& o, const char* what) {
  std::string path = o.sync + "/" + what + "." + o.name;
  if (FILE* f = std::fopen(path.c_str(), "w"))
    std::fclose(f);
  else
    fail("cannot create " + path);
}

inline void sleep_ns(std::uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

inline void sleep_until_ns(std::uint64_t t) {
  timespec ts{static_cast<time_t>(t / 1000000000ull), static_cast<long>(t % 1000000000ull)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

struct Record {
  std::uint32_t seq;
  std::uint64_t t_ns;
  std::uint64_t size;
};

// Logs are written once, at the end, so the timed loop never touches the file system.
inline void write_log(const Options& o, const char* ext, const std::vector<Record>& log,
                      bool with_size) {
  std::string path = o.sync + "/" + o.name + "." + ext;
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) fail("cannot write " + path);
  for (const auto& r : log) {
    if (with_size)
      std::fprintf(f, "%u %llu %llu\n", r.seq, static_cast<unsigned long long>(r.t_ns),
                   static_cast<unsigned long long>(r.size));
    else
      std::fprintf(f, "%u %llu\n", r.seq, static_cast<unsigned long long>(r.t_ns));
  }
  std::fclose(f);
}

class Roles {
 public:
  Roles(const Options& o, Transport& t) : o_(o), t_(t) {
    deadline_ = now_ns() + static_cast<std::uint64_t>(o.timeout_s * 1e9);
  }

  int run() {
    if (o_.fill && !t_.fills()) fail("--fill is not implemented for this system");
    if (o_.role == "sender") return sender();
    if (o_.role == "receiver") return receiver();
    if (o_.role == "relay") return relay();
    return pinger();
  }

 private:
  void check_deadline(const char* what) {
    if (g_stop) fail(o_.role + " " + o_.name + ": stopped by a signal while " + what);
    if (now_ns() > deadline_) fail(std::string(o_.role) + " " + o_.name + ": timed out " + what);
    if (getppid() == 1) std::_Exit(1);  // the coordinator is gone
  }

  // Sends HELLO every 10 ms until `ready` says so.
  template <typename Ready>
  void hello_until(Ready&& ready) {
    while (!ready()) {
      check_deadline("waiting for the subscribers (discovery / ready files)");
      t_.send(kHello, 0, o_.sizes.front());
      const std::uint64_t until = now_ns() + 10'000'000;
      std::uint32_t seq, value;
      std::uint64_t size;
      // Pingers see their HELLOs come back here; senders only pace.
      while (now_ns() < until) {
        if (o_.in.empty()) {
          sleep_ns(until - now_ns());
          break;
        }
        if (t_.receive(&seq, &value, &size, until - now_ns()) && seq == kHello) hello_back_ = true;
      }
    }
  }

  void pace(std::uint64_t t0, std::uint64_t i) {
    if (o_.rate > 0) sleep_until_ns(t0 + static_cast<std::uint64_t>(i * 1e9 / o_.rate));
  }

  int sender() {
    t_.advertise(o_.out, o_.max_size());
    hello_until([&] { return count_files(o_.sync, "ready.") >= o_.wait_ready; });
    std::vector<Record> log;
    log.reserve(o_.total());
    const std::uint64_t t0 = now_ns();
    for (std::uint32_t i = 0; i < o_.total(); ++i) {
      pace(t0, i);
      const std::uint64_t size = o_.size_of(i);
      log.push_back({i, now_ns(), size});
      t_.send(i, source_value(i), size);
    }
    // END repeats: a keep-last history may drop one, and every receiver must see one.
    while (count_files(o_.sync, "done.") < o_.wait_done) {
      check_deadline("waiting for the receivers to finish");
      t_.send(kEnd, 0, o_.sizes.front());
      sleep_ns(20'000'000);
    }
    write_log(o_, "send", log, false);
    return 0;
  }

  int receiver() {
    t_.subscribe(o_.in, o_.max_size());
    std::vector<Record> log;
    log.reserve(o_.total());
    bool ready = false;
    std::uint64_t corrupt = 0;
    for (;;) {
      std::uint32_t seq, value;
      std::uint64_t size;
      if (!t_.receive(&seq, &value, &size, 200'000'000)) {
        check_deadline("waiting for messages");
        continue;
      }
      const std::uint64_t t = now_ns();
      if (seq == kHello) {
        if (!ready) touch(o_, "ready");
        ready = true;
        continue;
      }
      if (seq == kEnd) break;
      std::uint32_t expect = source_value(seq);
      for (std::uint32_t k = 0; k < o_.relays; ++k) expect = relayed_value(seq, expect);
      if (seq >= o_.total() || value != expect || size != o_.size_of(seq)) {
        ++corrupt;
        continue;
      }
      log.push_back({seq, t, size});
    }
    write_log(o_, "recv", log, true);
    if (corrupt)
      std::fprintf(stderr, "warning: %s: %llu corrupt messages\n", o_.name.c_str(),
                   static_cast<unsigned long long>(corrupt));
    touch(o_, "done");
    return corrupt ? 2 : 0;
  }

  int relay() {
    t_.subscribe(o_.in, o_.max_size());
    t_.advertise(o_.out, o_.max_size());
    while (!g_stop) {
      std::uint32_t seq, value;
      std::uint64_t size;
      if (!t_.receive(&seq, &value, &size, 200'000'000)) {
        if (!g_stop) check_deadline("relaying");
        continue;
      }
      t_.send(seq, seq >= kEnd ? value : relayed_value(seq, value), size);
    }
    return 0;
  }

  int pinger() {
    t_.advertise(o_.out, o_.max_size());
    t_.subscribe(o_.in, o_.max_size());
    hello_until([&] { return hello_back_; });
    touch(o_, "ready");
    // All pairs start together: wait (still answering nothing) until every pinger is ready.
    while (count_files(o_.sync, "ready.") < o_.wait_ready) {
      check_deadline("waiting for the other pairs");
      sleep_ns(1'000'000);
    }
    std::vector<Record> sends, answers;
    sends.reserve(o_.total());
    answers.reserve(o_.total());
    std::uint64_t skipped = 0, corrupt = 0;
    std::int64_t last_answer = -1;
    auto take_answers = [&](std::uint64_t timeout_ns) {
      std::uint32_t seq, value;
      std::uint64_t size;
      while (t_.receive(&seq, &value, &size, timeout_ns)) {
        const std::uint64_t t = now_ns();
        timeout_ns = 0;
        if (seq >= kEnd) continue;  // a late HELLO answer
        if (seq >= o_.total() || value != relayed_value(seq, source_value(seq)) ||
            size != o_.size_of(seq)) {
          ++corrupt;
          continue;
        }
        answers.push_back({seq, t, size});
        last_answer = std::max<std::int64_t>(last_answer, seq);
      }
    };
    const std::uint64_t t0 = now_ns();
    std::uint32_t next = 0;
    for (std::uint64_t tick = 0; next < o_.total(); ++tick) {
      // Until the tick is due, take answers as they come (blocking in the transport's mode).
      const std::uint64_t due =
          o_.rate > 0 ? t0 + static_cast<std::uint64_t>(tick * 1e9 / o_.rate) : 0;
      for (std::uint64_t now = now_ns(); now < due; now = now_ns()) take_answers(due - now);
      take_answers(0);
      check_deadline("pinging");
      // The paper: no message while (last sent - last received) > watermark.
      const bool over = o_.watermark > 0 && static_cast<std::int64_t>(next) - 1 - last_answer >
                                                static_cast<std::int64_t>(o_.watermark);
      if (over && o_.rate > 0) {
        ++skipped;  // the paper: "no message will be sent" at this tick
        continue;
      }
      if (over) {  // without a rate there are no ticks to skip: wait for an answer instead
        take_answers(100'000'000);
        continue;
      }
      const std::uint64_t size = o_.size_of(next);
      sends.push_back({next, now_ns(), size});
      t_.send(next, source_value(next), size);
      ++next;
    }
    // Drain: the last answers, until all came back or 2 s pass without one.
    std::uint64_t quiet_since = now_ns();
    while (answers.size() < sends.size() && now_ns() - quiet_since < 2'000'000'000ull) {
      const std::size_t before = answers.size();
      take_answers(100'000'000);
      if (answers.size() != before) quiet_since = now_ns();
    }
    write_log(o_, "send", sends, false);
    write_log(o_, "recv", answers, true);
    if (FILE* f = std::fopen((o_.sync + "/" + o_.name + ".stats").c_str(), "w")) {
      std::fprintf(f, "skipped %llu\ncorrupt %llu\n", static_cast<unsigned long long>(skipped),
                   static_cast<unsigned long long>(corrupt));
      std::fclose(f);
    }
    touch(o_, "done");
    return corrupt ? 2 : 0;
  }

  const Options& o_;
  Transport& t_;
  std::uint64_t deadline_;
  bool hello_back_ = false;
};

inline void on_stop_signal(int) { g_stop = 1; }

// Common start of every stream program: dies with its coordinator, stops cleanly on SIGTERM,
// pinned if asked.
inline void setup_process(const Options& o) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT}) sigaction(sig, &sa, nullptr);
  if (o.cpu >= 0 && !pin_to_cpu(o.cpu))
    std::fprintf(stderr, "warning: could not pin %s to CPU %d\n", o.name.c_str(), o.cpu);
}

}  // namespace baton::bench::stream
