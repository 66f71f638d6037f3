// Finding and removing segments left behind by dead participants (never a live one's).
// Rules: a publisher or data segment whose creator process is gone is garbage; a topic
// directory with no live endpoint is garbage; a graph registry with no live participant is
// garbage (whoever created it); anything else is kept. A segment that fails validation is
// reported as corrupt and removed only with `remove_corrupt`. Topic directories and registries
// are removed through their closing protocol (shm/segment_lifecycle.hpp), so a process joining
// one meanwhile keeps it, or moves to a new one: never split from its peers.
//
// Layer: graph, the lowest layer that knows every segment kind's rule (topic may not include
// graph; scripts/check-layers.sh), so the one place that lists and judges them all lives here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton::graph {

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

}  // namespace baton::graph
