// baton-peer-iceoryx: ping-pong latency over iceoryx 2.0.3 (C++ API, RouDi daemon).
//
// The parent (CPU A) publishes on service {baton-bench, ping, <parent pid>} and subscribes to
// {baton-bench, pong, <parent pid>}; an exec'd echo child (CPU B) does the opposite. Both use
// the untyped API: loan(size) -> write per --payload-work -> publish; take() -> read -> release.
// Modes: "blocking" (the subscriber's HAS_DATA state attached to a WaitSet) and "busy-poll"
// (spin on take()). The parent starts iox-roudi with roudi_config.toml if no RouDi is running,
// waits for it, and stops it on exit. One-way latency = RTT / 2.
#include <pwd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/clock.hpp"
#include "bench/floors/pingpong_harness.hpp"
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/popo/wait_set.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

#ifndef BATON_ICEORYX_ROUDI_CONFIG
#define BATON_ICEORYX_ROUDI_CONFIG "roudi_config.toml"
#endif

namespace pp = baton::bench::pp;
using baton::bench::now_ns;

namespace {

constexpr const char* kRoudiSocket = "/tmp/roudi";  // iceoryx 2.0 RouDi's unix socket

// Files iceoryx leaves behind when a process dies without deregistering (paths precomputed so
// the cleanup can run in a signal handler).
struct StalePaths {
  char echo_sock[96] = "", echo_lock[96] = "", ping_sock[96] = "", ping_lock[96] = "";
  char user_segment[128] = "";
  pid_t roudi = -1;  // the RouDi this process started, if any
} g_stale;

void set_runtime_paths(char* sock, char* lock, const char* role, pid_t pid) {
  std::snprintf(sock, 96, "/tmp/baton-iceoryx-%s-%d", role, static_cast<int>(pid));
  std::snprintf(lock, 96, "/tmp/baton-iceoryx-%s-%d.lock", role, static_cast<int>(pid));
}

// Runs after the echo child is gone: its runtime's socket files (left if it was killed), and
// ours when a signal ends us before the runtime can deregister.
void cleanup_runtime_files(bool from_signal) {
  unlink(g_stale.echo_sock);
  unlink(g_stale.echo_lock);
  if (from_signal) {
    unlink(g_stale.ping_sock);
    unlink(g_stale.ping_lock);
  }
}

// After our RouDi was stopped: iceoryx 2.0's RouDi aborts on shutdown if a registered
// process died before it noticed (e.g. a killed echo child) and then leaves its shared memory
// and socket behind; remove them.
void cleanup_roudi_leftovers() {
  if (g_stale.roudi <= 0 || kill(g_stale.roudi, 0) == 0) return;
  shm_unlink("iceoryx_mgmt");
  if (g_stale.user_segment[0] != 0) shm_unlink(g_stale.user_segment);
  unlink(kRoudiSocket);
  unlink("/tmp/roudi.lock");
}

// True if a RouDi is listening on its unix datagram socket.
bool roudi_running() {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", kRoudiSocket);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// Starts iox-roudi with `config`; fails unless it is up within 5 s.
void start_roudi(const std::string& binary, const std::string& config) {
  if (access(config.c_str(), R_OK) != 0) pp::fail("RouDi config not readable: " + config);
  // RouDi's console output goes to an unlinked temporary file, shown only if it fails to start.
  char log_path[] = "/tmp/baton-iox-roudi-log-XXXXXX";
  int log_fd = mkstemp(log_path);
  if (log_fd >= 0) unlink(log_path);
  auto show_log = [log_fd] {
    char buf[4096];
    ssize_t n;
    off_t off = 0;
    while (log_fd >= 0 && (n = pread(log_fd, buf, sizeof(buf), off)) > 0) {
      fwrite(buf, 1, static_cast<size_t>(n), stderr);
      off += n;
    }
  };
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) pp::fail("fork for RouDi failed");
  if (pid == 0) {
    if (log_fd >= 0) {
      dup2(log_fd, STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
    }
    setpgid(0, 0);  // a Ctrl-C on the terminal reaches us, and we stop RouDi in order
    execlp(binary.c_str(), binary.c_str(), "-c", config.c_str(), "-l", "warning", "-k", "1",
           static_cast<char*>(nullptr));
    std::fprintf(stderr, "error: cannot exec '%s': %s\n", binary.c_str(), std::strerror(errno));
    _exit(127);
  }
  pp::register_helper(pid, SIGTERM);
  g_stale.roudi = pid;
  auto deadline = now_ns() + 5'000'000'000ull;
  while (!roudi_running()) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      pp::unregister_helper(pid);
      show_log();
      pp::fail("iox-roudi exited during start-up (status " +
               std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)) +
               "); is another RouDi half-running, or is iox-roudi missing? (apt install iceoryx)");
    }
    if (now_ns() > deadline) {
      show_log();
      pp::fail("RouDi did not start within 5 s");
    }
    usleep(5000);
  }
  if (log_fd >= 0) close(log_fd);
  std::printf("# started iox-roudi (pid %d) with %s\n", pid, config.c_str());
}

iox::capro::ServiceDescription service(const char* event, pid_t owner) {
  return {"baton-bench", iox::capro::IdString_t(iox::cxx::TruncateToCapacity, event),
          iox::capro::IdString_t(iox::cxx::TruncateToCapacity, std::to_string(owner))};
}

iox::popo::PublisherOptions pub_options() {
  iox::popo::PublisherOptions o;
  o.historyCapacity = 0;
  return o;
}

iox::popo::SubscriberOptions sub_options() {
  iox::popo::SubscriberOptions o;
  o.queueCapacity = 1;
  o.historyRequest = 0;
  return o;
}

// One side of the ping-pong: a publisher, a subscriber and (blocking mode) a WaitSet.
class Endpoint {
 public:
  Endpoint(const char* out, const char* in, pid_t owner, bool blocking, std::uint64_t size,
           pp::PayloadWork work)
      : pub_(service(out, owner), pub_options()),
        sub_(service(in, owner), sub_options()),
        size_(size),
        work_(work) {
    if (blocking) {
      ws_.emplace();
      if (ws_->attachState(sub_, iox::popo::SubscriberState::HAS_DATA).has_error())
        pp::fail("cannot attach the subscriber to a WaitSet");
    }
  }

  // Waits until our publisher has a subscriber and our subscriber is connected.
  template <typename Check>
  void wait_connected(Check&& check) {
    auto deadline = now_ns() + 10'000'000'000ull;
    while (!pub_.hasSubscribers() ||
           sub_.getSubscriptionState() != iox::SubscribeState::SUBSCRIBED) {
      check();
      if (now_ns() > deadline) pp::fail("iceoryx ping/pong services did not connect within 10 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  void send(std::uint64_t seq) {
    auto loan = pub_.loan(static_cast<std::uint32_t>(size_), 8);
    if (loan.has_error())
      pp::fail("iceoryx loan of " + std::to_string(size_) + " bytes failed (AllocationError " +
               std::to_string(static_cast<int>(loan.get_error())) +
               "): the running RouDi's mempools have no free chunk that large; stop it so this "
               "program starts its own with bench/peers/iceoryx_classic/roudi_config.toml");
    void* p = loan.value();
    pp::write_payload(p, size_, seq, work_);
    pub_.publish(p);
  }

  // Returns the next message's sequence number; `check` runs while waiting.
  template <typename Check>
  std::uint64_t receive(Check&& check) {
    for (;;) {
      auto r = sub_.take();
      if (!r.has_error()) {
        const void* p = r.value();
        std::uint64_t seq = pp::read_payload(p, size_, work_);
        sub_.release(p);
        return seq;
      }
      if (r.get_error() != iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE)
        pp::fail("iceoryx take() failed: too many chunks held");
      if (ws_) {
        ws_->timedWait(iox::units::Duration::fromMilliseconds(200));
        check();
      } else {
        check();
      }
    }
  }

 private:
  iox::popo::UntypedPublisher pub_;
  iox::popo::UntypedSubscriber sub_;
  std::optional<iox::popo::WaitSet<>> ws_;
  std::uint64_t size_;
  pp::PayloadWork work_;
};

iox::RuntimeName_t runtime_name(const char* role) {
  std::string n = std::string("baton-iceoryx-") + role + "-" + std::to_string(getpid());
  return iox::RuntimeName_t(iox::cxx::TruncateToCapacity, n);
}

int run_echo(const pp::Options& o) {
  pp::echo_setup(o);
  const pid_t owner = getppid();
  iox::runtime::PoshRuntime::initRuntime(runtime_name("echo"));
  Endpoint ep("pong", "ping", owner, o.mode == "blocking", o.size, o.work);
  auto parent_alive = [owner] {
    if (getppid() != owner) _exit(1);
  };
  ep.wait_connected(parent_alive);
  for (std::size_t i = 0; i < o.iterations; ++i) {
    // Busy-poll: no liveness check in the spin (PR_SET_PDEATHSIG kills us with the parent).
    std::uint64_t seq = ep.receive([] {});
    ep.send(seq);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string roudi_binary = "iox-roudi";
  std::string roudi_config = BATON_ICEORYX_ROUDI_CONFIG;
  pp::ProgramInfo info;
  info.program = "baton-peer-iceoryx";
  info.system = "iceoryx";
  info.description =
      "Ping-pong over Eclipse iceoryx 2.0.3 (C++ untyped publisher/subscriber, zero-copy loans,\n"
      "RouDi daemon). blocking: WaitSet on the subscriber's HAS_DATA state; busy-poll: spin on\n"
      "take(). Starts iox-roudi itself if none is running and stops it on exit.";
  info.modes = {"blocking", "busy-poll"};
  info.extra = {
      {"roudi", "PATH", "iox-roudi binary to start if no RouDi runs (default iox-roudi)",
       &roudi_binary},
      {"roudi-config", "PATH", "RouDi config TOML (default: roudi_config.toml in the source)",
       &roudi_config},
  };
  pp::Options o = pp::parse_options(argc, argv, info);
  // iceoryx 2.0 logs at verbose level by default; keep the table readable.
  iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kWarn,
                                                           iox::log::LogLevelOutput::kHideLogLevel);
  if (o.echo) return run_echo(o);

  pp::parent_setup(o);
  set_runtime_paths(g_stale.ping_sock, g_stale.ping_lock, "ping", getpid());
  if (const passwd* pw = getpwuid(getuid())) {
    std::snprintf(g_stale.user_segment, sizeof(g_stale.user_segment), "%s", pw->pw_name);
  }
  pp::after_helpers_stopped(cleanup_roudi_leftovers);
  pp::on_cleanup(cleanup_runtime_files);
  if (roudi_running())
    std::printf("# using the RouDi already running (its mempools must fit the sizes)\n");
  else
    start_roudi(roudi_binary, roudi_config);
  iox::runtime::PoshRuntime::initRuntime(runtime_name("ping"));
  pp::print_table_header(info, o);

  const pid_t self = getpid();
  auto check = [] { pp::echo_alive(); };
  for (const auto& mode : o.modes) {
    for (std::uint64_t size : o.sizes) {
      std::size_t samples = pp::samples_for(o, size);
      std::size_t warmup = pp::warmup_for(samples);
      std::size_t total = samples + warmup;
      std::vector<std::uint64_t> rtt(total);
      {
        Endpoint ep("ping", "pong", self, mode == "blocking", size, o.work);
        pid_t echo = pp::spawn_echo(o, mode, size, total);
        set_runtime_paths(g_stale.echo_sock, g_stale.echo_lock, "echo", echo);
        pp::arm_deadline(600);
        ep.wait_connected(check);
        for (std::uint64_t i = 0; i < total; ++i) {
          std::uint64_t t0 = now_ns();
          ep.send(i);
          std::uint64_t got = ep.receive(check);
          rtt[i] = now_ns() - t0;
          pp::expect_answer(got, i);
        }
        pp::disarm_deadline();
        pp::finish_echo();
      }
      pp::report_rtt(info, o, mode, size, rtt, warmup);
    }
  }
  pp::shutdown_all();
  return 0;  // the runtime deregisters from RouDi, then an atexit handler stops our RouDi
}
