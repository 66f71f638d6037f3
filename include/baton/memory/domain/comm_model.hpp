// The three ways a kernel can reach its input and output (seed 000, section 3.1):
//
//   SC  standard copy: the data is copied into a device buffer before the kernel and back after.
//   UM  unified memory: one allocation both sides address (OpenCL SVM, CUDA managed memory);
//       the runtime keeps the two views coherent (page migration or coherent caches).
//   ZC  zero copy: the device works directly on host memory (OpenCL CL_MEM_USE_HOST_PTR with
//       map / unmap; CUDA cuMemHostRegister + device pointer). On I/O-coherent or host-unified
//       devices this is free; elsewhere it costs uncached or bus-crossing accesses.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::memory::domain {

enum class CommModel : std::uint8_t { SC = 0, UM = 1, ZC = 2 };

constexpr std::string_view to_string(CommModel m) noexcept {
  switch (m) {
    case CommModel::SC:
      return "SC";
    case CommModel::UM:
      return "UM";
    case CommModel::ZC:
      return "ZC";
  }
  return "unknown";
}

// Which side of a kernel's I/O buffer the data must be valid on next.
enum class Access : std::uint8_t { Read = 1, Write = 2, ReadWrite = 3 };

}  // namespace baton::memory::domain
