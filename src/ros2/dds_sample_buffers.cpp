// Large sample buffers kept for reuse (see dds_sample_buffers.hpp).
#include "dds_sample_buffers.hpp"

#include <mutex>
#include <utility>

#include "huge_page_hint.hpp"

namespace baton::ros2 {
namespace {

constexpr size_t kMinKept = size_t{1} << 20;  // smaller ones come cheaply from malloc's heap
constexpr size_t kMaxKept = 4;                // a few samples in flight per process

std::mutex& kept_mu() {
  static std::mutex mu;
  return mu;
}
std::vector<std::vector<uint8_t>>& kept() {
  static std::vector<std::vector<uint8_t>> buffers;
  return buffers;
}

}  // namespace

std::vector<uint8_t> take_sample_buffer(size_t size) {
  if (size >= kMinKept) {
    std::lock_guard lock(kept_mu());
    auto& buffers = kept();
    for (auto it = buffers.begin(); it != buffers.end(); ++it) {
      if (it->capacity() < size || it->capacity() / 2 > size) continue;
      std::vector<uint8_t> out = std::move(*it);
      buffers.erase(it);
      out.resize(size);  // within capacity: no allocation
      return out;
    }
  }
  std::vector<uint8_t> out;
  out.reserve(size);
  advise_huge_pages(out.data(), size);  // before the zero fill below faults the pages in
  out.resize(size);
  return out;
}

void keep_sample_buffer(std::vector<uint8_t>&& buffer) {
  if (buffer.capacity() < kMinKept) return;
  std::vector<uint8_t> dropped;  // freed outside the lock
  std::lock_guard lock(kept_mu());
  auto& buffers = kept();
  if (buffers.size() < kMaxKept) {
    buffers.push_back(std::move(buffer));
  } else {
    dropped = std::move(buffer);
  }
}

}  // namespace baton::ros2
