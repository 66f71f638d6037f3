#include "baton/memory/domain/opencl_backend.hpp"

#include <cstdlib>
#include <cstring>

namespace baton::memory::domain {
namespace {

using E = Error<DomainError>;

struct DeviceEntry {
  cl_platform_id platform;
  cl_device_id device;
};

std::vector<DeviceEntry> all_devices() {
  std::vector<DeviceEntry> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> platforms(np);
  if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return out;
  for (auto p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (auto d : devices) out.push_back({p, d});
  }
  return out;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  return clGetDeviceInfo(d, what, sizeof(T), &v, nullptr) == CL_SUCCESS ? v : fallback;
}

DeviceInfo describe(const DeviceEntry& e) {
  DeviceInfo i;
  i.name = device_string(e.device, CL_DEVICE_NAME);
  i.platform = platform_string(e.platform, CL_PLATFORM_NAME);
  i.version = device_string(e.device, CL_DEVICE_VERSION);
  i.global_mem_bytes = device_value<cl_ulong>(e.device, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
  i.compute_units = device_value<cl_uint>(e.device, CL_DEVICE_MAX_COMPUTE_UNITS, 0);
  i.base_align_bytes = device_value<cl_uint>(e.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, 1024) / 8;
  i.is_cpu = (device_value<cl_device_type>(e.device, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_CPU) != 0;
  i.host_unified = device_value<cl_bool>(e.device, CL_DEVICE_HOST_UNIFIED_MEMORY, CL_FALSE) != 0;
  const auto svm =
      device_value<cl_device_svm_capabilities>(e.device, CL_DEVICE_SVM_CAPABILITIES, 0);
  i.svm_coarse = (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
  i.svm_fine = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  i.ipc = false;           // no standard cross-process device buffers in OpenCL
  i.host_register = true;  // CL_MEM_USE_HOST_PTR exists on every device (ZC by map / unmap)
  return i;
}

struct ClMem {
  cl_mem mem = nullptr;
  ~ClMem() {
    if (mem != nullptr) clReleaseMemObject(mem);
  }
};

void* aligned_host(std::uint64_t n) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, n == 0 ? 4096 : (n + 4095) / 4096 * 4096) != 0) return nullptr;
  return p;
}

}  // namespace

std::string cl_status_text(cl_int s) {
  switch (s) {
    case CL_SUCCESS:
      return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET:
      return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_HOST_PTR:
      return "CL_INVALID_HOST_PTR";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case -1001:  // CL_PLATFORM_NOT_FOUND_KHR (cl_ext.h)
      return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform / ICD installed)";
    default:
      return "OpenCL status " + std::to_string(s);
  }
}

// SC / UM / ZC kernel I/O buffers (see KernelBuffer).
class OpenClKernelBuffer : public KernelBuffer {
 public:
  OpenClKernelBuffer(OpenClBackend& b, CommModel m, std::uint64_t n) : KernelBuffer(m, n), b_(b) {}
  ~OpenClKernelBuffer() override {
    if (mem_ != nullptr) clReleaseMemObject(mem_);
    if (svm_ != nullptr) clSVMFree(b_.context(), svm_);
    std::free(host_);
  }

  Status<DomainError> init() {
    cl_int st = CL_SUCCESS;
    switch (model_) {
      case CommModel::SC:
        host_ = aligned_host(size_);
        mem_ = clCreateBuffer(b_.context(), CL_MEM_READ_WRITE, size_, nullptr, &st);
        break;
      case CommModel::UM:
        fine_ = b_.info().svm_fine;
        if (!fine_ && !b_.info().svm_coarse) return unexpected(DomainError::Unsupported);
        svm_ = clSVMAlloc(b_.context(),
                          CL_MEM_READ_WRITE | (fine_ ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0), size_, 0);
        if (svm_ == nullptr) st = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        break;
      case CommModel::ZC:
        host_ = aligned_host(size_);
        if (host_ != nullptr) {
          mem_ = clCreateBuffer(b_.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size_, host_,
                                &st);
        }
        break;
    }
    if (st != CL_SUCCESS || (model_ != CommModel::UM && host_ == nullptr)) {
      return unexpected(DomainError::OutOfMemory);
    }
    return Ok{};
  }

  std::byte* begin_host(Access a) override {
    cl_int st = CL_SUCCESS;
    switch (model_) {
      case CommModel::SC:
        return static_cast<std::byte*>(host_);
      case CommModel::UM:
        if (!fine_) {
          clEnqueueSVMMap(b_.queue(), CL_TRUE, map_flags(a), svm_, size_, 0, nullptr, nullptr);
        }
        return static_cast<std::byte*>(svm_);
      case CommModel::ZC:
        mapped_ = clEnqueueMapBuffer(b_.queue(), mem_, CL_TRUE, map_flags(a), 0, size_, 0, nullptr,
                                     nullptr, &st);
        return st == CL_SUCCESS ? static_cast<std::byte*>(mapped_) : nullptr;
    }
    return nullptr;
  }
  void end_host() override {
    if (model_ == CommModel::UM && !fine_) {
      clEnqueueSVMUnmap(b_.queue(), svm_, 0, nullptr, nullptr);
      clFinish(b_.queue());
    } else if (model_ == CommModel::ZC && mapped_ != nullptr) {
      clEnqueueUnmapMemObject(b_.queue(), mem_, mapped_, 0, nullptr, nullptr);
      clFinish(b_.queue());
      mapped_ = nullptr;
    }
  }
  DeviceView begin_device(Access a) override {
    if (model_ == CommModel::SC && (static_cast<int>(a) & static_cast<int>(Access::Read)) != 0) {
      clEnqueueWriteBuffer(b_.queue(), mem_, CL_TRUE, 0, size_, host_, 0, nullptr, nullptr);
      b_.counted(size_);
    }
    DeviceView v;
    v.size = size_;
    if (model_ == CommModel::UM) {
      v.host = static_cast<std::byte*>(svm_);
      v.svm = true;
    } else {
      v.native = mem_;
    }
    return v;
  }
  void end_device(Access a) override {
    if (model_ == CommModel::SC && (static_cast<int>(a) & static_cast<int>(Access::Write)) != 0) {
      clEnqueueReadBuffer(b_.queue(), mem_, CL_TRUE, 0, size_, host_, 0, nullptr, nullptr);
      b_.counted(size_);
    } else {
      clFinish(b_.queue());
    }
  }

 private:
  static cl_map_flags map_flags(Access a) {
    cl_map_flags f = 0;
    if ((static_cast<int>(a) & static_cast<int>(Access::Read)) != 0) f |= CL_MAP_READ;
    if ((static_cast<int>(a) & static_cast<int>(Access::Write)) != 0) f |= CL_MAP_WRITE;
    return f;
  }
  OpenClBackend& b_;
  void* host_ = nullptr;
  void* svm_ = nullptr;
  void* mapped_ = nullptr;
  cl_mem mem_ = nullptr;
  bool fine_ = false;
};

std::vector<DeviceInfo> OpenClBackend::list_devices() {
  std::vector<DeviceInfo> out;
  for (const auto& e : all_devices()) out.push_back(describe(e));
  return out;
}

Result<std::shared_ptr<OpenClBackend>, Error<DomainError>> OpenClBackend::open(
    const DomainSpec& spec) {
  const auto devices = all_devices();
  if (devices.empty()) {
    return unexpected(E{DomainError::Unavailable,
                        "no OpenCL platform / device found (is an ICD "
                        "such as pocl-opencl-icd installed?)"});
  }
  if (spec.device >= devices.size()) {
    return unexpected(
        E{DomainError::Unavailable,
          spec.str() + ": only " + std::to_string(devices.size()) + " OpenCL device(s) found"});
  }
  std::shared_ptr<OpenClBackend> b(new OpenClBackend(spec));
  b->platform_ = devices[spec.device].platform;
  b->device_ = devices[spec.device].device;
  b->info_ = describe(devices[spec.device]);
  cl_int st = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(b->platform_), 0};
  b->context_ = clCreateContext(props, 1, &b->device_, nullptr, nullptr, &st);
  if (st != CL_SUCCESS) {
    return unexpected(E{DomainError::Unavailable, "clCreateContext: " + cl_status_text(st)});
  }
  b->queue_ = clCreateCommandQueue(b->context_, b->device_, 0, &st);
  if (st != CL_SUCCESS) {
    return unexpected(E{DomainError::Unavailable, "clCreateCommandQueue: " + cl_status_text(st)});
  }
  return b;
}

OpenClBackend::~OpenClBackend() {
  if (queue_ != nullptr) {
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
  }
  if (context_ != nullptr) clReleaseContext(context_);
}

Result<DomainPool, Error<DomainError>> OpenClBackend::create_pool(std::uint64_t bytes,
                                                                  const std::string&) {
  cl_int st = CL_SUCCESS;
  auto m = std::make_shared<ClMem>();
  m->mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  if (st != CL_SUCCESS) {
    return unexpected(E{DomainError::OutOfMemory,
                        "clCreateBuffer(" + std::to_string(bytes) + "): " + cl_status_text(st)});
  }
  DomainPool p;
  p.bytes = bytes;
  p.native = m->mem;
  p.impl = std::move(m);
  return p;
}

Status<DomainError> OpenClBackend::copy_from_host(const DomainPool& dst, std::uint64_t offset,
                                                  const void* src, std::uint64_t n) {
  if (!in_range(dst, offset, n)) return unexpected(DomainError::OutOfRange);
  const cl_int st = clEnqueueWriteBuffer(queue_, static_cast<cl_mem>(dst.native), CL_TRUE, offset,
                                         n, src, 0, nullptr, nullptr);
  if (st != CL_SUCCESS) return unexpected(DomainError::CopyFailed);
  count_copy(n);
  return Ok{};
}

Status<DomainError> OpenClBackend::copy_to_host(void* dst, const DomainPool& src,
                                                std::uint64_t offset, std::uint64_t n) {
  if (!in_range(src, offset, n)) return unexpected(DomainError::OutOfRange);
  const cl_int st = clEnqueueReadBuffer(queue_, static_cast<cl_mem>(src.native), CL_TRUE, offset, n,
                                        dst, 0, nullptr, nullptr);
  if (st != CL_SUCCESS) return unexpected(DomainError::CopyFailed);
  count_copy(n);
  return Ok{};
}

bool OpenClBackend::copy_within(const DomainPool& dst, std::uint64_t dst_offset,
                                const DomainPool& src, std::uint64_t src_offset, std::uint64_t n) {
  const cl_int st =
      clEnqueueCopyBuffer(queue_, static_cast<cl_mem>(src.native), static_cast<cl_mem>(dst.native),
                          src_offset, dst_offset, n, 0, nullptr, nullptr);
  if (st != CL_SUCCESS) return false;
  clFinish(queue_);
  count_copy(n);
  return true;
}

Result<DeviceView, Error<DomainError>> OpenClBackend::view(const DomainPool& pool,
                                                           std::uint64_t offset, std::uint64_t n) {
  if (!in_range(pool, offset, n) || n == 0) {
    return unexpected(E{DomainError::OutOfRange, "view outside the pool"});
  }
  cl_buffer_region region{offset, n};
  cl_int st = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(static_cast<cl_mem>(pool.native), CL_MEM_READ_WRITE,
                                 CL_BUFFER_CREATE_TYPE_REGION, &region, &st);
  if (st != CL_SUCCESS) {
    return unexpected(E{DomainError::OutOfRange, "clCreateSubBuffer: " + cl_status_text(st)});
  }
  DeviceView v;
  v.native = sub;
  v.size = n;
  v.owns_native = true;
  return v;
}

Result<DeviceView, Error<DomainError>> OpenClBackend::wrap_host(std::byte* host, std::uint64_t n) {
  cl_int st = CL_SUCCESS;
  cl_mem m =
      clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n == 0 ? 1 : n, host, &st);
  if (st != CL_SUCCESS) {
    return unexpected(
        E{DomainError::Unsupported, "clCreateBuffer(CL_MEM_USE_HOST_PTR): " + cl_status_text(st)});
  }
  DeviceView v;
  v.host = host;
  v.native = m;
  v.size = n;
  v.owns_native = true;
  return v;
}

void OpenClBackend::release_view(DeviceView& v) noexcept {
  if (v.owns_native && v.native != nullptr) clReleaseMemObject(static_cast<cl_mem>(v.native));
  v = {};
}

Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> OpenClBackend::kernel_buffer(
    std::uint64_t n, CommModel m) {
  auto buf = std::make_unique<OpenClKernelBuffer>(*this, m, n);
  if (auto s = buf->init(); !s) {
    return unexpected(E{s.error(), std::string(to_string(m)) + " buffer of " + std::to_string(n) +
                                       " bytes: " + std::string(to_string(s.error()))});
  }
  return std::unique_ptr<KernelBuffer>(std::move(buf));
}

Result<cl_program, Error<DomainError>> OpenClBackend::build(const std::string& source,
                                                            const std::string& options) {
  const char* text = source.c_str();
  const std::size_t len = source.size();
  cl_int st = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(context_, 1, &text, &len, &st);
  if (st != CL_SUCCESS) {
    return unexpected(
        E{DomainError::CompileFailed, "clCreateProgramWithSource: " + cl_status_text(st)});
  }
  st = clBuildProgram(prog, 1, &device_, options.c_str(), nullptr, nullptr);
  if (st != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    clReleaseProgram(prog);
    return unexpected(E{DomainError::CompileFailed, cl_status_text(st) + ": " + log});
  }
  return prog;
}

}  // namespace baton::memory::domain
