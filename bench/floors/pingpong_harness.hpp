// Shared driver for the floor and peer ping-pong benchmarks (bench/floors, bench/peers).
//
// Every program is one executable that runs both sides: the parent ("ping" side, CPU A) parses
// the command line, forks/execs itself with `--role echo ...` for each (mode, size) run, measures
// the round trip of every message with now_ns() and reports one-way latency = RTT / 2.
// The echo child is pinned to CPU B, dies with its parent (PR_SET_PDEATHSIG) and is killed by the
// parent on any error or signal, so no run leaves processes behind.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"

namespace baton::bench::pp {

enum class PayloadWork { kSeq, kFill };

inline const char* to_string(PayloadWork w) { return w == PayloadWork::kSeq ? "seq" : "fill"; }

// A program-specific option (parent side only; not forwarded to the echo child).
struct ExtraOption {
  std::string name;  // without the leading "--"
  std::string value_name;
  std::string help;
  std::string* value;
};

struct ProgramInfo {
  std::string program;             // executable name, e.g. "baton-floor-futex"
  std::string system;              // JSON "system", e.g. "floor-futex"
  std::string description;         // one paragraph for --help
  std::vector<std::string> modes;  // supported modes; the first ones are run by default
  bool size_independent = false;   // emit one row with size 64 regardless of --sizes
  bool uses_payload_work = true;
  bool single_process = false;  // no echo side (memcpy floor): --cpus B is unused
  std::vector<ExtraOption> extra;
};

struct Options {
  int cpu_a = 0;
  int cpu_b = 1;
  std::vector<std::uint64_t> sizes = {64, 65536, 4194304, 25165824};
  std::size_t samples = 0;  // 0: per-size default
  bool quick = false;
  PayloadWork work = PayloadWork::kSeq;
  std::vector<std::string> modes;
  std::string json;
  // Echo-child parameters (set with --role echo by the parent; not documented in --help).
  bool echo = false;
  std::string mode;
  std::uint64_t size = 0;
  std::size_t iterations = 0;
};

[[noreturn]] inline void die(const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::exit(1);
}

inline std::string size_label(std::uint64_t size) {
  char buf[64];
  if (size >= (1ull << 20) && size % (1ull << 20) == 0)
    std::snprintf(buf, sizeof(buf), "%llu MiB", static_cast<unsigned long long>(size >> 20));
  else if (size >= 1024 && size % 1024 == 0)
    std::snprintf(buf, sizeof(buf), "%llu KiB", static_cast<unsigned long long>(size >> 10));
  else
    std::snprintf(buf, sizeof(buf), "%llu B", static_cast<unsigned long long>(size));
  return buf;
}

// Default sample count: 10000 up to 64 KiB, 2000 up to 4 MiB, 300 above; --quick divides by 10.
inline std::size_t samples_for(const Options& o, std::uint64_t size) {
  std::size_t n = o.samples;
  if (n == 0) n = size <= 65536 ? 10000 : size <= 4194304 ? 2000 : 300;
  if (o.quick) n = std::max<std::size_t>(n / 10, 10);
  return n;
}
// 10% extra iterations are run first and discarded as warm-up.
inline std::size_t warmup_for(std::size_t samples) { return samples / 10; }

inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

inline std::uint64_t parse_u64(const std::string& s, const char* what) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str()) die(std::string("bad ") + what + ": '" + s + "'");
  std::string_view suffix(end);
  if (suffix == "K" || suffix == "KiB" || suffix == "k")
    v <<= 10;
  else if (suffix == "M" || suffix == "MiB")
    v <<= 20;
  else if (!suffix.empty())
    die(std::string("bad ") + what + ": '" + s + "'");
  return v;
}

inline void print_help(const ProgramInfo& info) {
  std::printf("usage: %s [options]\n\n%s\n\n", info.program.c_str(), info.description.c_str());
  std::printf(
      "Measures one-way latency = RTT/2 of a two-process ping-pong (this process pings on\n"
      "CPU A, a forked/exec'd echo child answers on CPU B).\n\noptions:\n");
  std::string modes;
  for (const auto& m : info.modes) modes += (modes.empty() ? "" : ",") + m;
  std::printf("  --modes LIST        modes to run, comma separated (default and supported: %s)\n",
              modes.c_str());
  std::printf(
      "  --cpus A,B          pin ping side to CPU A, echo side to CPU B (default 0,1;\n"
      "                      0,0 puts both on one CPU; -1 leaves a side unpinned)\n");
  if (info.size_independent)
    std::printf(
        "  --sizes LIST        ignored: this floor is size-independent (reported as 64 B)\n");
  else
    std::printf(
        "  --sizes LIST        payload bytes, comma separated; K/M suffixes allowed\n"
        "                      (default 64,65536,4194304,25165824)\n");
  std::printf(
      "  --samples N         samples per size (default 10000 for <= 64 KiB, 2000 up to\n"
      "                      4 MiB, 300 above); 10%% more are run first as warm-up\n");
  std::printf("  --quick             divide the sample counts by 10\n");
  if (info.uses_payload_work)
    std::printf(
        "  --payload-work W    seq: writer writes only an 8-byte sequence number, reader\n"
        "                      reads it (default); fill: writer memsets the whole payload,\n"
        "                      reader reads the first and last byte\n");
  std::printf(
      "  --json PATH         append JSON lines here (default out/bench/%s.json; '' = none)\n",
      info.system.c_str());
  for (const auto& e : info.extra)
    std::printf("  --%-17s %s\n", (e.name + " " + e.value_name).c_str(), e.help.c_str());
  std::printf("  --help              this text\n");
}

inline Options parse_options(int argc, char** argv, const ProgramInfo& info) {
  Options o;
  o.json = "out/bench/" + info.system + ".json";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string key = a, val;
    bool has_inline = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = a.substr(0, eq);
      val = a.substr(eq + 1);
      has_inline = true;
    }
    auto value = [&]() -> std::string {
      if (has_inline) return val;
      if (i + 1 >= argc) die("option " + key + " needs a value (see --help)");
      return argv[++i];
    };
    if (key == "--help" || key == "-h") {
      print_help(info);
      std::exit(0);
    } else if (key == "--quick") {
      o.quick = true;
    } else if (key == "--cpus") {
      auto parts = split(value(), ',');
      if (parts.size() != 2) die("--cpus wants A,B (e.g. 0,1)");
      o.cpu_a = std::atoi(parts[0].c_str());
      o.cpu_b = std::atoi(parts[1].c_str());
    } else if (key == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split(value(), ',')) o.sizes.push_back(parse_u64(s, "size"));
      if (o.sizes.empty()) die("--sizes is empty");
    } else if (key == "--samples") {
      o.samples = parse_u64(value(), "sample count");
      if (o.samples == 0) die("--samples must be > 0");
    } else if (key == "--payload-work") {
      std::string w = value();
      if (w == "seq")
        o.work = PayloadWork::kSeq;
      else if (w == "fill")
        o.work = PayloadWork::kFill;
      else
        die("--payload-work must be seq or fill");
    } else if (key == "--modes" || key == "--mode") {
      o.modes = split(value(), ',');
    } else if (key == "--json") {
      o.json = value();
    } else if (key == "--role") {
      if (value() != "echo") die("--role must be echo");
      o.echo = true;
    } else if (key == "--size") {
      o.size = parse_u64(value(), "size");
    } else if (key == "--iterations") {
      o.iterations = parse_u64(value(), "iteration count");
    } else {
      bool found = false;
      for (const auto& e : info.extra) {
        if (key == "--" + e.name) {
          *e.value = value();
          found = true;
        }
      }
      if (!found) die("unknown option '" + a + "' (see --help)");
    }
  }
  if (o.modes.empty()) o.modes = info.modes;
  for (const auto& m : o.modes) {
    bool ok = false;
    for (const auto& s : info.modes) ok = ok || s == m;
    if (!ok) die("mode '" + m + "' not supported by " + info.program + " (see --help)");
  }
  if (o.echo) {
    if (o.modes.size() != 1) die("echo role needs exactly one --mode");
    o.mode = o.modes[0];
  }
  if (!info.size_independent)
    for (auto s : o.sizes)
      if (s < 8) die("sizes must be >= 8 bytes (the payload carries an 8-byte sequence number)");
  return o;
}

// ---------------------------------------------------------------------------------------------
// Payload work: what the writer writes and the reader reads in every message.

// Fill byte for message `seq`; the reader checks the last byte against it.
inline unsigned char fill_byte(std::uint64_t seq) {
  return static_cast<unsigned char>((seq * 0x9du) | 1u);
}

inline void write_payload(void* p, std::uint64_t size, std::uint64_t seq, PayloadWork w) {
  if (w == PayloadWork::kFill) std::memset(p, fill_byte(seq), size);
  std::memcpy(p, &seq, sizeof(seq));
}

// Returns the sequence number; in fill mode also checks the last byte (dies on corruption).
inline std::uint64_t read_payload(const void* p, std::uint64_t size, PayloadWork w) {
  std::uint64_t seq;
  std::memcpy(&seq, p, sizeof(seq));
  if (w == PayloadWork::kFill) {
    unsigned char first = static_cast<const unsigned char*>(p)[0];
    unsigned char last = static_cast<const unsigned char*>(p)[size - 1];
    asm volatile("" : : "r"(first) : "memory");
    if (size > sizeof(seq) && last != fill_byte(seq)) die("payload corrupted (last byte mismatch)");
  }
  return seq;
}

// ---------------------------------------------------------------------------------------------
// Process management: the echo child, helper processes (e.g. RouDi), signals and deadlines.

namespace detail {
inline volatile sig_atomic_t g_sigchld = 0;
inline pid_t g_clean_exit_seen = -1;  // echo child reaped with status 0 while we still waited
inline volatile pid_t g_echo_pid = -1;
inline volatile pid_t g_helper_pids[4] = {-1, -1, -1, -1};
inline volatile int g_helper_term_signal[4] = {SIGTERM, SIGTERM, SIGTERM, SIGTERM};
inline std::vector<void (*)()>& after_helpers() {
  static std::vector<void (*)()> v;
  return v;
}
inline std::vector<std::function<void(bool)>>& cleanups() {
  static std::vector<std::function<void(bool)>> v;
  return v;
}

inline void write_str(const char* s) {
  ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

inline void kill_echo() {
  pid_t e = g_echo_pid;
  if (e > 0) {
    ::kill(e, SIGKILL);
    ::waitpid(e, nullptr, 0);
    g_echo_pid = -1;
  }
}

// Stops helper processes: `sig`, then up to 5 s for a clean exit, then SIGKILL; then runs the
// after-helpers hooks (e.g. removing what a crashed helper left behind).
inline void stop_helpers(bool forced) {
  for (int i = 0; i < 4; ++i) {
    pid_t h = g_helper_pids[i];
    if (h <= 0) continue;
    g_helper_pids[i] = -1;
    ::kill(h, forced ? SIGKILL : g_helper_term_signal[i]);
    bool gone = false;
    for (int t = 0; t < 500 && !gone; ++t) {
      if (::waitpid(h, nullptr, WNOHANG) == h)
        gone = true;
      else
        usleep(10000);
    }
    if (!gone) {
      ::kill(h, SIGKILL);
      ::waitpid(h, nullptr, 0);
    }
  }
  for (auto f : after_helpers()) f();
}

inline void stop_helpers_at_exit() { stop_helpers(false); }

inline void on_fatal_signal(int sig) {
  if (sig == SIGALRM)
    write_str("error: run exceeded its deadline (peer hung?); killing child processes\n");
  else
    write_str("interrupted; cleaning up child processes\n");
  kill_echo();
  for (auto& f : cleanups()) f(true);
  // Helpers (RouDi) are killed outright: a graceful stop would first ask this still registered
  // process to terminate. The after-helpers hooks remove what they leave behind.
  stop_helpers(true);
  _exit(sig == SIGALRM ? 1 : 128 + sig);
}

inline void on_sigchld(int) { g_sigchld = 1; }
}  // namespace detail

// Installs the parent's signal handlers (SIGINT/SIGTERM/SIGHUP/SIGALRM clean up; SIGCHLD flags).
inline void install_parent_handlers() {
  struct sigaction sa {};
  sa.sa_handler = detail::on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE}) sigaction(s, &sa, nullptr);
  struct sigaction sc {};
  sc.sa_handler = detail::on_sigchld;
  sigemptyset(&sc.sa_mask);
  sc.sa_flags = 0;  // no SA_RESTART: a child's death interrupts blocking waits (EINTR)
  sigaction(SIGCHLD, &sc, nullptr);
}

// Registers a cleanup hook run after the echo child is killed on error, signal or normal
// shutdown; its argument says whether it runs in a signal handler (keep it async-signal-safe).
inline void on_cleanup(std::function<void(bool from_signal)> f) {
  detail::cleanups().push_back(std::move(f));
}

// Registers a helper process (e.g. RouDi) that is stopped with `sig` on exit. Helpers are
// stopped by an atexit handler registered here, i.e. after the destructors of function-local
// statics created later (such as the iceoryx runtime, which must deregister from RouDi first).
inline void register_helper(pid_t pid, int sig = SIGTERM) {
  static bool at_exit_registered = false;
  if (!at_exit_registered) {
    std::atexit(detail::stop_helpers_at_exit);
    at_exit_registered = true;
  }
  for (int i = 0; i < 4; ++i) {
    if (detail::g_helper_pids[i] <= 0) {
      detail::g_helper_term_signal[i] = sig;
      detail::g_helper_pids[i] = pid;
      return;
    }
  }
}

// Registers a hook that runs after the helpers were stopped (at exit or on a fatal signal);
// keep it async-signal-safe.
inline void after_helpers_stopped(void (*f)()) { detail::after_helpers().push_back(f); }

// Forgets a helper that has already exited (and been reaped).
inline void unregister_helper(pid_t pid) {
  for (int i = 0; i < 4; ++i)
    if (detail::g_helper_pids[i] == pid) detail::g_helper_pids[i] = -1;
}

// Kills the echo child and runs the cleanup hooks; helpers are stopped at exit.
inline void shutdown_all() {
  detail::kill_echo();
  for (auto& f : detail::cleanups()) f(false);
}

// Prints the message, kills the echo child, exits 1 (helpers are stopped at exit).
[[noreturn]] inline void fail(const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::fflush(stderr);
  shutdown_all();
  std::exit(1);
}

// Cheap check for wait loops: fails if the echo child died or exited non-zero. A child that
// exited cleanly has already written its last answer, so the caller's next look finds it; only
// if the caller comes back here again (still waiting) is that a failure.
inline void echo_alive() {
  if (!detail::g_sigchld && detail::g_clean_exit_seen < 0) return;
  detail::g_sigchld = 0;
  if (detail::g_clean_exit_seen > 0) {
    detail::g_clean_exit_seen = -1;
    fail("echo child exited before answering");
  }
  pid_t e = detail::g_echo_pid;
  if (e <= 0) return;
  int st = 0;
  pid_t r = ::waitpid(e, &st, WNOHANG);
  if (r != e) return;
  detail::g_echo_pid = -1;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    detail::g_clean_exit_seen = e;
    return;
  }
  char buf[128];
  if (WIFSIGNALED(st))
    std::snprintf(buf, sizeof(buf), "echo child died with signal %d", WTERMSIG(st));
  else
    std::snprintf(buf, sizeof(buf), "echo child exited early with status %d", WEXITSTATUS(st));
  fail(buf);
}

// Forks and execs this program as the echo side of one (mode, size) run.
inline pid_t spawn_echo(const Options& o, const std::string& mode, std::uint64_t size,
                        std::size_t iterations, const std::vector<std::string>& extra_args = {}) {
  std::vector<std::string> args = {"/proc/self/exe",
                                   "--role",
                                   "echo",
                                   "--mode",
                                   mode,
                                   "--size",
                                   std::to_string(size),
                                   "--iterations",
                                   std::to_string(iterations),
                                   "--payload-work",
                                   to_string(o.work),
                                   "--cpus",
                                   std::to_string(o.cpu_a) + "," + std::to_string(o.cpu_b),
                                   "--json",
                                   ""};
  for (const auto& a : extra_args) args.push_back(a);
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) fail("cannot resolve /proc/self/exe");
  self[n] = 0;
  pid_t parent = ::getpid();
  std::fflush(nullptr);
  detail::g_sigchld = 0;
  detail::g_clean_exit_seen = -1;
  pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(1);
    ::execv(self, cargv.data());
    detail::write_str("error: exec of echo child failed\n");
    _exit(127);
  }
  detail::g_echo_pid = pid;
  return pid;
}

// Forks (without exec) and runs `body` as the echo side in the child, pinned to CPU B; the
// child shares the parent's MAP_SHARED mappings and exits with body's return value.
template <typename Body>
pid_t fork_echo(const Options& o, Body&& body) {
  pid_t parent = ::getpid();
  std::fflush(nullptr);
  detail::g_sigchld = 0;
  detail::g_clean_exit_seen = -1;
  pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(1);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGCHLD}) sigaction(s, &dfl, nullptr);
    ::alarm(0);
    if (o.cpu_b >= 0 && !pin_to_cpu(o.cpu_b))
      std::fprintf(stderr, "warning: could not pin echo side to CPU %d\n", o.cpu_b);
    int rc = body();
    std::fflush(nullptr);
    _exit(rc);
  }
  detail::g_echo_pid = pid;
  return pid;
}

// Waits for the echo child to finish its iterations (up to `timeout_s`); fails on a bad exit.
inline void finish_echo(int timeout_s = 20) {
  pid_t e = detail::g_echo_pid;
  if (e <= 0) return;
  for (int t = 0; t < timeout_s * 100; ++t) {
    int st = 0;
    pid_t r = ::waitpid(e, &st, WNOHANG);
    if (r == e) {
      detail::g_echo_pid = -1;
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("echo child failed (see its message above)");
      return;
    }
    usleep(10000);
  }
  fail("echo child did not exit within " + std::to_string(timeout_s) + " s after the run");
}

// Echo child setup: dies with the parent, pinned to CPU B.
inline void echo_setup(const Options& o) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (o.cpu_b >= 0 && !pin_to_cpu(o.cpu_b))
    std::fprintf(stderr, "warning: could not pin echo side to CPU %d\n", o.cpu_b);
}

// Parent setup: handlers, pinned to CPU A.
inline void parent_setup(const Options& o) {
  install_parent_handlers();
  if (o.cpu_a >= 0 && !pin_to_cpu(o.cpu_a))
    std::fprintf(stderr, "warning: could not pin ping side to CPU %d\n", o.cpu_a);
}

// Arms a deadline for one run: on expiry everything is killed and the program exits 1.
inline void arm_deadline(unsigned seconds) { ::alarm(seconds); }
inline void disarm_deadline() { ::alarm(0); }

// ---------------------------------------------------------------------------------------------
// Reporting.

inline void print_table_header(const ProgramInfo& info, const Options& o) {
  std::printf("# %s  cpus %d,%d  payload-work %s%s\n", info.program.c_str(), o.cpu_a, o.cpu_b,
              info.uses_payload_work ? to_string(o.work) : "n/a", o.quick ? "  (quick)" : "");
  std::printf("%-16s %-22s %9s %8s %12s %12s %12s\n", "system", "mode", "size", "samples",
              "median us", "p99 us", "max us");
  std::fflush(stdout);
}

// The JSON/table mode: the mode, plus "-fill" for --payload-work fill and "-same-cpu" when both
// sides are pinned to one CPU, so such runs never mix with the default ones in a JSON file.
inline std::string mode_label(const ProgramInfo& info, const Options& o, const std::string& mode) {
  std::string m = mode;
  if (info.uses_payload_work && o.work == PayloadWork::kFill) m += "-fill";
  if (!info.single_process && o.cpu_a >= 0 && o.cpu_a == o.cpu_b) m += "-same-cpu";
  return m;
}

// Summarises one-way latencies in µs (warm-up already dropped), prints a row, appends JSON.
inline LatencySummary report_us(const ProgramInfo& info, const Options& o, const std::string& mode,
                                std::uint64_t size, std::vector<double> one_way_us) {
  Record r;
  r.system = info.system;
  r.mode = mode_label(info, o, mode);
  r.size = size;
  std::vector<double> sorted = one_way_us;  // summarize sorts; the raw file keeps the order
  r.stats = summarize(sorted);
  std::printf("%-16s %-22s %9s %8zu %12.3f %12.3f %12.3f\n", r.system.c_str(), r.mode.c_str(),
              size_label(size).c_str(), r.stats.samples, r.stats.median, r.stats.p99, r.stats.max);
  std::fflush(stdout);
  if (!o.json.empty()) append_json(o.json, r);
  // BATON_BENCH_RAW_DIR (set by bench/suite): every one-way sample, in order, one per line,
  // to <dir>/<system>_<mode>_<size>.csv (µs).
  if (const char* dir = std::getenv("BATON_BENCH_RAW_DIR"); dir != nullptr && *dir != '\0') {
    const std::string path =
        std::string(dir) + "/" + r.system + "_" + r.mode + "_" + std::to_string(size) + ".csv";
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      for (double v : one_way_us) std::fprintf(f, "%.4f\n", v);
      std::fclose(f);
    }
  }
  return r.stats;
}

// Fails unless an answer carries the sequence number of the ping it answers.
inline void expect_answer(std::uint64_t got, std::uint64_t expected) {
  if (got != expected)
    fail("pong carried sequence " + std::to_string(got) + ", expected " + std::to_string(expected));
}

// Converts round-trip times (ns, including warm-up) to one-way µs and reports them.
inline LatencySummary report_rtt(const ProgramInfo& info, const Options& o, const std::string& mode,
                                 std::uint64_t size, const std::vector<std::uint64_t>& rtt_ns,
                                 std::size_t warmup) {
  std::vector<double> us;
  us.reserve(rtt_ns.size());
  for (std::size_t i = warmup; i < rtt_ns.size(); ++i) us.push_back(rtt_ns[i] / 2000.0);
  return report_us(info, o, mode, size, std::move(us));
}

// The whole main() of a size-independent floor program: per mode, one anonymous MAP_SHARED
// `Shared` between this process and a forked echo. The echo runs `echo(sh, total)`; the parent
// times `round(sh, i)` for i = 1..total (one round trip each) and reports one-way latency at
// size 64. `deadline_s` bounds a run whose echo stopped answering.
template <typename Shared, typename Echo, typename Round>
int run_floor(const ProgramInfo& info, int argc, char** argv, unsigned deadline_s, Echo&& echo,
              Round&& round) {
  Options o = parse_options(argc, argv, info);
  if (o.echo) die("this program has no exec'd echo role");
  parent_setup(o);
  print_table_header(info, o);
  for (const auto& mode : o.modes) {
    const std::uint64_t size = 64;
    std::size_t samples = samples_for(o, size);
    std::size_t warmup = warmup_for(samples);
    std::uint64_t total = samples + warmup;
    void* m =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) fail("mmap failed");
    auto* sh = new (m) Shared();
    fork_echo(o, [&] { return echo(sh, total); });
    std::vector<std::uint64_t> rtt(total);
    arm_deadline(deadline_s);
    for (std::uint64_t i = 1; i <= total; ++i) {
      std::uint64_t t0 = now_ns();
      round(sh, i);
      rtt[i - 1] = now_ns() - t0;
    }
    disarm_deadline();
    finish_echo();
    munmap(m, sizeof(Shared));
    report_rtt(info, o, mode, size, rtt, warmup);
  }
  shutdown_all();
  return 0;
}

}  // namespace baton::bench::pp
