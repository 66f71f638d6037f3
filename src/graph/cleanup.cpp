#include "baton/graph/cleanup.hpp"

#include <dirent.h>
#include <unistd.h>

#include "baton/graph/registry.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/shm/segment.hpp"
#include "baton/topic/topic.hpp"

namespace baton::graph {
namespace {

// "/baton.<uid>.<ns>.<kind>.<rest>" -> kind tag, or "" if not ours.
std::string kind_tag(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return {};
  const std::size_t dot = name.find('.', prefix.size());
  return dot == std::string::npos ? std::string() : name.substr(prefix.size(), dot - prefix.size());
}

shm::SegmentKind kind_of(const std::string& tag) {
  if (tag == "t") return shm::SegmentKind::Topic;
  if (tag == "p") return shm::SegmentKind::Publisher;
  if (tag == "d") return shm::SegmentKind::Data;
  if (tag == "g") return shm::SegmentKind::Graph;
  return shm::SegmentKind::Test;
}

const char* kind_name(const std::string& tag) {
  if (tag == "t") return "topic";
  if (tag == "p") return "publisher";
  if (tag == "d") return "data";
  if (tag == "g") return "graph";
  if (tag == "x") return "domain";
  return "other";
}

// Unlinks a listed segment. A sound topic directory or registry goes through its closing
// protocol, so a process attaching to it meanwhile keeps it or reopens a new one.
bool remove(const SegmentInfo& s) {
  if (s.kind == "topic" && s.problem.empty()) {
    auto seg = shm::Segment::open(s.name, shm::SegmentKind::Topic, 0);
    return !seg || topic::close_topic_if_unused(*seg) == shm::CloseVerdict::Removed;
  }
  if (s.kind == "graph" && s.problem.empty()) {
    auto seg = shm::Segment::open(s.name, shm::SegmentKind::Graph, 0);
    return !seg || close_registry_if_unused(*seg) == shm::CloseVerdict::Removed;
  }
  shm::Segment::unlink(s.name);
  return true;
}

// Is the listed, mapped segment of kind `tag` still needed? Sets `problem` when it fails its
// kind's validation.
bool in_use(const std::string& tag, const shm::Segment& seg, bool creator_alive,
            std::string* problem) {
  if (tag == "t") {
    *problem = topic::validate_topic_segment(seg);
    return problem->empty() && topic::topic_has_live_claim(seg);
  }
  if (tag == "g") {
    bool incompatible = false;
    *problem = validate_registry_segment(seg, &incompatible);
    // Whom another build's registry serves we cannot read: its creator is the best hint left.
    if (!problem->empty()) return incompatible && creator_alive;
    return registry_has_live_participant(seg);
  }
  return creator_alive;
}

}  // namespace

std::vector<SegmentInfo> list_segments(bool all_namespaces) {
  std::vector<SegmentInfo> out;
  const std::string user_prefix = "/baton." + std::to_string(::getuid()) + ".";
  const std::string ns_prefix = shm::segment_prefix();
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return out;
  while (dirent* e = ::readdir(dir)) {
    const std::string name = std::string("/") + e->d_name;
    if (name.rfind(all_namespaces ? user_prefix : ns_prefix, 0) != 0) continue;
    std::string prefix = ns_prefix;
    if (all_namespaces) {  // the namespace is the field after the uid
      const std::size_t dot = name.find('.', user_prefix.size());
      if (dot == std::string::npos) continue;
      prefix = name.substr(0, dot + 1);
    }
    const std::string tag = kind_tag(name, prefix);
    SegmentInfo info;
    info.name = name;
    info.kind = kind_name(tag);
    auto seg = shm::Segment::open(name, kind_of(tag), 0);
    if (!seg && tag == "x") {  // domain copy tables and domain pools share the "x" tag
      seg = shm::Segment::open(name, shm::SegmentKind::DomainTable, 0);
      if (!seg) seg = shm::Segment::open(name, shm::SegmentKind::DomainPool, 0);
    }
    if (!seg) {
      info.problem = seg.error().detail;
      // A segment still being created by a live process is in use, never garbage: removing it
      // would pull it out from under its creator.
      info.in_use = seg.error().code == shm::SegmentOpenError::NotReady;
      out.push_back(info);
      continue;
    }
    info.size = seg->size();
    info.creator_pid = seg->header()->creator_pid;
    info.creator_alive =
        shm::is_alive({seg->header()->creator_pid, seg->header()->creator_start_time});
    info.in_use = in_use(tag, *seg, info.creator_alive, &info.problem);
    out.push_back(info);
  }
  ::closedir(dir);
  return out;
}

CleanReport clean_segments(bool dry_run, bool remove_corrupt, bool all_namespaces) {
  CleanReport r;
  for (auto& s : list_segments(all_namespaces)) {
    if (s.in_use) {
      r.kept.push_back(s);
      continue;
    }
    if (!s.problem.empty() && !remove_corrupt) {
      r.corrupt.push_back(s);
      continue;
    }
    if (!dry_run && !remove(s)) {
      r.kept.push_back(s);  // an endpoint attached since it was listed
      continue;
    }
    r.removed.push_back(s);
  }
  return r;
}

}  // namespace baton::graph
