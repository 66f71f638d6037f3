// Cache-line prefetch hints for lines another core wrote last.
//
// Why a write hint of our own: GCC lowers __builtin_prefetch(p, 1) to a plain read prefetch
// (prefetcht0) unless the build targets a CPU with PRFCHW, which baton's portable x86-64 build
// does not. A read brings a line another core modified in the shared state; the locked
// read-modify-write that follows (a pin's fetch_or, which x86 compiles to a load and a lock
// cmpxchg) then needs a second transfer to own it. PREFETCHW asks for ownership at once. It is
// executed as a no-op by x86-64 CPUs without PRFCHW (the 0F 0D opcode was reserved as one), so
// it needs no runtime check.
#pragma once

namespace baton::shm {

// Starts moving the line holding `p` here in the exclusive state (we are about to write it).
inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
#endif
}

// Starts moving the line holding `p` here for reading.
inline void prefetch_for_read(const void* p) noexcept { __builtin_prefetch(p, 0); }

}  // namespace baton::shm
