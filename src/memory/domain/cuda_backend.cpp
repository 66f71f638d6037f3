// Compiled everywhere, run only where a CUDA driver and device exist (never in baton's CI).
#include "baton/memory/domain/cuda_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "baton/memory/domain/fd_passing.hpp"

namespace baton::memory::domain {

using namespace detail;  // NOLINT: the driver API's own names
using E = Error<DomainError>;

namespace {

struct Loaded {
  CudaDriverApi api{};
  std::string problem;  // empty when loaded
};

// The driver, loaded once per process (never unloaded).
const Loaded& driver() {
  static const Loaded loaded = [] {
    Loaded l;
    void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      l.problem = std::string("no CUDA driver found (libcuda.so.1: ") + ::dlerror() + ")";
      return l;
    }
    bool ok = true;
    std::string missing;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      if (fn == nullptr) {
        ok = false;
        missing += std::string(" ") + name;
      }
    };
    CudaDriverApi& a = l.api;
    sym(a.cuInit, "cuInit");
    sym(a.cuDriverGetVersion, "cuDriverGetVersion");
    sym(a.cuGetErrorString, "cuGetErrorString");
    sym(a.cuDeviceGetCount, "cuDeviceGetCount");
    sym(a.cuDeviceGet, "cuDeviceGet");
    sym(a.cuDeviceGetName, "cuDeviceGetName");
    sym(a.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    sym(a.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
    sym(a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    sym(a.cuCtxSetCurrent, "cuCtxSetCurrent");
    sym(a.cuCtxSynchronize, "cuCtxSynchronize");
    sym(a.cuMemAlloc, "cuMemAlloc_v2");
    sym(a.cuMemFree, "cuMemFree_v2");
    sym(a.cuMemAllocManaged, "cuMemAllocManaged");
    sym(a.cuMemHostAlloc, "cuMemHostAlloc");
    sym(a.cuMemFreeHost, "cuMemFreeHost");
    sym(a.cuMemHostRegister, "cuMemHostRegister_v2");
    sym(a.cuMemHostUnregister, "cuMemHostUnregister");
    sym(a.cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
    sym(a.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(a.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    sym(a.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
    sym(a.cuIpcGetMemHandle, "cuIpcGetMemHandle");
    sym(a.cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2");
    sym(a.cuIpcCloseMemHandle, "cuIpcCloseMemHandle");
    sym(a.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity");
    sym(a.cuMemCreate, "cuMemCreate");
    sym(a.cuMemRelease, "cuMemRelease");
    sym(a.cuMemExportToShareableHandle, "cuMemExportToShareableHandle");
    sym(a.cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle");
    sym(a.cuMemAddressReserve, "cuMemAddressReserve");
    sym(a.cuMemAddressFree, "cuMemAddressFree");
    sym(a.cuMemMap, "cuMemMap");
    sym(a.cuMemUnmap, "cuMemUnmap");
    sym(a.cuMemSetAccess, "cuMemSetAccess");
    sym(a.cuModuleLoadData, "cuModuleLoadData");
    sym(a.cuModuleUnload, "cuModuleUnload");
    sym(a.cuModuleGetFunction, "cuModuleGetFunction");
    sym(a.cuLaunchKernel, "cuLaunchKernel");
    if (!ok) l.problem = "CUDA driver too old (missing:" + missing + ")";
    return l;
  }();
  return loaded;
}

std::string error_text(const CudaDriverApi& a, CUresult r) {
  const char* s = nullptr;
  if (a.cuGetErrorString != nullptr && a.cuGetErrorString(r, &s) == CUDA_SUCCESS && s != nullptr) {
    return s;
  }
  return "CUDA error " + std::to_string(r);
}

int attribute(const CudaDriverApi& a, CUdevice d, int what) {
  int v = 0;
  return a.cuDeviceGetAttribute(&v, what, d) == CUDA_SUCCESS ? v : 0;
}

DeviceInfo describe(const CudaDriverApi& a, CUdevice d, bool* vmm_fd) {
  DeviceInfo i;
  char name[256] = {};
  a.cuDeviceGetName(name, sizeof(name) - 1, d);
  i.name = name;
  i.platform = "CUDA";
  std::size_t mem = 0;
  a.cuDeviceTotalMem(&mem, d);
  i.global_mem_bytes = mem;
  i.compute_units =
      static_cast<std::uint32_t>(attribute(a, d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  i.base_align_bytes = 256;
  i.host_unified = attribute(a, d, CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
  i.host_register = attribute(a, d, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0;
  i.svm_coarse = attribute(a, d, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
  i.svm_fine = attribute(a, d, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) != 0;
  const bool fd =
      attribute(a, d, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED) != 0 &&
      attribute(a, d, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED) != 0;
  if (vmm_fd != nullptr) *vmm_fd = fd;
  // Legacy cuIpc handles work on discrete GPUs only; integrated devices share host memory.
  i.ipc = fd || !i.host_unified;
  return i;
}

// Export blob layout (in the domain table, untrusted): byte 0 kind, bytes 8..15 size,
// bytes 16..63 unused (VMM) or bytes 0..63 the legacy handle when byte 0 is not a kind tag.
constexpr std::uint8_t EXPORT_VMM_FD = 0xF1;
constexpr std::uint8_t EXPORT_LEGACY = 0xF2;

struct CudaAllocation {
  const CudaDriverApi* api = nullptr;
  CUcontext ctx = nullptr;
  enum class Kind { Plain, Vmm, ImportedVmm, ImportedIpc } kind = Kind::Plain;
  CUdeviceptr ptr = 0;
  std::size_t size = 0;
  CUmemGenericAllocationHandle handle = 0;
  std::unique_ptr<FdServer> server;  // serves the VMM fd to importers
  ~CudaAllocation() {
    if (api == nullptr) return;
    api->cuCtxSetCurrent(ctx);
    if (kind == Kind::Vmm || kind == Kind::ImportedVmm) {
      if (ptr != 0) {
        api->cuMemUnmap(ptr, size);  // harmless if the map itself failed
        api->cuMemAddressFree(ptr, size);
      }
      if (handle != 0) api->cuMemRelease(handle);
      return;
    }
    if (ptr == 0) return;
    switch (kind) {
      case Kind::Plain:
        api->cuMemFree(ptr);
        break;
      case Kind::Vmm:
      case Kind::ImportedVmm:
        break;  // released above
      case Kind::ImportedIpc:
        api->cuIpcCloseMemHandle(ptr);
        break;
    }
  }
};

}  // namespace

CudaProbe CudaBackend::probe() {
  CudaProbe p;
  const Loaded& l = driver();
  if (!l.problem.empty()) {
    p.problem = l.problem;
    return p;
  }
  p.driver_loaded = true;
  const CUresult r = l.api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    p.problem = "no CUDA driver / device found (cuInit: " + error_text(l.api, r) + ")";
    return p;
  }
  p.initialised = true;
  l.api.cuDriverGetVersion(&p.driver_version);
  int n = 0;
  l.api.cuDeviceGetCount(&n);
  for (int i = 0; i < n; ++i) {
    CUdevice d = 0;
    if (l.api.cuDeviceGet(&d, i) == CUDA_SUCCESS) p.devices.push_back(describe(l.api, d, nullptr));
  }
  if (p.devices.empty()) p.problem = "no CUDA device found";
  return p;
}

Result<std::shared_ptr<CudaBackend>, Error<DomainError>> CudaBackend::open(const DomainSpec& spec) {
  const CudaProbe p = probe();
  if (!p.problem.empty()) return unexpected(E{DomainError::Unavailable, p.problem});
  if (spec.device >= p.devices.size()) {
    return unexpected(
        E{DomainError::Unavailable,
          spec.str() + ": only " + std::to_string(p.devices.size()) + " CUDA device(s) found"});
  }
  const CudaDriverApi& a = driver().api;
  std::shared_ptr<CudaBackend> b(new CudaBackend(spec));
  b->api_ = &a;
  if (auto r = a.cuDeviceGet(&b->device_, static_cast<int>(spec.device)); r != CUDA_SUCCESS) {
    return unexpected(E{DomainError::Unavailable, "cuDeviceGet: " + error_text(a, r)});
  }
  if (auto r = a.cuDevicePrimaryCtxRetain(&b->context_, b->device_); r != CUDA_SUCCESS) {
    return unexpected(E{DomainError::Unavailable, "cuDevicePrimaryCtxRetain: " + error_text(a, r)});
  }
  b->info_ = describe(a, b->device_, &b->vmm_fd_);
  // BATON_CUDA_IPC=legacy exports pools with cuIpcGetMemHandle even where VMM fds work: how the
  // fallback is tested on a VMM-capable GPU, and a way around fd passing where it is blocked.
  if (const char* ipc = std::getenv("BATON_CUDA_IPC");
      ipc != nullptr && !b->info_.host_unified && std::strcmp(ipc, "legacy") == 0) {
    b->vmm_fd_ = false;
  }
  // Registrations serve copies (PORTABLE: any context may use them) and views (DEVICEMAP, where
  // the device can map host memory). The driver calls may run on a thread unmapping a segment,
  // so each makes the context current itself.
  const unsigned flags =
      CU_MEMHOSTREGISTER_PORTABLE |
      (b->info_.host_register || b->info_.host_unified ? CU_MEMHOSTREGISTER_DEVICEMAP : 0u);
  const CUcontext ctx = b->context_;
  detail::HostRegistrations::Driver driver;
  driver.lock = [&a, ctx, flags](std::uintptr_t begin, std::uint64_t size) -> std::string {
    a.cuCtxSetCurrent(ctx);
    const CUresult r = a.cuMemHostRegister(reinterpret_cast<void*>(begin), size, flags);
    return r == CUDA_SUCCESS ? std::string() : "cuMemHostRegister: " + error_text(a, r);
  };
  driver.unlock = [&a, ctx](std::uintptr_t begin, std::uint64_t) {
    a.cuCtxSetCurrent(ctx);
    a.cuMemHostUnregister(reinterpret_cast<void*>(begin));
  };
  b->pins_ = std::make_unique<detail::HostRegistrations>(std::move(driver), spec.str());
  return b;
}

CudaBackend::~CudaBackend() {
  if (api_ == nullptr) return;
  make_current();
  for (auto& [ptx, m] : modules_) api_->cuModuleUnload(m);
  pins_.reset();  // unregisters, in the context still retained
  api_->cuDevicePrimaryCtxRelease(device_);
}

std::string CudaBackend::status(CUresult r) const { return error_text(*api_, r); }
void CudaBackend::make_current() const { api_->cuCtxSetCurrent(context_); }

Result<DomainPool, Error<DomainError>> CudaBackend::create_pool(std::uint64_t bytes,
                                                                const std::string& name) {
  make_current();
  auto alloc = std::make_shared<CudaAllocation>();
  alloc->api = api_;
  alloc->ctx = context_;
  if (vmm_fd_) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, device_};
    std::size_t gran = 0;
    api_->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (gran == 0) gran = 2u << 20;
    const std::size_t size = (bytes + gran - 1) / gran * gran;
    CUresult r = api_->cuMemCreate(&alloc->handle, size, &prop, 0);
    if (r != CUDA_SUCCESS)
      return unexpected(E{DomainError::OutOfMemory, "cuMemCreate: " + status(r)});
    alloc->kind = CudaAllocation::Kind::Vmm;
    alloc->size = size;
    r = api_->cuMemAddressReserve(&alloc->ptr, size, gran, 0, 0);
    if (r == CUDA_SUCCESS) r = api_->cuMemMap(alloc->ptr, size, 0, alloc->handle, 0);
    const CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, device_},
                                 CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    if (r == CUDA_SUCCESS) r = api_->cuMemSetAccess(alloc->ptr, size, &access, 1);
    if (r != CUDA_SUCCESS) return unexpected(E{DomainError::OutOfMemory, "cuMemMap: " + status(r)});
  } else {
    const CUresult r = api_->cuMemAlloc(&alloc->ptr, bytes);
    if (r != CUDA_SUCCESS)
      return unexpected(E{DomainError::OutOfMemory, "cuMemAlloc: " + status(r)});
    alloc->size = bytes;
  }
  (void)name;
  DomainPool p;
  p.bytes = bytes;
  p.device = alloc->ptr;
  p.impl = std::move(alloc);
  return p;
}

Result<PoolExport, Error<DomainError>> CudaBackend::export_pool(const DomainPool& pool) {
  auto* alloc = static_cast<CudaAllocation*>(pool.impl.get());
  PoolExport out;
  make_current();
  if (alloc->kind == CudaAllocation::Kind::Vmm) {
    int fd = -1;
    const CUresult r = api_->cuMemExportToShareableHandle(
        &fd, alloc->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (r != CUDA_SUCCESS) {
      return unexpected(E{DomainError::ExportFailed, "cuMemExportToShareableHandle: " + status(r)});
    }
    // The fd reaches importers through an FdServer named after the pool's device address.
    auto server = FdServer::serve(
        "cuda." + std::to_string(::getpid()) + "." + std::to_string(alloc->ptr), fd);
    ::close(fd);
    if (!server) return unexpected(server.error());
    alloc->server = std::move(*server);
    out.blob[0] = EXPORT_VMM_FD;
    const std::uint64_t size = alloc->size;
    std::memcpy(out.blob + 8, &size, 8);
    const std::uint64_t pid = static_cast<std::uint64_t>(::getpid());
    std::memcpy(out.blob + 16, &pid, 8);
    const std::uint64_t ptr = alloc->ptr;
    std::memcpy(out.blob + 24, &ptr, 8);
    return out;
  }
  CUipcMemHandle h{};
  const CUresult r = api_->cuIpcGetMemHandle(&h, alloc->ptr);
  if (r != CUDA_SUCCESS)
    return unexpected(E{DomainError::ExportFailed, "cuIpcGetMemHandle: " + status(r)});
  static_assert(sizeof(h) == sizeof(out.blob));
  std::memcpy(out.blob, &h, sizeof(h));
  return out;
}

Result<DomainPool, Error<DomainError>> CudaBackend::import_pool(const std::string& name,
                                                                std::uint64_t bytes,
                                                                const PoolExport& exported) {
  make_current();
  auto alloc = std::make_shared<CudaAllocation>();
  alloc->api = api_;
  alloc->ctx = context_;
  if (exported.blob[0] == EXPORT_VMM_FD) {
    std::uint64_t size = 0, pid = 0, ptr = 0;
    std::memcpy(&size, exported.blob + 8, 8);
    std::memcpy(&pid, exported.blob + 16, 8);
    std::memcpy(&ptr, exported.blob + 24, 8);
    // The blob is untrusted: a size or exporter that cannot be real fails here, not in a wait
    // for an fd server that is not there (a size the allocation lacks fails in cuMemMap).
    if (size < bytes) {
      return unexpected(E{DomainError::OutOfRange, "pool '" + name + "': export holds " +
                                                       std::to_string(size) + " bytes, " +
                                                       std::to_string(bytes) + " asked"});
    }
    if (size == 0 || pid == 0 || pid > static_cast<std::uint64_t>(INT32_MAX) || ptr == 0) {
      return unexpected(
          E{DomainError::ExportFailed, "pool '" + name + "': corrupt CUDA export record"});
    }
    auto fd = fetch_fd("cuda." + std::to_string(pid) + "." + std::to_string(ptr));
    if (!fd) return unexpected(fd.error());
    CUresult r = api_->cuMemImportFromShareableHandle(
        &alloc->handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(*fd)),
        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(*fd);
    if (r != CUDA_SUCCESS) {
      return unexpected(
          E{DomainError::ExportFailed, "cuMemImportFromShareableHandle: " + status(r)});
    }
    alloc->kind = CudaAllocation::Kind::ImportedVmm;
    alloc->size = size;
    r = api_->cuMemAddressReserve(&alloc->ptr, size, 0, 0, 0);
    if (r == CUDA_SUCCESS) r = api_->cuMemMap(alloc->ptr, size, 0, alloc->handle, 0);
    const CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, device_},
                                 CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    if (r == CUDA_SUCCESS) r = api_->cuMemSetAccess(alloc->ptr, size, &access, 1);
    if (r != CUDA_SUCCESS)
      return unexpected(E{DomainError::ExportFailed, "cuMemMap: " + status(r)});
  } else {
    CUipcMemHandle h{};
    std::memcpy(&h, exported.blob, sizeof(h));
    const CUresult r = api_->cuIpcOpenMemHandle(&alloc->ptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (r != CUDA_SUCCESS) {
      return unexpected(
          E{DomainError::ExportFailed, "pool '" + name + "': cuIpcOpenMemHandle: " + status(r)});
    }
    alloc->kind = CudaAllocation::Kind::ImportedIpc;
    alloc->size = bytes;
  }
  DomainPool p;
  p.bytes = bytes;
  p.device = alloc->ptr;
  p.impl = std::move(alloc);
  return p;
}

Status<DomainError> CudaBackend::copy_from_host(const DomainPool& dst, std::uint64_t offset,
                                                const void* src, std::uint64_t n) {
  if (!in_range(dst, offset, n)) return unexpected(DomainError::OutOfRange);
  make_current();
  const CUresult r =
      pins_->copy(src, n, [&] { return api_->cuMemcpyHtoD(dst.device + offset, src, n); });
  if (r != CUDA_SUCCESS) return unexpected(DomainError::CopyFailed);
  count_copy(n);
  return Ok{};
}

Status<DomainError> CudaBackend::copy_to_host(void* dst, const DomainPool& src,
                                              std::uint64_t offset, std::uint64_t n) {
  if (!in_range(src, offset, n)) return unexpected(DomainError::OutOfRange);
  make_current();
  const CUresult r =
      pins_->copy(dst, n, [&] { return api_->cuMemcpyDtoH(dst, src.device + offset, n); });
  if (r != CUDA_SUCCESS) return unexpected(DomainError::CopyFailed);
  count_copy(n);
  return Ok{};
}

bool CudaBackend::copy_within(const DomainPool& dst, std::uint64_t dst_offset,
                              const DomainPool& src, std::uint64_t src_offset, std::uint64_t n) {
  make_current();
  if (api_->cuMemcpyDtoD(dst.device + dst_offset, src.device + src_offset, n) != CUDA_SUCCESS) {
    return false;
  }
  count_copy(n);
  return true;
}

Result<DeviceView, Error<DomainError>> CudaBackend::view(const DomainPool& pool,
                                                         std::uint64_t offset, std::uint64_t n) {
  if (!in_range(pool, offset, n))
    return unexpected(E{DomainError::OutOfRange, "view outside pool"});
  DeviceView v;
  v.device = pool.device + offset;
  v.size = n;
  return v;
}

Result<DeviceView, Error<DomainError>> CudaBackend::wrap_host(std::byte* host, std::uint64_t n) {
  if (!info_.host_register && !info_.host_unified) {
    return unexpected(E{DomainError::Unsupported, info_.name + " cannot map host memory"});
  }
  make_current();
  if (std::string why = pins_->view(host, n); !why.empty()) {
    return unexpected(E{DomainError::Unsupported, why});
  }
  CUdeviceptr d = 0;
  const CUresult r = api_->cuMemHostGetDevicePointer(&d, host, 0);
  if (r != CUDA_SUCCESS) {
    return unexpected(E{DomainError::Unsupported, "cuMemHostGetDevicePointer: " + status(r)});
  }
  DeviceView v;
  v.host = host;
  v.device = d;
  v.size = n;
  return v;
}

// SC: pinned host + device buffer; UM: managed memory; ZC: pinned mapped host memory.
class CudaKernelBuffer : public KernelBuffer {
 public:
  CudaKernelBuffer(CudaBackend& b, CommModel m, std::uint64_t n) : KernelBuffer(m, n), b_(b) {}
  ~CudaKernelBuffer() override {
    const auto& a = b_.api();
    b_.make_current();
    if (model_ == CommModel::UM) {
      if (dev_ != 0) a.cuMemFree(dev_);
    } else {
      if (model_ == CommModel::SC && dev_ != 0) a.cuMemFree(dev_);
      if (host_ != nullptr) a.cuMemFreeHost(host_);
    }
  }
  Status<DomainError> init() {
    const auto& a = b_.api();
    b_.make_current();
    CUresult r = CUDA_SUCCESS;
    switch (model_) {
      case CommModel::SC:
        r = a.cuMemHostAlloc(&host_, size_, CU_MEMHOSTALLOC_PORTABLE);
        if (r == CUDA_SUCCESS) r = a.cuMemAlloc(&dev_, size_);
        break;
      case CommModel::UM:
        r = a.cuMemAllocManaged(&dev_, size_, CU_MEM_ATTACH_GLOBAL);
        host_ = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dev_));
        break;
      case CommModel::ZC:
        r = a.cuMemHostAlloc(&host_, size_, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
        if (r == CUDA_SUCCESS) r = a.cuMemHostGetDevicePointer(&dev_, host_, 0);
        break;
    }
    if (r != CUDA_SUCCESS) return unexpected(DomainError::OutOfMemory);
    return Ok{};
  }
  std::byte* begin_host(Access) override {
    if (model_ != CommModel::SC) b_.api().cuCtxSynchronize();  // kernels done with the bytes
    return static_cast<std::byte*>(host_);
  }
  void end_host() override {}
  DeviceView begin_device(Access a) override {
    b_.make_current();
    if (model_ == CommModel::SC && (static_cast<int>(a) & static_cast<int>(Access::Read)) != 0) {
      b_.api().cuMemcpyHtoD(dev_, host_, size_);
      b_.counted(size_);
    }
    DeviceView v;
    v.device = dev_;
    v.size = size_;
    return v;
  }
  void end_device(Access a) override {
    b_.make_current();
    b_.api().cuCtxSynchronize();
    if (model_ == CommModel::SC && (static_cast<int>(a) & static_cast<int>(Access::Write)) != 0) {
      b_.api().cuMemcpyDtoH(host_, dev_, size_);
      b_.counted(size_);
    }
  }

 private:
  CudaBackend& b_;
  void* host_ = nullptr;
  CUdeviceptr dev_ = 0;
};

Result<std::unique_ptr<KernelBuffer>, Error<DomainError>> CudaBackend::kernel_buffer(
    std::uint64_t n, CommModel m) {
  if (!info_.supports(m)) {
    return unexpected(
        E{DomainError::Unsupported, info_.name + " does not support " + std::string(to_string(m))});
  }
  auto buf = std::make_unique<CudaKernelBuffer>(*this, m, n);
  if (auto s = buf->init(); !s) return unexpected(E{s.error(), "CUDA kernel buffer allocation"});
  return std::unique_ptr<KernelBuffer>(std::move(buf));
}

Result<CUfunction, Error<DomainError>> CudaBackend::load_kernel(const std::string& ptx,
                                                                const std::string& kernel) {
  make_current();
  std::lock_guard<std::mutex> lock(mutex_);
  // One module per PTX text: the driver JIT-compiles each load, so kernels of one source share it.
  CUmodule& m = modules_[ptx];
  if (m == nullptr) {
    const CUresult r = api_->cuModuleLoadData(&m, ptx.c_str());
    if (r != CUDA_SUCCESS) {
      modules_.erase(ptx);
      return unexpected(E{DomainError::CompileFailed, "cuModuleLoadData: " + status(r)});
    }
  }
  CUfunction f = nullptr;
  const CUresult r = api_->cuModuleGetFunction(&f, m, kernel.c_str());
  if (r != CUDA_SUCCESS)
    return unexpected(E{DomainError::CompileFailed, kernel + ": " + status(r)});
  return f;
}

Status<Error<DomainError>> CudaBackend::launch(CUfunction f, std::uint32_t threads, void** args) {
  constexpr unsigned BLOCK = 256;
  if (threads == 0) return Ok{};
  make_current();
  const CUresult r = api_->cuLaunchKernel(f, (threads + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0,
                                          nullptr, args, nullptr);
  if (r != CUDA_SUCCESS)
    return unexpected(E{DomainError::LaunchFailed, "cuLaunchKernel: " + status(r)});
  return Ok{};
}

Status<Error<DomainError>> CudaBackend::synchronize() {
  make_current();
  const CUresult r = api_->cuCtxSynchronize();
  if (r != CUDA_SUCCESS) return unexpected(E{DomainError::LaunchFailed, "kernel: " + status(r)});
  return Ok{};
}

}  // namespace baton::memory::domain
