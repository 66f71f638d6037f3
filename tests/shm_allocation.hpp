// For tests of what a segment holds in /dev/shm: the tmpfs pages its file has (st_blocks), and
// the pages a set of byte ranges of a layout touches, to compare the two.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <set>
#include <string>

namespace baton::testing {

// Bytes the tmpfs file behind segment `shm_name` (a name from shm/naming.hpp) holds in pages, or
// -1 if it cannot be read.
inline std::int64_t allocated_bytes(const std::string& shm_name) {
  struct stat st {};
  if (::stat(("/dev/shm" + shm_name).c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.st_blocks) * 512;
}

// The bytes of the pages that the [begin, end) ranges added touch.
class PageSet {
 public:
  PageSet& add(std::uint64_t begin, std::uint64_t end) {
    if (begin == end) return *this;
    for (std::uint64_t p = begin / page_; p < (end + page_ - 1) / page_; ++p) pages_.insert(p);
    return *this;
  }
  std::int64_t bytes() const { return static_cast<std::int64_t>(pages_.size() * page_); }

 private:
  std::uint64_t page_ = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::set<std::uint64_t> pages_;
};

}  // namespace baton::testing
