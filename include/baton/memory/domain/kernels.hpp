// Kernels bundled with baton, in OpenCL C and in CUDA C++ (compiled at run time: clBuildProgram
// and NVRTC). They serve the tests (prove a device read the bytes it was given) and the
// benchmarks of seed 000 (cache and concurrent).
#pragma once

namespace baton::memory::domain::kernels {

// transform: out[i] = in[i] * 3 + 1 (bytes, wrapping): its output proves which bytes it read.
// cache_reduce: a 2D reduction repeated `reps` times with linear accesses (ld / add / st), the
//   device half of seed 000's cache benchmark; row sums go to out[row].
// concurrent_step: one read and one write per element per iteration (seed 000's concurrent
//   benchmark): data[i] = data[i] * 0.5f + 1.0f, `iters` times.
inline constexpr const char* OPENCL_SOURCE = R"CLC(
__kernel void transform(__global const uchar* in, __global uchar* out, uint n) {
  size_t i = get_global_id(0);
  if (i < n) out[i] = (uchar)(in[i] * 3 + 1);
}
__kernel void cache_reduce(__global const float* m, __global float* out, uint cols, uint reps) {
  size_t row = get_global_id(0);
  float acc = 0.0f;
  for (uint r = 0; r < reps; ++r) {
    float s = 0.0f;
    for (uint c = 0; c < cols; ++c) s += m[row * cols + c];
    acc += s;
  }
  out[row] = acc;
}
__kernel void concurrent_step(__global volatile float* data, uint iters) {
  size_t i = get_global_id(0);
  for (uint k = 0; k < iters; ++k) data[i] = data[i] * 0.5f + 1.0f;
}
)CLC";

inline constexpr const char* CUDA_SOURCE = R"CU(
extern "C" __global__ void transform(const unsigned char* in, unsigned char* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned char)(in[i] * 3 + 1);
}
extern "C" __global__ void cache_reduce(const float* m, float* out, unsigned rows,
                                        unsigned cols, unsigned reps) {
  unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (unsigned r = 0; r < reps; ++r) {
    float s = 0.0f;
    for (unsigned c = 0; c < cols; ++c) s += m[row * cols + c];
    acc += s;
  }
  out[row] = acc;
}
extern "C" __global__ void concurrent_step(volatile float* data, unsigned n, unsigned iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (unsigned k = 0; k < iters; ++k) data[i] = data[i] * 0.5f + 1.0f;
}
)CU";

// The byte transform above, on the host: what a test expects a kernel to produce.
constexpr unsigned char transform_byte(unsigned char b) {
  return static_cast<unsigned char>(b * 3 + 1);
}

}  // namespace baton::memory::domain::kernels
