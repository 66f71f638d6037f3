#include "baton/memory/domain/detail/host_registrations.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace baton::memory::domain::detail {

namespace {

std::uint64_t cap_from_env(std::uint64_t fallback) {
  const char* env = std::getenv("BATON_CUDA_PIN_MIB");
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(env, &end, 10);
  if (end == env || *end != '\0' || mib > (UINT64_MAX >> 20)) return fallback;  // not a number
  return static_cast<std::uint64_t>(mib) << 20;
}

}  // namespace

HostRegistrations::HostRegistrations(Driver driver, std::string name, std::uint64_t cap)
    : driver_(std::move(driver)),
      name_(std::move(name)),
      page_(static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE))) {
  stats_.cap = cap_from_env(cap);
  shm::Segment::observe_unmaps(this);
}

HostRegistrations::~HostRegistrations() {
  shm::Segment::unobserve_unmaps(this);  // no unmapping() runs past this
  std::unique_lock<std::shared_mutex> lock(mutex_);
  for (auto& [begin, r] : ranges_) driver_.unlock(begin, r.size);
}

void HostRegistrations::set_cap(std::uint64_t bytes) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  stats_.cap = bytes;
}

RegistrationStats HostRegistrations::stats() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return stats_;
}

void HostRegistrations::prepare_copy(const void* p, std::uint64_t n) {
  // Only Segment mappings: their unmapping is announced, so no registration outlives its pages.
  // Asked before taking our lock (unmapping() takes it under the segments' registry lock).
  if (n == 0 || !shm::Segment::mapped(p, n)) return;
  if (std::string why = ensure(p, n, false); !why.empty()) fallback(why);
}

std::string HostRegistrations::view(const void* p, std::uint64_t n) { return ensure(p, n, true); }

std::string HostRegistrations::ensure(const void* p, std::uint64_t n, bool view) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  if (at > UINTPTR_MAX - page_ || n > UINTPTR_MAX - page_ - at) {
    return "range wraps the address space";
  }
  const std::uintptr_t begin = at / page_ * page_;
  const std::uintptr_t end = (at + n + page_ - 1) / page_ * page_;
  std::unique_lock<std::shared_mutex> lock(mutex_);
  // The registered ranges overlapping [begin, end): at most one starts before `begin`.
  auto first = ranges_.upper_bound(begin);
  if (first != ranges_.begin() && std::prev(first)->first + std::prev(first)->second.size > begin) {
    --first;
  }
  auto last = first;
  std::uintptr_t lo = begin, hi = end;
  std::uint64_t overlapped = 0;
  bool holds_view = false;
  for (; last != ranges_.end() && last->first < end; ++last) {
    lo = std::min(lo, last->first);
    hi = std::max(hi, last->first + last->second.size);
    overlapped += last->second.size;
    holds_view = holds_view || last->second.view;
  }
  if (first != last && std::next(first) == last && first->first <= begin &&
      first->first + first->second.size >= end) {
    ++stats_.reused;  // one registration covers it: the common case once chunks were copied
    first->second.view = first->second.view || view;
    return "";
  }
  if (holds_view) {
    // A view's device address may be in use: never unregister it to merge.
    char text[96];
    std::snprintf(text, sizeof(text), "[0x%jx, 0x%jx) partly overlaps a registered device view",
                  static_cast<std::uintmax_t>(begin), static_cast<std::uintmax_t>(end));
    return text;
  }
  const std::uint64_t size = hi - lo;
  if (!view && stats_.bytes - overlapped + size > stats_.cap) {
    return "the registration cap (" + std::to_string(stats_.cap >> 20) +
           " MiB, BATON_CUDA_PIN_MIB) is reached";
  }
  // Replace the overlapped copy ranges with their union (all committed pages: each was).
  for (auto it = first; it != last; ++it) {
    driver_.unlock(it->first, it->second.size);
    ++stats_.unregistrations;
  }
  ranges_.erase(first, last);
  stats_.bytes -= overlapped;
  if (std::string why = driver_.lock(lo, size); !why.empty()) return why;
  ranges_[lo] = Range{size, view};
  stats_.bytes += size;
  ++stats_.registrations;
  return "";
}

void HostRegistrations::fallback(const std::string& why) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (stats_.fallbacks++ == 0) {
    stats_.first_fallback = why;
    std::fprintf(stderr,
                 "baton: %s: copies from shared memory run from pageable memory when they cannot "
                 "be page-locked (first time: %s)\n",
                 name_.c_str(), why.c_str());
  }
}

void HostRegistrations::unmapping(const std::byte* base, std::uint64_t size) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t end = begin + size;
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->first + std::prev(it)->second.size > begin) --it;
  while (it != ranges_.end() && it->first < end) {
    driver_.unlock(it->first, it->second.size);
    ++stats_.unregistrations;
    stats_.bytes -= it->second.size;
    it = ranges_.erase(it);
  }
}

}  // namespace baton::memory::domain::detail
