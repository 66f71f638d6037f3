// Finding and removing segments left behind by dead participants (never a live one's).
// Rules: a publisher or data segment whose creator process is gone is garbage; a topic
// directory with no live endpoint is garbage; anything else is kept. A segment that fails
// validation is reported as corrupt and removed only with `remove_corrupt`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton::topic {

struct SegmentInfo {
  std::string name;        // full shm name, e.g. "/baton.0.default.t.%2Fchatter"
  std::string kind;        // "topic", "publisher", "data", "graph", "other"
  std::uint64_t size = 0;  // bytes
  std::uint32_t creator_pid = 0;
  bool creator_alive = false;
  bool in_use = false;  // a live participant still needs it
  std::string problem;  // non-empty if it failed validation
};

// Every baton segment of this user in the current namespace (or all namespaces).
std::vector<SegmentInfo> list_segments(bool all_namespaces = false);

struct CleanReport {
  std::vector<SegmentInfo> removed;
  std::vector<SegmentInfo> kept;
  std::vector<SegmentInfo> corrupt;  // reported; removed only with remove_corrupt
};

CleanReport clean_segments(bool dry_run, bool remove_corrupt, bool all_namespaces = false);

}  // namespace baton::topic
