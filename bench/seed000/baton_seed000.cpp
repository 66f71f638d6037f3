// baton-bench-seed000: seed 000's Tables 2-5, two-node rows, on this machine's OpenCL device.
//
// A CPU node and a GPU-wrapper node (OpenCL, PoCL here) run the cache benchmark of
// bench/accel (CPU: sqrt / div / mul over a 4 MiB float matrix, two passes; device: the
// cache_reduce kernel over the matrix) and exchange the matrix and the kernel's row sums
// through one of these transports:
//
//   native          no middleware, one thread (the reference for the overhead column)
//   ros-sc-topic    ROS-SC topic: CycloneDDS, sequence<octet>, two processes (DDS copy path)
//   ros-sc-service  ROS-SC service: a DDS request / reply topic pair (what rmw does for a
//                   service), the reply matched to the request's sequence number
//   ros-zc          ROS-ZC: both nodes in one process (two threads), baton
//                   Publisher<T>::publish(std::unique_ptr<T>) = unique ownership, a fresh
//                   message per publish (as rclcpp's intra-process path)
//   ros-shm-zc      ROS-SHM-ZC as seed 000 built it: the data in a POSIX shared-memory buffer,
//                   a small sync message on a standard DDS topic (CycloneDDS), two processes
//   baton           baton shared-memory topics, two processes: the CPU node writes the matrix
//                   into a loan, the GPU node's kernel reads the subscriber's view in place
//
// Device models (as bench/accel): SC = clEnqueueWriteBuffer into a device buffer and read
// back; UM = one SVM allocation (the message bytes are copied into it unless the CPU wrote
// there directly, which only the native reference can); ZC = CL_MEM_USE_HOST_PTR on the very
// bytes the node received (the publisher's bytes for the zero-copy transports).
//
// Per run, the CPU node takes the time around: CPU work into the outgoing message, publish,
// GPU node work, reply, CPU node reads the reply. Mean / SD / median / p99 / max in ms over
// `runs` runs after one warm-up run; JSON line to --json, every run to --raw (CSV).
#include <dds/dds.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "PingPong.h"
#include "baton/baton.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/memory/domain/opencl_backend.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"

using namespace baton::memory::domain;
using namespace std::chrono_literals;

namespace seed000 {
constexpr std::uint32_t kRows = 1024, kCols = 1024, kReps = 4;
constexpr std::size_t kN = std::size_t{kRows} * kCols;
// The ROS-ZC messages (plain structs, moved by unique_ptr between the two nodes' threads).
struct Matrix {
  float m[kN];
};
struct RowSums {
  std::uint64_t seq;
  float s[kRows];
};
}  // namespace seed000
BATON_MESSAGE(seed000::Matrix, "baton_bench/msg/Seed000Matrix");
BATON_MESSAGE(seed000::RowSums, "baton_bench/msg/Seed000RowSums");

namespace {

using seed000::kCols;
using seed000::kN;
using seed000::kReps;
using seed000::kRows;
using seed000::Matrix;
using seed000::RowSums;
constexpr int kCpuIters = 2;
constexpr std::size_t kBytes = kN * sizeof(float);
constexpr std::size_t kOutBytes = kRows * sizeof(float);

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "baton-bench-seed000: error: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

double now_ms() { return static_cast<double>(baton::bench::now_ns()) / 1e6; }

// CPU node work: first pass reads the node's state and writes the outgoing message, second
// pass reads and writes the message in place (sqrt / div / mul, as bench/accel's cache work).
void cpu_work(const float* state, float* msg) {
  for (std::size_t i = 0; i < kN; ++i) msg[i] = std::sqrt(state[i] + 1.0f) / 1.0001f * 1.0002f;
  for (int it = 1; it < kCpuIters; ++it) {
    for (std::size_t i = 0; i < kN; ++i) msg[i] = std::sqrt(msg[i] + 1.0f) / 1.0001f * 1.0002f;
  }
}

// ---------------------------------------------------------------- GPU-wrapper node ----------
class GpuNode {
 public:
  explicit GpuNode(CommModel m) : m_(m) {
    auto opened = open_domain("opencl:0");
    if (!opened) fail("opencl:0: " + opened.error().detail);
    b_ = std::dynamic_pointer_cast<OpenClBackend>(*opened);
    if (!b_) fail("opencl:0 is not an OpenCL domain");
    if (!b_->info().supports(m)) fail("device model not supported by this device");
    auto prog = b_->build(kernels::OPENCL_SOURCE);
    if (!prog) fail(prog.error().detail);
    cl_int st = CL_SUCCESS;
    k_ = clCreateKernel(*prog, "cache_reduce", &st);
    check(st, "clCreateKernel");
    if (m == CommModel::SC) {
      dmat_ = clCreateBuffer(b_->context(), CL_MEM_READ_ONLY, kBytes, nullptr, &st);
      check(st, "device matrix");
      dout_ = clCreateBuffer(b_->context(), CL_MEM_WRITE_ONLY, kOutBytes, nullptr, &st);
      check(st, "device out");
    } else if (m == CommModel::UM) {
      svm_mat_ = static_cast<float*>(clSVMAlloc(b_->context(), svm_flags(), kBytes, 0));
      svm_out_ = static_cast<float*>(clSVMAlloc(b_->context(), svm_flags(), kOutBytes, 0));
      if (!svm_mat_ || !svm_out_) fail("clSVMAlloc");
    } else {
      if (::posix_memalign(reinterpret_cast<void**>(&zc_out_host_), 4096, kOutBytes) != 0)
        fail("posix_memalign");
      dout_ = clCreateBuffer(b_->context(), CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, kOutBytes,
                             zc_out_host_, &st);
      check(st, "ZC out");
    }
  }
  ~GpuNode() {
    for (auto& [p, mem] : zc_cache_) clReleaseMemObject(mem);
    if (dmat_) clReleaseMemObject(dmat_);
    if (dout_) clReleaseMemObject(dout_);
    if (svm_mat_) clSVMFree(b_->context(), svm_mat_);
    if (svm_out_) clSVMFree(b_->context(), svm_out_);
    if (k_) clReleaseKernel(k_);
    std::free(zc_out_host_);
  }
  // For the native UM reference: the CPU writes straight into the SVM buffer.
  float* svm_matrix() {
    if (!fine()) map_svm(svm_mat_, kBytes, CL_MAP_WRITE);
    return svm_mat_;
  }
  void unmap_svm_matrix() {
    if (!fine()) unmap_svm(svm_mat_);
  }

  // Runs the kernel on `mat` (kN floats, stable until return) and writes the row sums to `out`.
  void process(const float* mat, float* out) {
    const std::size_t global = kRows;
    if (m_ == CommModel::SC) {
      check(clEnqueueWriteBuffer(b_->queue(), dmat_, CL_FALSE, 0, kBytes, mat, 0, nullptr, nullptr),
            "write");
      set_args(dmat_, dout_);
      enqueue(global);
      check(
          clEnqueueReadBuffer(b_->queue(), dout_, CL_TRUE, 0, kOutBytes, out, 0, nullptr, nullptr),
          "read");
    } else if (m_ == CommModel::UM) {
      if (mat != svm_mat_) {  // a copy into unified memory (the message is not in SVM)
        if (!fine()) map_svm(svm_mat_, kBytes, CL_MAP_WRITE);
        std::memcpy(svm_mat_, mat, kBytes);
        if (!fine()) unmap_svm(svm_mat_);
      }
      check(clSetKernelArgSVMPointer(k_, 0, svm_mat_), "svm arg");
      check(clSetKernelArgSVMPointer(k_, 1, svm_out_), "svm arg");
      set_scalars();
      enqueue(global);
      clFinish(b_->queue());
      if (!fine()) map_svm(svm_out_, kOutBytes, CL_MAP_READ);
      std::memcpy(out, svm_out_, kOutBytes);
      if (!fine()) unmap_svm(svm_out_);
    } else {
      cl_mem mm = wrap(mat);
      set_args(mm, dout_);
      enqueue(global);
      cl_int st = CL_SUCCESS;
      void* p = clEnqueueMapBuffer(b_->queue(), dout_, CL_TRUE, CL_MAP_READ, 0, kOutBytes, 0,
                                   nullptr, nullptr, &st);
      check(st, "map out");
      std::memcpy(out, p, kOutBytes);
      clEnqueueUnmapMemObject(b_->queue(), dout_, p, 0, nullptr, nullptr);
      clFinish(b_->queue());
    }
  }

 private:
  static void check(cl_int st, const char* what) {
    if (st != CL_SUCCESS) fail(std::string(what) + ": " + cl_status_text(st));
  }
  bool fine() const { return b_->info().svm_fine; }
  cl_svm_mem_flags svm_flags() const {
    return CL_MEM_READ_WRITE | (fine() ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
  }
  void map_svm(void* p, std::size_t n, cl_map_flags f) {
    check(clEnqueueSVMMap(b_->queue(), CL_TRUE, f, p, n, 0, nullptr, nullptr), "svm map");
  }
  void unmap_svm(void* p) {
    check(clEnqueueSVMUnmap(b_->queue(), p, 0, nullptr, nullptr), "svm unmap");
    clFinish(b_->queue());
  }
  // CL_MEM_USE_HOST_PTR on the received bytes; cached per address (rings reuse chunks).
  cl_mem wrap(const float* mat) {
    auto it = zc_cache_.find(mat);
    if (it != zc_cache_.end()) return it->second;
    cl_int st = CL_SUCCESS;
    cl_mem mm = clCreateBuffer(b_->context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, kBytes,
                               const_cast<float*>(mat), &st);
    check(st, "USE_HOST_PTR");
    if (zc_cache_.size() > 64) {
      for (auto& [p, m] : zc_cache_) clReleaseMemObject(m);
      zc_cache_.clear();
    }
    zc_cache_[mat] = mm;
    return mm;
  }
  void set_args(cl_mem a, cl_mem o) {
    check(clSetKernelArg(k_, 0, sizeof(cl_mem), &a), "arg0");
    check(clSetKernelArg(k_, 1, sizeof(cl_mem), &o), "arg1");
    set_scalars();
  }
  void set_scalars() {
    const cl_uint cols = kCols, reps = kReps;
    clSetKernelArg(k_, 2, sizeof(cl_uint), &cols);
    clSetKernelArg(k_, 3, sizeof(cl_uint), &reps);
  }
  void enqueue(std::size_t global) {
    check(
        clEnqueueNDRangeKernel(b_->queue(), k_, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
        "enqueue cache_reduce");
  }

  CommModel m_;
  std::shared_ptr<OpenClBackend> b_;
  cl_kernel k_ = nullptr;
  cl_mem dmat_ = nullptr, dout_ = nullptr;
  float* svm_mat_ = nullptr;
  float* svm_out_ = nullptr;
  float* zc_out_host_ = nullptr;
  std::map<const float*, cl_mem> zc_cache_;
};

// ---------------------------------------------------------------- CycloneDDS ----------------
std::string cyclone_config() {
  return "<CycloneDDS><Domain id=\"any\"><General>"
         "<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>"
         "<AllowMulticast>false</AllowMulticast></General>"
         "<Discovery><Peers><Peer address=\"127.0.0.1\"/></Peers>"
         "<ParticipantIndex>auto</ParticipantIndex>"
         "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex></Discovery>"
         "<Internal><Watermarks><WhcHigh>128MB</WhcHigh><WhcHighInit>128MB</WhcHighInit>"
         "<WhcAdaptive>false</WhcAdaptive></Watermarks></Internal>"
         "</Domain></CycloneDDS>";
}

dds_entity_t ok(dds_entity_t e, const char* what) {
  if (e < 0) fail(std::string(what) + ": " + dds_strretcode(e));
  return e;
}

class Dds {
 public:
  Dds(dds_domainid_t domain, const std::string& out, const std::string& in) {
    part_ = ok(dds_create_participant(domain, nullptr, nullptr), "dds_create_participant");
    dds_qos_t* q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
    auto to =
        ok(dds_create_topic(part_, &baton_bench_PingPong_desc, out.c_str(), q, nullptr), "topic");
    auto ti =
        ok(dds_create_topic(part_, &baton_bench_PingPong_desc, in.c_str(), q, nullptr), "topic");
    w_ = ok(dds_create_writer(part_, to, q, nullptr), "writer");
    r_ = ok(dds_create_reader(part_, ti, q, nullptr), "reader");
    dds_delete_qos(q);
    auto c = ok(dds_create_readcondition(r_, DDS_ANY_STATE), "readcondition");
    ws_ = ok(dds_create_waitset(part_), "waitset");
    dds_waitset_attach(ws_, c, 0);
  }
  ~Dds() { dds_delete(part_); }
  void wait_matched() {
    const double deadline = now_ms() + 20000;
    for (;;) {
      dds_publication_matched_status_t pm;
      dds_subscription_matched_status_t sm;
      dds_get_publication_matched_status(w_, &pm);
      dds_get_subscription_matched_status(r_, &sm);
      if (pm.current_count > 0 && sm.current_count > 0) return;
      if (now_ms() > deadline) fail("DDS topics did not match within 20 s");
      dds_sleepfor(DDS_MSECS(1));
    }
  }
  void write(std::uint64_t seq, const void* data, std::size_t n) {
    baton_bench_PingPong msg;
    msg.seq = seq;
    msg.payload._maximum = msg.payload._length = static_cast<std::uint32_t>(n);
    msg.payload._buffer = static_cast<std::uint8_t*>(const_cast<void*>(data));
    msg.payload._release = false;
    if (dds_write(w_, &msg) < 0) fail("dds_write");
  }
  // Calls f(seq, bytes, n) on the next valid sample (loaned), then returns the loan.
  template <typename F>
  void take(F&& f) {
    for (;;) {
      void* s[1] = {nullptr};
      dds_sample_info_t info[1];
      dds_return_t n = dds_take(r_, s, info, 1, 1);
      if (n < 0) fail("dds_take");
      if (n > 0) {
        const bool valid = info[0].valid_data;
        if (valid) {
          auto* m = static_cast<baton_bench_PingPong*>(s[0]);
          f(m->seq, m->payload._buffer, m->payload._length);
        }
        dds_return_loan(r_, s, n);
        if (valid) return;
        continue;
      }
      if (dds_waitset_wait(ws_, nullptr, 0, DDS_SECS(1)) == 0 && getppid() == 1) _exit(1);
    }
  }

 private:
  dds_entity_t part_, w_, r_, ws_;
};

// ---------------------------------------------------------------- shared memory ------------
struct ShmRegion {
  float* mat = nullptr;
  float* out = nullptr;
  void* base = nullptr;
  std::string name;
  static ShmRegion create(const std::string& name) {
    ShmRegion r;
    r.name = name;
    int fd = shm_open(name.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
    if (fd < 0) fail("shm_open " + name);
    if (ftruncate(fd, static_cast<off_t>(kBytes + 4096)) != 0) fail("ftruncate");
    r.base = mmap(nullptr, kBytes + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (r.base == MAP_FAILED) fail("mmap");
    r.mat = static_cast<float*>(r.base);
    r.out = reinterpret_cast<float*>(static_cast<char*>(r.base) + kBytes);
    return r;
  }
};

// ---------------------------------------------------------------- transports ----------------
struct Options {
  std::string transport = "native";
  CommModel model = CommModel::SC;
  int runs = 30;
  std::string json, raw;
  int domain = 88;
};

CommModel parse_model(const std::string& s) {
  if (s == "SC") return CommModel::SC;
  if (s == "UM") return CommModel::UM;
  if (s == "ZC") return CommModel::ZC;
  fail("unknown model " + s);
}

std::vector<float> initial_state() {
  std::vector<float> s(kN);
  for (std::size_t i = 0; i < kN; ++i) s[i] = static_cast<float>(i % 97);
  return s;
}

float* aligned_floats(std::size_t n) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, n * sizeof(float)) != 0) fail("posix_memalign");
  std::memset(p, 0, n * sizeof(float));
  return static_cast<float*>(p);
}

volatile float g_sink = 0;

std::vector<double> run_native(const Options& o) {
  GpuNode gpu(o.model);
  auto state = initial_state();
  float* msg = o.model == CommModel::UM ? nullptr : aligned_floats(kN);
  std::vector<float> out(kRows);
  std::vector<double> t;
  for (int r = 0; r <= o.runs; ++r) {
    const double t0 = now_ms();
    float* m = msg;
    if (o.model == CommModel::UM) m = gpu.svm_matrix();
    cpu_work(state.data(), m);
    if (o.model == CommModel::UM) gpu.unmap_svm_matrix();
    gpu.process(m, out.data());
    g_sink = g_sink + out[0];
    if (r > 0) t.push_back(now_ms() - t0);
  }
  std::free(msg);
  return t;
}

pid_t fork_gpu_node(const std::function<void()>& body) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    body();
    std::fflush(nullptr);
    _exit(0);
  }
  return pid;
}

void reap(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("GPU node exited abnormally");
}

std::vector<double> run_dds(const Options& o, bool service) {
  const std::string rq = service ? "rq/gpu_cacheRequest" : "cpu_to_gpu";
  const std::string rr = service ? "rr/gpu_cacheReply" : "gpu_to_cpu";
  const int total = o.runs + 1;
  pid_t child = fork_gpu_node([&] {
    GpuNode gpu(o.model);
    Dds d(o.domain, rr, rq);
    d.wait_matched();
    std::vector<float> out(kRows);
    for (int r = 0; r < total; ++r) {
      std::uint64_t seq = 0;
      d.take([&](std::uint64_t s, const std::uint8_t* p, std::size_t n) {
        if (n != kBytes) fail("wrong request size");
        seq = s;
        // ZC wraps the sample's bytes; they are stable until the loan returns.
        gpu.process(reinterpret_cast<const float*>(p), out.data());
      });
      d.write(seq, out.data(), kOutBytes);
    }
  });
  Dds d(o.domain, rq, rr);
  d.wait_matched();
  auto state = initial_state();
  std::vector<float> msg(kN), out(kRows);
  std::vector<double> t;
  for (int r = 0; r < total; ++r) {
    const double t0 = now_ms();
    cpu_work(state.data(), msg.data());
    d.write(static_cast<std::uint64_t>(r), msg.data(), kBytes);
    bool matched = false;
    while (!matched) {
      d.take([&](std::uint64_t s, const std::uint8_t* p, std::size_t n) {
        if (service && s != static_cast<std::uint64_t>(r)) return;  // stale reply
        if (n != kOutBytes) fail("wrong reply size");
        std::memcpy(out.data(), p, n);
        matched = true;
      });
      if (!service) matched = true;
    }
    g_sink = g_sink + out[0];
    if (r > 0) t.push_back(now_ms() - t0);
  }
  reap(child);
  return t;
}

std::vector<double> run_shm_zc(const Options& o) {
  const std::string name = "/baton-seed000-" + std::to_string(getpid());
  ShmRegion shm = ShmRegion::create(name);
  const int total = o.runs + 1;
  std::uint64_t sync = 0;
  pid_t child = fork_gpu_node([&] {
    GpuNode gpu(o.model);
    Dds d(o.domain, "gpu_sync", "cpu_sync");
    d.wait_matched();
    for (int r = 0; r < total; ++r) {
      std::uint64_t seq = 0;
      d.take([&](std::uint64_t s, const std::uint8_t*, std::size_t) { seq = s; });
      gpu.process(shm.mat, shm.out);  // the data never travels: both map the same buffer
      d.write(seq, &sync, sizeof(sync));
    }
  });
  Dds d(o.domain, "cpu_sync", "gpu_sync");
  d.wait_matched();
  auto state = initial_state();
  std::vector<double> t;
  for (int r = 0; r < total; ++r) {
    const double t0 = now_ms();
    cpu_work(state.data(), shm.mat);
    d.write(static_cast<std::uint64_t>(r), &sync, sizeof(sync));
    d.take([&](std::uint64_t, const std::uint8_t*, std::size_t) {});
    g_sink = g_sink + shm.out[0];
    if (r > 0) t.push_back(now_ms() - t0);
  }
  reap(child);
  shm_unlink(name.c_str());
  return t;
}

const baton::topic::TypeInfo kMatType = baton::topic::TypeInfo::from_name("baton_bench/msg/Matrix");
const baton::topic::TypeInfo kOutType =
    baton::topic::TypeInfo::from_name("baton_bench/msg/RowSums");

template <typename Sub>
void wait_for(Sub& sub) {
  while (!sub->has_data()) {
    if (!sub->wait(200ms) && getppid() == 1) _exit(1);
  }
}

std::vector<double> run_baton(const Options& o) {
  const std::string ns = "bench-seed000-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  const int total = o.runs + 1;
  auto qos = baton::QoS(2).reliable().reliable_timeout(10s);
  pid_t child = fork_gpu_node([&] {
    GpuNode gpu(o.model);
    auto ctx = baton::Context::create();
    baton::Node node(ctx, "gpu_node");
    auto sub = node.raw_subscription("/seed000/matrix", kMatType).qos(qos).create();
    auto pub = node.raw_publisher("/seed000/rowsums", kOutType)
                   .qos(qos)
                   .max_message_size(kOutBytes)
                   .create();
    if (!sub || !pub) fail("baton endpoints (GPU node)");
    while (pub->subscription_count() == 0) std::this_thread::sleep_for(1ms);
    for (int r = 0; r < total; ++r) {
      wait_for(*sub);
      auto m = (*sub)->take();
      if (!m) continue;
      auto loan = pub->loan(kOutBytes);
      if (!loan) fail("loan");
      // The kernel reads the publisher's bytes in place (ZC / the SC copy engine's source).
      gpu.process(reinterpret_cast<const float*>(m->data()),
                  reinterpret_cast<float*>(loan->data()));
      if (!pub->publish(std::move(*loan), kOutBytes)) fail("publish");
    }
    while (pub->subscription_count() > 0 && getppid() != 1) std::this_thread::sleep_for(1ms);
  });
  auto ctx = baton::Context::create();
  baton::Node node(ctx, "cpu_node");
  auto pub =
      node.raw_publisher("/seed000/matrix", kMatType).qos(qos).max_message_size(kBytes).create();
  auto sub = node.raw_subscription("/seed000/rowsums", kOutType).qos(qos).create();
  if (!sub || !pub) fail("baton endpoints (CPU node)");
  while (pub->subscription_count() == 0 || (*sub)->publisher_count() == 0)
    std::this_thread::sleep_for(1ms);
  auto state = initial_state();
  std::vector<double> t;
  for (int r = 0; r < total; ++r) {
    const double t0 = now_ms();
    auto loan = pub->loan(kBytes);
    if (!loan) fail("loan");
    cpu_work(state.data(), reinterpret_cast<float*>(loan->data()));
    if (!pub->publish(std::move(*loan), kBytes)) fail("publish");
    wait_for(*sub);
    auto m = (*sub)->take();
    if (!m) fail("take");
    g_sink = g_sink + reinterpret_cast<const float*>(m->data())[0];
    if (r > 0) t.push_back(now_ms() - t0);
  }
  sub->reset();
  reap(child);
  return t;
}

// Subscription<T>::wait() does not return early for a message delivered through the
// unique-ownership path (the port's blocking wait re-checks only the shared-memory ring and
// sleeps on until its timeout), so the ROS-ZC threads poll has_data() every 20 us instead.
template <typename Sub>
void poll_for(Sub& sub) {
  while (!sub->has_data()) std::this_thread::sleep_for(20us);
}

std::vector<double> run_ros_zc(const Options& o) {
  const std::string ns = "bench-seed000-zc-" + std::to_string(getpid());
  setenv("BATON_NAMESPACE", ns.c_str(), 1);
  const int total = o.runs + 1;
  auto ctx = baton::Context::create();
  baton::Node cpu(ctx, "cpu_node"), gpun(ctx, "gpu_node");
  auto qos = baton::QoS(2).reliable().reliable_timeout(10s);
  auto mat_pub = cpu.publisher<Matrix>("/seed000/zc/matrix").qos(qos).create();
  auto out_sub = cpu.subscription<RowSums>("/seed000/zc/rowsums").qos(qos).create();
  auto mat_sub = gpun.subscription<Matrix>("/seed000/zc/matrix").qos(qos).create();
  auto out_pub = gpun.publisher<RowSums>("/seed000/zc/rowsums").qos(qos).create();
  if (!mat_pub || !out_sub || !mat_sub || !out_pub) fail("baton endpoints (ROS-ZC)");
  std::thread gpu_thread([&] {
    GpuNode gpu(o.model);
    for (int r = 0; r < total; ++r) {
      poll_for(*mat_sub);
      auto m = (*mat_sub)->take_unique();
      if (!m) fail("take_unique");
      auto reply = std::make_unique<RowSums>();
      gpu.process((*m)->m, reply->s);
      if (!out_pub->publish(std::move(reply))) fail("publish");
    }
  });
  auto state = initial_state();
  std::vector<double> t;
  for (int r = 0; r < total; ++r) {
    const double t0 = now_ms();
    auto msg = std::make_unique<Matrix>();  // a fresh message per publish: ownership moves
    cpu_work(state.data(), msg->m);
    if (!mat_pub->publish(std::move(msg))) fail("publish");
    poll_for(*out_sub);
    auto m = (*out_sub)->take_unique();
    if (!m) fail("take_unique");
    g_sink = g_sink + (*m)->s[0];
    if (r > 0) t.push_back(now_ms() - t0);
  }
  gpu_thread.join();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string model = "SC";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) fail("missing value for " + a);
      return argv[++i];
    };
    if (a == "--transport") {
      o.transport = next();
    } else if (a == "--model") {
      model = next();
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--quick") {
      o.runs = 5;
    } else if (a == "--json") {
      o.json = next();
    } else if (a == "--raw") {
      o.raw = next();
    } else if (a == "--domain") {
      o.domain = std::atoi(next().c_str());
    } else {
      std::printf(
          "usage: baton-bench-seed000 [--transport native|ros-sc-topic|ros-sc-service|ros-zc|\n"
          "         ros-shm-zc|baton] [--model SC|UM|ZC] [--runs N] [--quick] [--json PATH]\n"
          "         [--raw CSV] [--domain N]\n"
          "Seed 000's two-node cache benchmark: a CPU node and an OpenCL GPU-wrapper node.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  o.model = parse_model(model);
  setenv("CYCLONEDDS_URI", cyclone_config().c_str(), 1);
  std::vector<double> t;
  if (o.transport == "native") {
    t = run_native(o);
  } else if (o.transport == "ros-sc-topic") {
    t = run_dds(o, false);
  } else if (o.transport == "ros-sc-service") {
    t = run_dds(o, true);
  } else if (o.transport == "ros-shm-zc") {
    t = run_shm_zc(o);
  } else if (o.transport == "baton") {
    t = run_baton(o);
  } else if (o.transport == "ros-zc") {
    t = run_ros_zc(o);
  } else {
    fail("unknown transport " + o.transport);
  }
  double sum = 0;
  for (double x : t) sum += x;
  const double mean = sum / static_cast<double>(t.size());
  double sq = 0;
  for (double x : t) sq += (x - mean) * (x - mean);
  const double sd = t.size() > 1 ? std::sqrt(sq / static_cast<double>(t.size() - 1)) : 0.0;
  std::vector<double> sorted = t;
  const auto s = baton::bench::summarize(sorted);
  std::printf("%-15s %-3s runs %3zu  mean %9.2f ms  sd %8.2f  median %9.2f  p99 %9.2f  max %9.2f\n",
              o.transport.c_str(), model.c_str(), t.size(), mean, sd, s.median, s.p99, s.max);
  if (!o.json.empty()) {
    std::filesystem::path p(o.json);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    FILE* f = std::fopen(o.json.c_str(), "a");
    if (f) {
      std::fprintf(f,
                   "{\"system\":\"%s\",\"configuration\":\"2 nodes cache %s\",\"size\":%zu,"
                   "\"mean\":%.4f,\"median\":%.4f,\"sd\":%.4f,\"p99\":%.4f,\"max\":%.4f,"
                   "\"samples\":%zu,\"unit\":\"ms\"}\n",
                   o.transport.c_str(), model.c_str(), kBytes, mean, s.median, sd, s.p99, s.max,
                   t.size());
      std::fclose(f);
    }
  }
  if (!o.raw.empty()) {
    FILE* f = std::fopen(o.raw.c_str(), "w");
    if (f) {
      for (double x : t) std::fprintf(f, "%.6f\n", x);
      std::fclose(f);
    }
  }
  return 0;
}
