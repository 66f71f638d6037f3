// The subset of the CUDA driver API baton uses, declared here (values and layouts from cuda.h of
// CUDA 12) so baton builds without a CUDA installation; the functions are resolved at run time
// from libcuda.so.1 with dlopen / dlsym. Not API.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baton::memory::domain::detail {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUmemGenericAllocationHandle = unsigned long long;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_INTEGRATED = 18;
inline constexpr int CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19;
inline constexpr int CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83;
inline constexpr int CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88;
inline constexpr int CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89;
inline constexpr int CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102;
inline constexpr int CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103;
inline constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x01;
inline constexpr unsigned CU_MEMHOSTREGISTER_DEVICEMAP = 0x02;
inline constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;
inline constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x02;
inline constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;
inline constexpr unsigned CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1;
inline constexpr int CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1;
inline constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 0x1;
inline constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 0x1;
inline constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3;
inline constexpr int CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0;

struct CUipcMemHandle {
  char reserved[64];
};
struct CUmemLocation {
  int type;
  int id;
};
struct CUmemAllocationProp {
  int type;
  int requestedHandleTypes;
  CUmemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
struct CUmemAccessDesc {
  CUmemLocation location;
  int flags;
};
static_assert(sizeof(CUipcMemHandle) == 64);
static_assert(sizeof(CUmemAllocationProp) == 32);
static_assert(offsetof(CUmemAllocationProp, win32HandleMetaData) == 16);
static_assert(sizeof(CUmemAccessDesc) == 12);

// Function table, filled by dlsym; the _v2 names are the ones cuda.h's macros select.
struct CudaDriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(std::size_t*, CUdevice);  // _v2
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);  // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);  // _v2
  CUresult (*cuMemFree)(CUdeviceptr);                 // _v2
  CUresult (*cuMemAllocManaged)(CUdeviceptr*, std::size_t, unsigned);
  CUresult (*cuMemHostAlloc)(void**, std::size_t, unsigned);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuMemHostRegister)(void*, std::size_t, unsigned);  // _v2
  CUresult (*cuMemHostUnregister)(void*);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr*, void*, unsigned);  // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t);       // _v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t);             // _v2
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, std::size_t);       // _v2
  CUresult (*cuIpcGetMemHandle)(CUipcMemHandle*, CUdeviceptr);
  CUresult (*cuIpcOpenMemHandle)(CUdeviceptr*, CUipcMemHandle, unsigned);  // _v2
  CUresult (*cuIpcCloseMemHandle)(CUdeviceptr);
  CUresult (*cuMemGetAllocationGranularity)(std::size_t*, const CUmemAllocationProp*, int);
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle*, std::size_t, const CUmemAllocationProp*,
                          unsigned long long);
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle);
  CUresult (*cuMemExportToShareableHandle)(void*, CUmemGenericAllocationHandle, int,
                                           unsigned long long);
  CUresult (*cuMemImportFromShareableHandle)(CUmemGenericAllocationHandle*, void*, int);
  CUresult (*cuMemAddressReserve)(CUdeviceptr*, std::size_t, std::size_t, CUdeviceptr,
                                  unsigned long long);
  CUresult (*cuMemAddressFree)(CUdeviceptr, std::size_t);
  CUresult (*cuMemMap)(CUdeviceptr, std::size_t, std::size_t, CUmemGenericAllocationHandle,
                       unsigned long long);
  CUresult (*cuMemUnmap)(CUdeviceptr, std::size_t);
  CUresult (*cuMemSetAccess)(CUdeviceptr, std::size_t, const CUmemAccessDesc*, std::size_t);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
};

}  // namespace baton::memory::domain::detail
