// Two hosts on one machine (issue 17): each end of a DDS wire connection runs in a network
// namespace and a mount namespace of its own, with its own tmpfs on /dev/shm, the two joined by a
// veth pair (10.77.0.1/24 <-> 10.77.0.2/24, multicast on, 224.0.0.0/4 routed over it): what two
// machines on one LAN are to DDS and to baton. A 4K camera stream (30 images at 10 Hz, reliable
// keep last 10; rclpy_native_peer.py image-talk / image-listen) crosses it
//   - from rclpy on rmw_baton_cpp to rclpy on rmw_baton_cpp, both in the same BATON_NAMESPACE:
//     only the DDS wire can join them, and each must see the other as a foreign DDS peer (the shm
//     peer tag, src/ros2/shm_peer_tag.cpp, holds /dev/shm's st_dev, different on the two tmpfs)
//     instead of dropping its samples as "came through shared memory";
//   - from rmw_baton_cpp to Fast DDS and from Fast DDS to rmw_baton_cpp;
//   - from Fast DDS to Fast DDS, the reference: the two hosts carry a DDS stream at all.
// Each direction delivers >= 29 of 30 images intact (test::kCameraMinDelivered, ASan too), the
// images crossed the veth (its byte count), and no shared memory was used between the hosts
// (see expect_own_shm_only).
//
// Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN), iproute2's `ip` and util-linux's nsenter / unshare /
// mount (scripts/install-deps.sh); without them each test says why and skips.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "baton/shm/naming.hpp"
#include "image_4k.hpp"
#include "rmw_peers.hpp"

namespace baton::ros2 {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The DDS traffic of these tests never leaves the two namespaces (the veth joins only them), so
// this ROS_DOMAIN_ID cannot meet the other suites' peers; a free one all the same.
const std::string DOMAIN_ID = test::domain_id_str(93);
constexpr const char* PEER = "rclpy_native_peer.py";
constexpr uint64_t kImageBytes = 24883200;  // 3840 x 2160 x 3
constexpr int kCapNetAdmin = 12, kCapSysAdmin = 21;
const fs::path kNetnsDir = "/var/run/netns";  // where `ip netns add` pins its namespaces
constexpr std::string_view kNetnsPrefix = "baton2h-", kVethPrefix = "b2h",
                           kShmRootPrefix = "baton-two-host-";

// Exit code (-1: did not exit) and output (stdout + stderr) of `/bin/sh -c cmd`.
struct Shell {
  int code = -1;
  std::string out;
};
Shell shell(const std::string& cmd) {
  Shell r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// `name`'s path in $PATH or the usual sbin / bin directories ("" if absent).
std::string find_program(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}) dirs.emplace_back(d);
  for (const auto& d : dirs) {
    const std::string p = d + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

uint64_t cap_eff() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A device as /proc/<pid>/maps writes it ("00:27").
std::string maps_device(dev_t dev) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02x:%02x", ::major(dev), ::minor(dev));
  return buf;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// The pid a leftover's name was made with: the digits after `prefix` (0 if none).
pid_t owner_pid(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return 0;
  name.remove_prefix(prefix.size());
  pid_t pid = 0;
  for (char c : name) {
    if (c < '0' || c > '9') break;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

// Every process in the network namespace pinned at /var/run/netns/<netns> (`ip netns pids`).
std::vector<pid_t> pids_in_netns(const std::string& netns) {
  std::vector<pid_t> out;
  struct stat target {};
  if (::stat((kNetnsDir / netns).c_str(), &target) != 0) return out;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      const pid_t pid = owner_pid(e->d_name, "");
      struct stat st {};
      if (pid > 0 && ::stat(("/proc/" + std::to_string(pid) + "/ns/net").c_str(), &st) == 0 &&
          st.st_dev == target.st_dev && st.st_ino == target.st_ino)
        out.push_back(pid);
    }
    ::closedir(d);
  }
  return out;
}

// "<device> <path>" of each file under /dev/shm that `pid` maps (/proc/<pid>/maps).
void add_shm_mappings(pid_t pid, std::set<std::string>& out) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode >> std::ws;
    std::getline(in, path);
    if (path.rfind("/dev/shm/", 0) == 0) out.insert(dev + " " + path);
  }
}

// One "host": a network namespace with one end of the veth, and the tmpfs that its processes
// see as /dev/shm.
struct Host {
  std::string name;     // "A" / "B"
  std::string netns;    // baton2h-<pid>-<n>-a
  std::string veth;     // b2h<pid>_<n>a
  std::string address;  // 10.77.0.1
  fs::path shm;         // the tmpfs, mounted at <tmp>/baton-two-host-<pid>-<n>/a on this machine
  std::string shm_device;
  bool netns_made = false, shm_mounted = false;
};

// Run by each peer in its host, as `sh -c SCRIPT host-X <own tmpfs> <A's> <B's> program args...`
// in a private mount namespace: its tmpfs on /dev/shm, both tmpfs unmounted from their places
// here (so neither host can reach the other's shared memory by any path), LD_PRELOAD (the rmw)
// set only now so that sh / mount do not load it, then the peer.
constexpr const char* kHostScript =
    "set -e\n"
    "mount --bind \"$1\" /dev/shm\n"
    "umount -l \"$2\"\n"
    "umount -l \"$3\"\n"
    "if [ -n \"$BATON_HOST_PRELOAD\" ]; then export LD_PRELOAD=\"$BATON_HOST_PRELOAD\"; fi\n"
    "unset BATON_HOST_PRELOAD\n"
    "shift 3\n"
    "exec \"$@\"\n";

class TwoHostWire : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_RMW_BATON();
    BATON_REQUIRE_CYCLONEDDS();
    ip_ = find_program("ip");
    if (ip_.empty())
      GTEST_SKIP() << "no `ip` command (iproute2) to make the two hosts' network namespaces: "
                      "apt install iproute2 (scripts/install-deps.sh)";
    nsenter_ = find_program("nsenter");
    unshare_ = find_program("unshare");
    if (nsenter_.empty() || unshare_.empty() || find_program("mount").empty() ||
        find_program("umount").empty())
      GTEST_SKIP() << "no nsenter / unshare / mount / umount (util-linux) to run the two hosts' "
                      "peers: apt install util-linux (scripts/install-deps.sh)";
    const uint64_t caps = cap_eff();
    if ((caps >> kCapNetAdmin & 1) == 0 || (caps >> kCapSysAdmin & 1) == 0) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(caps));
      GTEST_SKIP() << "making network and mount namespaces, a veth pair and tmpfs mounts needs "
                      "CAP_NET_ADMIN and CAP_SYS_ADMIN (run as root); this process has CapEff="
                   << hex << " (uid " << ::getuid() << ")";
    }
    remove_leftovers_of_dead_runs();

    static int counter = 0;
    const std::string id = std::to_string(::getpid()) + "-" + std::to_string(counter);
    const std::string short_id = std::to_string(::getpid()) + "_" + std::to_string(counter++);
    root_ = fs::temp_directory_path() / (std::string(kShmRootPrefix) + id);
    hosts_[0] = {"A", std::string(kNetnsPrefix) + id + "-a",
                 std::string(kVethPrefix) + short_id + "a", "10.77.0.1", root_ / "a"};
    hosts_[1] = {"B", std::string(kNetnsPrefix) + id + "-b",
                 std::string(kVethPrefix) + short_id + "b", "10.77.0.2", root_ / "b"};
    std::string why;
    if (!make_hosts(&why)) GTEST_SKIP() << "cannot make the two hosts on this machine: " << why;
    namespace_ =
        "two_host_" + id + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  // Stops the peers, then removes whatever is left: processes in the namespaces, the namespaces
  // (their veth ends go with them), a veth not yet moved into them, the tmpfs mounts.
  void TearDown() override {
    peers_.clear();
    for (Host& h : hosts_) {
      if (!h.netns_made) continue;
      kill_all_in(h.netns);
      shell(ip_ + " netns del " + h.netns);
    }
    for (Host& h : hosts_)
      if (!h.veth.empty() && fs::exists("/sys/class/net/" + h.veth))
        shell(ip_ + " link del " + h.veth);
    for (Host& h : hosts_)
      if (h.shm_mounted) ::umount2(h.shm.c_str(), MNT_DETACH);
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }

  // A run of this binary that was killed (ctest's timeout, a crash) cannot tear down: remove the
  // namespaces, processes, veths and mounts of runs whose process is gone.
  void remove_leftovers_of_dead_runs() {
    auto dead = [](pid_t pid) { return pid > 0 && pid != ::getpid() && !alive(pid); };
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(kNetnsDir, ec)) {
      const std::string name = e.path().filename();
      if (!dead(owner_pid(name, kNetnsPrefix))) continue;
      kill_all_in(name);
      shell(ip_ + " netns del " + name);
    }
    for (const auto& e : fs::directory_iterator("/sys/class/net", ec)) {
      const std::string name = e.path().filename();
      if (dead(owner_pid(name, kVethPrefix))) shell(ip_ + " link del " + name);
    }
    std::istringstream mounts(read_text("/proc/self/mounts"));
    for (std::string line; std::getline(mounts, line);) {
      std::istringstream in(line);
      std::string source, target;
      in >> source >> target;
      const fs::path dir = fs::path(target).parent_path();
      if (dead(owner_pid(dir.filename().string(), kShmRootPrefix))) {
        ::umount2(target.c_str(), MNT_DETACH);
        fs::remove_all(dir, ec);
      }
    }
  }
  // SIGKILL to every process left in `netns` (only this test's peers ever run there).
  static void kill_all_in(const std::string& netns) {
    for (pid_t pid : pids_in_netns(netns)) ::kill(pid, SIGKILL);
  }

  // One setup step: a command that must succeed; else `why` says which and what it printed.
  bool step(const std::string& cmd, std::string* why) {
    const Shell r = shell(cmd);
    if (r.code == 0) return true;
    *why = "`" + cmd + "` failed (exit " + std::to_string(r.code) + "): " + r.out;
    return false;
  }

  bool make_hosts(std::string* why) {
    std::error_code ec;
    for (Host& h : hosts_) {
      fs::create_directories(h.shm, ec);
      if (::mount("tmpfs", h.shm.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        *why = "mount -t tmpfs tmpfs " + h.shm.string() + ": " + std::strerror(errno);
        return false;
      }
      h.shm_mounted = true;
      struct stat st {};
      ::stat(h.shm.c_str(), &st);
      h.shm_device = maps_device(st.st_dev);
    }
    for (Host& h : hosts_) {
      if (!step(ip_ + " netns add " + h.netns, why)) return false;
      h.netns_made = true;
    }
    Host &a = hosts_[0], &b = hosts_[1];
    if (!step(ip_ + " link add " + a.veth + " type veth peer name " + b.veth, why)) return false;
    for (Host& h : hosts_) {
      const std::string in = ip_ + " -n " + h.netns + " ";
      if (!step(ip_ + " link set " + h.veth + " netns " + h.netns, why) ||
          !step(in + "addr add " + h.address + "/24 dev " + h.veth, why) ||
          !step(in + "link set lo up", why) ||
          !step(in + "link set " + h.veth + " multicast on up", why) ||
          // DDS discovery (SPDP) goes to 239.255.0.1: multicast leaves by the veth.
          !step(in + "route add 224.0.0.0/4 dev " + h.veth, why))
        return false;
      tune_receive_buffers(h);
    }
    return true;
  }

  // net.core.rmem_default / rmem_max: scripts/tune-net.sh raises them on this machine for large
  // DDS samples (a 4K image is 389 datagrams of 64 000 B; Fast DDS readers take the default
  // buffer). Depending on the kernel these keys are global (not visible in a network namespace:
  // the machine's values apply), or per namespace; then a new namespace starts from the initial
  // namespace's values (seen on 6.18), or, on kernels that reset them, from 212 992. A real second
  // machine would have been tuned the same way: where the namespace has less than this machine,
  // it gets this machine's value.
  void tune_receive_buffers(const Host& h) {
    for (const char* key : {"rmem_max", "rmem_default"}) {
      const std::string file = std::string("/proc/sys/net/core/") + key;
      const std::string here = read_text(file);
      const Shell there = shell(ip_ + " netns exec " + h.netns + " cat " + file);
      if (here.empty() || there.code != 0) continue;  // global on this kernel
      if (std::stoull(there.out) >= std::stoull(here)) continue;
      const std::string value = std::to_string(std::stoull(here));
      const Shell set =
          shell(ip_ + " netns exec " + h.netns + " sh -c 'echo " + value + " > " + file + "'");
      std::cerr << "[two-host] host " << h.name << ": net.core." << key << " "
                << std::stoull(there.out) << " -> " << value
                << (set.code == 0 ? "" : " failed: " + set.out) << "\n";
    }
  }

  // An rclpy peer (rclpy_native_peer.py `args`) in host `h`, on rmw_baton_cpp or on the wheels'
  // rmw_fastrtps_cpp. nsenter and unshare exec (no fork; `ip netns exec` forks and waits), so the
  // peer is RclpyProcess's own child: SIGTERM reaches it, and its die_with_parent ties it to this
  // test process.
  test::RclpyProcess& peer(const Host& h, bool on_baton, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {nsenter_,
                                     "--net=" + (kNetnsDir / h.netns).string(),
                                     unshare_,
                                     "--mount",
                                     "--propagation",
                                     "private",
                                     "/bin/sh",
                                     "-c",
                                     kHostScript,
                                     "host-" + h.name,
                                     h.shm.string(),
                                     hosts_[0].shm.string(),
                                     hosts_[1].shm.string(),
                                     (test::ros_venv() / "bin" / "python").string(),
                                     std::string(BATON_SOURCE_DIR) + "/tests/ros2/" + PEER};
    argv.insert(argv.end(), args.begin(), args.end());
    // Discovery over the veth (multicast), not on localhost; nothing from the caller's
    // environment that would point DDS elsewhere. The same BATON_NAMESPACE on both hosts.
    test::Env env = {{"ROS_DOMAIN_ID", DOMAIN_ID},
                     {"ROS_AUTOMATIC_DISCOVERY_RANGE", "SUBNET"},
                     {"ROS_STATIC_PEERS", ""},
                     {"ROS_LOCALHOST_ONLY", ""},
                     {"CYCLONEDDS_URI", ""},
                     {"FASTRTPS_DEFAULT_PROFILES_FILE", ""},
                     {"FASTDDS_DEFAULT_PROFILES_FILE", ""},
                     {"LD_PRELOAD", ""},
                     {"BATON_NAMESPACE", namespace_},
                     {"RMW_IMPLEMENTATION", on_baton ? "rmw_baton_cpp" : "rmw_fastrtps_cpp"}};
    if (on_baton) {
      // As RmwPeers::on_baton: under ASan its runtime first, no leak check of CPython.
      const std::string asan = BATON_ASAN_RUNTIME;
      const std::string lib = test::rmw_library().string();
      env["BATON_HOST_PRELOAD"] = asan.empty() ? lib : asan + " " + lib;
      if (!asan.empty()) {
        const char* outer = std::getenv("ASAN_OPTIONS");
        env["ASAN_OPTIONS"] = std::string(outer != nullptr ? outer : "") + ":detect_leaks=0";
      }
    }
    peers_.push_back(std::make_unique<test::RclpyProcess>(test::RclpyProcess::Command{argv}, env));
    return *peers_.back();
  }

  // Bytes sent by host `h`'s end of the veth.
  uint64_t veth_tx_bytes(const Host& h) {
    const Shell r = shell(ip_ + " netns exec " + h.netns + " cat /sys/class/net/" + h.veth +
                          "/statistics/tx_bytes");
    return r.code == 0 ? std::stoull(r.out) : 0;
  }

  // No shared memory between the hosts. Both run baton in the same BATON_NAMESPACE, so a
  // segment's name does not tell whose it is (both create "<ns>-d<N>.t.%2F<topic>"), and a file
  // list of B's tmpfs after the run would miss what the listener mapped and removed at its exit.
  // What a process maps does tell: /proc/<pid>/maps gives each mapping's device, and while the
  // stream ran every process of each host was sampled. Every /dev/shm file a process of host X
  // mapped must lie on X's own tmpfs (the other one is not even mounted in X's mount namespace:
  // this checks that the hosts were built as intended, and that no peer fell back to the
  // machine's /dev/shm). Where X runs rmw_baton_cpp, it must have mapped baton segments: baton's
  // shared memory was in use on that host, in the same namespace as on the other one, yet the
  // images arrived, so they came over DDS (and the veth's byte count says over the veth).
  void expect_own_shm_only(const Host& h, const std::set<std::string>& mappings, bool on_baton) {
    std::vector<std::string> foreign;
    bool baton_segment = false;
    for (const std::string& m : mappings) {
      const std::string dev = m.substr(0, m.find(' ')), path = m.substr(m.find(' ') + 1);
      if (dev != h.shm_device) foreign.push_back(path + " (device " + dev + ")");
      if (path.rfind("/dev/shm/baton.", 0) == 0) baton_segment = true;
    }
    EXPECT_TRUE(foreign.empty()) << "processes of host " << h.name << " mapped /dev/shm files "
                                 << "that are not on its own tmpfs (device " << h.shm_device
                                 << "): " << ::testing::PrintToString(foreign);
    if (on_baton) {
      EXPECT_TRUE(baton_segment) << "host " << h.name
                                 << "'s peer on rmw_baton_cpp mapped no baton segment; mapped: "
                                 << ::testing::PrintToString(mappings);
    }
  }

  // This test's baton segments in the machine's own /dev/shm (there must be none).
  std::vector<std::string> segments_on_this_machine() const {
    const std::string prefix =
        "baton." + std::to_string(::getuid()) + "." + shm::escape_name(namespace_);
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
      const std::string name = e.path().filename();
      if (name.rfind(prefix, 0) == 0) out.push_back(name);
    }
    return out;
  }

  // The 4K camera stream from host A (talker) to host B (listener).
  void stream_a_to_b(bool a_on_baton, bool b_on_baton) {
    Host &a = hosts_[0], &b = hosts_[1];
    const std::string topic = "/two_host_image";
    const uint64_t tx_before = veth_tx_bytes(a);
    auto& listener =
        peer(b, b_on_baton, {"image-listen", topic, "90", std::to_string(test::kCameraImages)});
    ASSERT_TRUE(listener.wait_for_output("ready", 60s)) << listener.output();
    auto& talker = peer(a, a_on_baton, {"image-talk", topic, "90"});
    // Until the listener ends (all images, 15 s without a new one, or its 90 s), sample which
    // /dev/shm files the processes of each host map, once a second: reading /proc/<pid>/maps
    // takes the process's mmap lock, which the streaming processes need for each large buffer
    // they map (a 4K image is several), and baton's segments stay mapped while a process lives.
    std::set<std::string> mapped_a, mapped_b;
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (!listener.exited() && std::chrono::steady_clock::now() < deadline) {
      for (pid_t pid : pids_in_netns(a.netns)) add_shm_mappings(pid, mapped_a);
      for (pid_t pid : pids_in_netns(b.netns)) add_shm_mappings(pid, mapped_b);
      std::this_thread::sleep_for(1s);
    }
    int code = -1;
    EXPECT_TRUE(listener.wait_exit(1s, &code)) << listener.output();
    const auto intact = test::intact_images(listener.output(), "rclpy_4k");
    EXPECT_GE(static_cast<int>(intact.size()), test::kCameraMinDelivered)
        << "listener (host B):\n"
        << listener.output() << "talker (host A):\n"
        << talker.output();
    EXPECT_GE(veth_tx_bytes(a) - tx_before, intact.size() * kImageBytes)
        << "the images did not cross the veth";
    const auto baton_files = [](const std::set<std::string>& m) {
      size_t n = 0;
      for (const auto& s : m) n += s.find(" /dev/shm/baton.") != std::string::npos;
      return n;
    };
    std::cout << "[two-host] " << (a_on_baton ? "rmw_baton_cpp" : "Fast DDS") << " in A -> "
              << (b_on_baton ? "rmw_baton_cpp" : "Fast DDS") << " in B: " << intact.size() << "/"
              << test::kCameraImages << " intact" << (intact.count(0) ? "" : " (not seq 0)")
              << ", A's veth sent " << (veth_tx_bytes(a) - tx_before) / 1000000 << " MB; /dev/shm "
              << "files mapped: A " << mapped_a.size() << " (" << baton_files(mapped_a)
              << " baton) on " << a.shm_device << ", B " << mapped_b.size() << " ("
              << baton_files(mapped_b) << " baton) on " << b.shm_device << "\n";
    expect_own_shm_only(a, mapped_a, a_on_baton);
    expect_own_shm_only(b, mapped_b, b_on_baton);
    EXPECT_TRUE(segments_on_this_machine().empty())
        << ::testing::PrintToString(segments_on_this_machine());
    peers_.clear();
  }

  std::string ip_, nsenter_, unshare_;
  fs::path root_;
  Host hosts_[2];
  std::string namespace_;
  std::vector<std::unique_ptr<test::RclpyProcess>> peers_;
};

// The reference: the two hosts carry a 4K DDS stream between two Fast DDS peers.
TEST_F(TwoHostWire, fast_dds_to_fast_dds_image_4k_stream) {
  stream_a_to_b(/*a_on_baton=*/false, /*b_on_baton=*/false);
}

// Same BATON_NAMESPACE on both hosts, different /dev/shm: only the DDS wire joins them.
TEST_F(TwoHostWire, baton_to_baton_image_4k_stream_over_dds_only) {
  stream_a_to_b(/*a_on_baton=*/true, /*b_on_baton=*/true);
}

TEST_F(TwoHostWire, baton_to_fast_dds_image_4k_stream) {
  stream_a_to_b(/*a_on_baton=*/true, /*b_on_baton=*/false);
}

TEST_F(TwoHostWire, fast_dds_to_baton_image_4k_stream) {
  stream_a_to_b(/*a_on_baton=*/false, /*b_on_baton=*/true);
}

}  // namespace
}  // namespace baton::ros2
