#include "py_segments.hpp"

#include <fcntl.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "baton/graph/cleanup.hpp"
#include "baton/memory/chunk_layout.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/shm/segment.hpp"
#include "baton/topic/topic.hpp"
#include "baton/topic/topic_layout.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

// ---------------------------------------------------------------------------------------------
// Listing and cleaning

nb::dict segment_dict(const graph::SegmentInfo& s) {
  nb::dict d;
  d["name"] = s.name;
  d["kind"] = s.kind;
  d["size"] = s.size;
  d["creator_pid"] = s.creator_pid;
  d["creator_alive"] = s.creator_alive;
  d["in_use"] = s.in_use;
  d["problem"] = s.problem;
  return d;
}

nb::list list_segments(bool all_namespaces) {
  std::vector<graph::SegmentInfo> v;
  {
    nb::gil_scoped_release release;
    v = graph::list_segments(all_namespaces);
  }
  nb::list out;
  for (const auto& s : v) out.append(segment_dict(s));
  return out;
}

nb::dict clean_segments(bool dry_run, bool remove_corrupt, bool all_namespaces) {
  graph::CleanReport r;
  {
    nb::gil_scoped_release release;
    r = graph::clean_segments(dry_run, remove_corrupt, all_namespaces);
  }
  nb::dict out;
  nb::list removed, kept, corrupt;
  for (const auto& s : r.removed) removed.append(segment_dict(s));
  for (const auto& s : r.kept) kept.append(segment_dict(s));
  for (const auto& s : r.corrupt) corrupt.append(segment_dict(s));
  out["removed"] = removed;
  out["kept"] = kept;
  out["corrupt"] = corrupt;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inspecting one segment

using shm::SegmentKind;

const char* kind_name(std::uint32_t k) {
  switch (static_cast<SegmentKind>(k)) {
    case SegmentKind::Topic:
      return "topic";
    case SegmentKind::Publisher:
      return "publisher";
    case SegmentKind::Data:
      return "data";
    case SegmentKind::Graph:
      return "graph";
    case SegmentKind::DomainTable:
      return "domain-table";
    case SegmentKind::DomainPool:
      return "domain-pool";
    case SegmentKind::Test:
      return "test";
  }
  return "unknown";
}

std::string hex(const void* p, std::size_t n) {
  std::string out;
  char b[3];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof(b), "%02x", static_cast<const unsigned char*>(p)[i]);
    out += b;
  }
  return out;
}

// The bounded text of a fixed-capacity name field (never reads past `cap`).
std::string bounded(const char* s, std::size_t cap) { return std::string(s, strnlen(s, cap)); }

const char* slot_state_name(topic::SlotState s) {
  switch (s) {
    case topic::SlotState::Free:
      return "free";
    case topic::SlotState::Claimed:
      return "claimed";
    case topic::SlotState::Active:
      return "active";
    case topic::SlotState::Reclaiming:
      return "reclaiming";
  }
  return "invalid";
}

// One publisher / subscriber slot of a topic directory (a non-free one).
template <typename Slot>
nb::dict slot_dict(std::uint32_t index, const Slot& s) {
  const std::uint64_t w = s.state.load(std::memory_order_acquire);
  const std::uint32_t pid = topic::slot_pid(w);
  nb::dict d;
  d["slot"] = index;
  d["state"] = slot_state_name(topic::slot_state(w));
  d["pid"] = pid;
  d["alive"] = shm::is_alive({pid, s.start_time.load(std::memory_order_relaxed)});
  d["generation"] = s.generation.load(std::memory_order_relaxed);
  d["depth"] = s.depth;
  d["reliability"] = s.reliability == 1 ? "reliable" : "best_effort";
  d["durability"] = s.durability == 1 ? "transient_local" : "volatile";
  return d;
}

// Topic directory: validated by the topic layer first (size, slot counts, type name).
nb::dict topic_body(const shm::Segment& seg, std::string& problem) {
  nb::dict d;
  problem = topic::validate_topic_segment(seg);
  if (!problem.empty()) return d;
  const auto* h = seg.at<topic::TopicHeader>(topic::TopicSegmentLayout::header_offset);
  d["type_name"] = bounded(h->type_name, topic::TYPE_NAME_CAPACITY);
  d["type_hash"] = hex(h->type_hash, sizeof(h->type_hash));
  d["epoch"] = h->epoch.load(std::memory_order_acquire);
  nb::list pubs, subs;
  // Slots past a limit were never claimed; their pages are not committed (reading would allocate).
  for (std::uint32_t i = 0; i < topic::topic_slot_limit(h->pub_slot_limit, topic::MAX_PUBLISHERS);
       ++i) {
    const auto& slot = *seg.at<topic::PublisherSlot>(
        topic::TopicSegmentLayout::slot_offset<topic::PublisherSlot>(i));
    if (topic::slot_state(slot.state.load()) != topic::SlotState::Free) {
      pubs.append(slot_dict(i, slot));
    }
  }
  for (std::uint32_t i = 0; i < topic::topic_slot_limit(h->sub_slot_limit, topic::MAX_SUBSCRIBERS);
       ++i) {
    const auto& slot = *seg.at<topic::SubscriberSlot>(
        topic::TopicSegmentLayout::slot_offset<topic::SubscriberSlot>(i));
    if (topic::slot_state(slot.state.load()) != topic::SlotState::Free) {
      subs.append(slot_dict(i, slot));
    }
  }
  d["publishers"] = pubs;
  d["subscribers"] = subs;
  return d;
}

// A publisher's ring: its geometry must be the one its ring capacity implies.
nb::dict publisher_body(const shm::Segment& seg, std::string& problem) {
  using L = topic::PublisherSegmentLayout;
  nb::dict d;
  if (!seg.contains(L::header_offset, sizeof(topic::PublisherHeader))) {
    problem = "shorter than a publisher header";
    return d;
  }
  const auto* h = seg.at<topic::PublisherHeader>(L::header_offset);
  const std::uint32_t ring = h->ring_capacity;
  if (ring == 0 || ring > topic::MAX_RING_CAPACITY) {
    problem = "ring capacity " + std::to_string(ring) + " outside 1.." +
              std::to_string(topic::MAX_RING_CAPACITY);
    return d;
  }
  if (h->rows_offset != L::rows_offset || h->queues_offset != L::queues_offset(ring) ||
      seg.size() != L::total_size(ring)) {
    problem = "geometry (rows at " + std::to_string(h->rows_offset) + ", queues at " +
              std::to_string(h->queues_offset) + ", " + std::to_string(seg.size()) +
              " bytes) does not match a ring of " + std::to_string(ring);
    return d;
  }
  d["ring_capacity"] = ring;
  d["return_queue_capacity"] = h->return_queue_capacity;
  d["published"] = h->tail.load(std::memory_order_acquire);
  d["data_segments"] = h->data_segment_count.load(std::memory_order_acquire);
  return d;
}

// One size class of a publisher's chunk pool: chunk controls and payloads must fit.
nb::dict data_body(const shm::Segment& seg, std::string& problem) {
  nb::dict d;
  if (!seg.contains(memory::DATA_HEADER_OFFSET, sizeof(memory::DataSegmentHeader))) {
    problem = "shorter than a data segment header";
    return d;
  }
  const auto* h = seg.at<memory::DataSegmentHeader>(memory::DATA_HEADER_OFFSET);
  const std::uint64_t n = h->chunk_count;
  const bool controls_fit = n <= memory::MAX_CHUNKS_PER_SEGMENT &&
                            seg.contains(h->control_offset, n * sizeof(memory::ChunkControl)) &&
                            h->control_offset % alignof(memory::ChunkControl) == 0;
  const bool payloads_fit = h->chunk_stride >= h->chunk_capacity &&
                            (n == 0 || h->chunk_stride <= seg.size() / n) &&
                            seg.contains(h->data_offset, n * h->chunk_stride);
  if (!controls_fit || !payloads_fit) {
    problem = std::to_string(n) + " chunks of stride " + std::to_string(h->chunk_stride) + " at " +
              std::to_string(h->data_offset) + " (controls at " +
              std::to_string(h->control_offset) + ") do not fit in " + std::to_string(seg.size()) +
              " bytes";
    return d;
  }
  std::uint64_t in_use = 0;
  const auto* controls = seg.at<memory::ChunkControl>(h->control_offset);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (controls[i].refs.load(std::memory_order_relaxed) != 0) ++in_use;
  }
  d["segment_index"] = h->segment_index;
  d["chunk_capacity"] = h->chunk_capacity;
  d["chunk_stride"] = h->chunk_stride;
  // Address space is `chunks`; only the committed ones take /dev/shm pages (a large chunk class
  // commits as loans need them, ChunkPool::reserve). Clamped: the header is untrusted.
  d["chunks"] = n;
  d["chunks_committed"] =
      std::min<std::uint64_t>(h->committed_chunks.load(std::memory_order_acquire), n);
  d["chunks_in_use"] = in_use;
  return d;
}

std::string full_name(std::string name) {
  if (name.rfind("/dev/shm/", 0) == 0) name = name.substr(8);
  if (name.empty() || name[0] != '/') name = "/" + name;
  return name;
}

nb::dict inspect_segment(const std::string& requested) {
  const std::string name = full_name(requested);
  if (name.rfind("/baton.", 0) != 0 || name.find('/', 1) != std::string::npos) {
    raise_error("InvalidName",
                "'" + requested + "' is not a baton segment name (they start with baton.<uid>.)");
  }
  nb::dict out;
  out["name"] = name;

  // 1. The file, without mapping it.
  const int fd = ::shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      raise_error("SegmentNotFound", "no segment '" + name + "' in /dev/shm");
    }
    if (err == EACCES) raise_error("PermissionDenied", "'" + name + "': " + std::strerror(err));
    raise_error("SegmentFailure", "'" + name + "': " + std::strerror(err));
  }
  struct stat st {};
  shm::SegmentHeader h{};
  ssize_t got = -1;
  if (::fstat(fd, &st) == 0) got = ::pread(fd, &h, sizeof(h), 0);
  ::close(fd);
  out["file_size"] = static_cast<std::uint64_t>(st.st_size);
  out["owner_uid"] = static_cast<std::uint32_t>(st.st_uid);
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
  out["mode"] = mode;
  if (got != static_cast<ssize_t>(sizeof(h))) {
    out["verdict"] = "corrupt";
    out["problem"] = "the file has " + std::to_string(st.st_size) + " bytes, less than the " +
                     std::to_string(sizeof(h)) + "-byte segment header";
    return out;
  }

  // 2. The header's fields as found (plain copies: nothing here is trusted yet).
  nb::dict hd;
  hd["magic"] = hex(&h.magic, sizeof(h.magic));
  hd["magic_ok"] = h.magic == shm::SEGMENT_MAGIC;
  hd["layout_version"] = h.layout_version;
  hd["expected_layout_version"] = shm::SEGMENT_LAYOUT_VERSION;
  hd["header_size"] = h.header_size;
  hd["kind"] = h.kind;
  hd["kind_name"] = kind_name(h.kind);
  hd["total_size"] = h.total_size;
  hd["ready"] = h.ready.load(std::memory_order_relaxed) == shm::SEGMENT_READY;
  hd["creator_pid"] = h.creator_pid;
  hd["creator_start_time"] = h.creator_start_time;
  hd["creator_alive"] = h.creator_pid != 0 && shm::is_alive({h.creator_pid, h.creator_start_time});
  out["header"] = hd;

  // 3. The checks every participant makes on open, in their order.
  auto seg = shm::Segment::open(name, static_cast<SegmentKind>(h.kind), 0);
  if (!seg) {
    const auto code = seg.error().code;
    out["verdict"] = code == shm::SegmentOpenError::Incompatible ? "incompatible"
                     : code == shm::SegmentOpenError::NotReady   ? "not-ready"
                     : code == shm::SegmentOpenError::Stale      ? "stale"
                                                                 : "corrupt";
    out["problem"] = seg.error().detail;
    return out;
  }

  // 4. The body, where its layout is known here.
  std::string problem;
  nb::dict body;
  switch (static_cast<SegmentKind>(h.kind)) {
    case SegmentKind::Topic:
      body = topic_body(*seg, problem);
      break;
    case SegmentKind::Publisher:
      body = publisher_body(*seg, problem);
      break;
    case SegmentKind::Data:
      body = data_body(*seg, problem);
      break;
    default:
      body["note"] = std::string("the body of a ") + kind_name(h.kind) +
                     " segment is not decoded here (`baton graph` shows the graph registry)";
  }
  out["verdict"] = problem.empty() ? "ok" : "corrupt";
  out["problem"] = problem;
  out["body"] = body;
  return out;
}

}  // namespace

void bind_segments(nb::module_& m) {
  m.def("list_segments", &list_segments, "all_namespaces"_a = false);
  m.def("clean_segments", &clean_segments, "dry_run"_a = false, "remove_corrupt"_a = false,
        "all_namespaces"_a = false);
  m.def("inspect_segment", &inspect_segment, "name"_a,
        "Decodes a segment's header and (topic, publisher, data) body; never trusts it.");
  m.def("segment_prefix", &shm::segment_prefix);
  m.def("segment_name", &shm::segment_name, "kind_tag"_a, "name"_a,
        "The shm name of a segment: kind tag 't' (topic), 'p', 'd', 'g', and a user-level name.");
  m.def("current_namespace", &shm::current_namespace);
}

}  // namespace baton::py
