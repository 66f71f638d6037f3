// The host ranges one device backend has page-locked (CUDA: cuMemHostRegister), so copies
// between baton's shared-memory chunks and the device run at pinned speed and device views of
// host memory (ZC) have device addresses. One registry per backend serves both.
//
//   Copies: the chunk range a copy reads or writes, widened to whole pages (chunk pools commit
//   whole pages, so those pages are committed), is registered on its first copy and reused by
//   every later copy of it; chunks are reused by the pool, so this amortises. Only bytes inside a
//   live Segment mapping are registered (shm::Segment::mapped): anything else (heap buffers) may
//   be freed behind our back, and a registration must never outlive its pages. A range that
//   partly overlaps registered copy ranges replaces them with their union. Registration is
//   capped in bytes; past the cap, or when the driver refuses, the copy runs from pageable memory
//   (counted, reported once on stderr), it never fails for it.
//   Views: registered with no cap (a view has no pageable fallback) and never merged away while
//   the backend lives: kernels may hold their device address.
//   Unmapping: a Segment about to be unmapped calls unmapping() (Segment::UnmapObserver), which
//   unregisters every range in it first; a registration left on unmapped pages would alias
//   whatever is mapped there next.
//
// Thread-safe. Copies run under a shared lock, so no range is unregistered under a running copy.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "baton/shm/segment.hpp"

namespace baton::memory::domain::detail {

struct RegistrationStats {
  std::uint64_t registrations = 0;    // driver registrations made
  std::uint64_t unregistrations = 0;  // and undone (merged, unmapped, backend gone)
  std::uint64_t reused = 0;           // copies / views whose range was registered already
  std::uint64_t fallbacks = 0;        // copies run from pageable memory
  std::uint64_t bytes = 0;            // registered now
  std::uint64_t cap = 0;              // most bytes copies may keep registered
  std::string first_fallback;         // why the first fallback happened
};

class HostRegistrations final : public shm::Segment::UnmapObserver {
 public:
  // The driver calls: lock returns "" on success or why not; unlock undoes a lock.
  struct Driver {
    std::function<std::string(std::uintptr_t begin, std::uint64_t size)> lock;
    std::function<void(std::uintptr_t begin, std::uint64_t size)> unlock;
  };
  static constexpr std::uint64_t DEFAULT_CAP = 512ull << 20;
  // `cap` bytes for copies; BATON_CUDA_PIN_MIB overrides it when set (0 turns copies' pinning
  // off). `name` prefixes the fallback report ("cuda:0").
  HostRegistrations(Driver driver, std::string name, std::uint64_t cap = DEFAULT_CAP);
  ~HostRegistrations();  // unregisters everything
  HostRegistrations(const HostRegistrations&) = delete;
  HostRegistrations& operator=(const HostRegistrations&) = delete;

  // Runs `copy()` with [p, p + n) page-locked when it can be (see the top of the file).
  template <typename F>
  decltype(auto) copy(const void* p, std::uint64_t n, F&& copy) {
    prepare_copy(p, n);
    std::shared_lock<std::shared_mutex> lock(mutex_);
    return copy();
  }
  // Registers [p, p + n) for a device view; "" on success, or the driver's reason.
  std::string view(const void* p, std::uint64_t n);

  void set_cap(std::uint64_t bytes);
  RegistrationStats stats() const;
  void unmapping(const std::byte* base, std::uint64_t size) noexcept override;

 private:
  struct Range {
    std::uint64_t size = 0;
    bool view = false;
  };
  void prepare_copy(const void* p, std::uint64_t n);
  // Registers the page-widened [p, p + n) under the exclusive lock; "" when it is registered.
  std::string ensure(const void* p, std::uint64_t n, bool view);
  void fallback(const std::string& why);

  Driver driver_;
  std::string name_;
  std::uintptr_t page_;
  mutable std::shared_mutex mutex_;
  std::map<std::uintptr_t, Range> ranges_;  // by page-aligned start; never overlapping
  RegistrationStats stats_;                 // under mutex_
};

}  // namespace baton::memory::domain::detail
