// baton-doctor: what memory domains this machine offers and how messages reach each of them.
//   baton-doctor [--format table|json]
// Lists OpenCL devices (any ICD) and CUDA devices with their unified-memory, SVM and IPC
// capabilities and the kernel I/O models (SC / UM / ZC) each supports, and says whether a
// subscriber in that domain gets the publisher's shared memory with no copy. Always exits 0:
// a missing driver is a finding, not an error.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "baton/memory/domain/cuda_backend.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "baton/memory/domain/nvrtc_compiler.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#endif

using namespace baton::memory::domain;

namespace {

const char* yes(bool b) { return b ? "yes" : "no"; }

std::string models(const DeviceInfo& d) {
  std::string s;
  for (CommModel m : {CommModel::SC, CommModel::UM, CommModel::ZC}) {
    if (!d.supports(m)) continue;
    if (!s.empty()) s += ",";
    s += to_string(m);
  }
  return s;
}

std::string json_escape(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

struct Row {
  std::string domain;
  DeviceInfo info;
  bool zero_copy = false;
};

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--format") && i + 1 < argc) {
      json = !std::strcmp(argv[++i], "json");
    } else {
      std::printf(
          "usage: baton-doctor [--format table|json]\n"
          "Lists memory domains (OpenCL, CUDA), their unified-memory / SVM / IPC capabilities\n"
          "and which kernel I/O models (SC standard copy, UM unified memory, ZC zero copy) each\n"
          "supports. Exits 0.\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 0;
    }
  }
  std::vector<Row> rows;
  std::string opencl_note;
#if BATON_HAVE_OPENCL
  const auto cl = OpenClBackend::list_devices();
  for (std::size_t i = 0; i < cl.size(); ++i) {
    rows.push_back({"opencl:" + std::to_string(i), cl[i], cl[i].host_unified});
  }
  if (cl.empty()) opencl_note = "no OpenCL platform found (install an ICD, e.g. pocl-opencl-icd)";
#else
  opencl_note = "built without OpenCL (the ICD loader was missing at build time)";
#endif
  const CudaProbe cuda = CudaBackend::probe();
  for (std::size_t i = 0; i < cuda.devices.size(); ++i) {
    rows.push_back({"cuda:" + std::to_string(i), cuda.devices[i], cuda.devices[i].host_unified});
  }
  char exe[4096] = {};
  std::vector<std::string> roots{"."};
  if (::readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0) {
    std::string dir(exe);
    for (int up = 0; up < 3 && dir.find('/') != std::string::npos; ++up) {
      dir = dir.substr(0, dir.rfind('/'));
      roots.push_back(dir);
    }
  }
  auto nvrtc = NvrtcCompiler::load(roots);
  const std::string nvrtc_text =
      nvrtc ? (*nvrtc)->library_path() : std::string("not found (scripts/install-cuda-wheels.sh)");

  if (json) {
    std::printf("{\"domains\":[");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::printf(
          "%s{\"domain\":\"%s\",\"name\":\"%s\",\"platform\":\"%s\",\"cpu\":%s,"
          "\"host_unified\":%s,\"svm_coarse\":%s,\"svm_fine\":%s,\"ipc\":%s,"
          "\"models\":\"%s\",\"zero_copy_from_shm\":%s,\"memory_bytes\":%llu}",
          i ? "," : "", r.domain.c_str(), json_escape(r.info.name).c_str(),
          json_escape(r.info.platform).c_str(), r.info.is_cpu ? "true" : "false",
          r.info.host_unified ? "true" : "false", r.info.svm_coarse ? "true" : "false",
          r.info.svm_fine ? "true" : "false", r.info.ipc ? "true" : "false", models(r.info).c_str(),
          r.zero_copy ? "true" : "false", static_cast<unsigned long long>(r.info.global_mem_bytes));
    }
    std::printf(
        "],\"opencl\":\"%s\",\"cuda\":\"%s\",\"cuda_driver_version\":%d,\"nvrtc\":\"%s\"}\n",
        json_escape(opencl_note.empty() ? "ok" : opencl_note).c_str(),
        json_escape(cuda.problem.empty() ? "ok" : cuda.problem).c_str(), cuda.driver_version,
        json_escape(nvrtc_text).c_str());
    return 0;
  }
  std::printf("baton doctor: memory domains on this machine\n\n");
  std::printf("  %-10s %-8s %-7s %-9s %-9s %-4s %-9s %-10s %s\n", "DOMAIN", "TYPE", "UNIFIED",
              "SVM-COARSE", "SVM-FINE", "IPC", "MODELS", "SHM-ZC", "DEVICE");
  std::printf("  %-10s %-8s %-7s %-9s %-9s %-4s %-9s %-10s %s\n", "host", "cpu", "yes", "-", "-",
              "yes", "SC,UM,ZC", "yes", "host memory (always present)");
  std::printf("  %-10s %-8s %-7s %-9s %-9s %-4s %-9s %-10s %s\n", "staging", "cpu", "yes", "-", "-",
              "yes", "SC", "no", "host shm pool that really copies (tests)");
  for (const auto& r : rows) {
    std::printf(
        "  %-10s %-8s %-7s %-9s %-9s %-4s %-9s %-10s %s (%s, %llu MiB, %u CUs)\n", r.domain.c_str(),
        r.info.is_cpu ? "cpu" : "gpu/acc", yes(r.info.host_unified), yes(r.info.svm_coarse),
        yes(r.info.svm_fine), yes(r.info.ipc), models(r.info).c_str(), r.zero_copy ? "yes" : "no",
        r.info.name.c_str(), r.info.platform.c_str(),
        static_cast<unsigned long long>(r.info.global_mem_bytes >> 20), r.info.compute_units);
  }
  std::printf("\n");
  std::printf("  OpenCL: %s\n", opencl_note.empty() ? "ok" : opencl_note.c_str());
  if (cuda.problem.empty()) {
    std::printf("  CUDA:   driver %d, %zu device(s)\n", cuda.driver_version, cuda.devices.size());
  } else {
    std::printf("  CUDA:   %s\n", cuda.problem.c_str());
  }
  std::printf("  NVRTC:  %s\n", nvrtc_text.c_str());
  std::printf(
      "\n  SHM-ZC yes: a subscriber in that domain runs its kernels on the publisher's shared\n"
      "  memory (no copy, even in another process). Otherwise a message is copied into the\n"
      "  domain once, on the first take that needs it, and shared by every subscriber there\n"
      "  (per process for OpenCL devices without host-unified memory).\n");
  return 0;
}
