// The graph registry: decentralised discovery of participants, nodes and endpoints in one
// shared-memory segment per user and namespace. No daemon: whoever comes first creates it,
// everybody registers and queries, and whoever notices a dead participant (a query, the Context
// janitor, a registration that found its table full) removes its nodes and endpoints. No entry
// of a live participant is ever removed by anyone but its owner.
//
//   auto reg = graph::Registry::open_or_create();
//   auto me = (*reg)->register_participant();
//   auto node = (*reg)->register_node(*me, "talker", "/");
//   auto pub = (*reg)->register_endpoint(EndpointKind::Publisher, *node, "/chatter", type, qos);
//   for (auto& t : (*reg)->topics()) ...
//
// Lifetime of the segment: it exists while any live participant is registered. The last
// participant to leave (~ParticipantHandle) removes it, and so does the last handle of a process
// that only read it (~Registry), when no live participant is left anywhere (protocol in
// registry_layout.hpp). A participant registering at that moment gets RegisterError::Closed and
// opens the registry again by name, so all participants always meet in one registry. Readers
// holding a removed registry keep a valid mapping that shows an empty graph.
//
// Ownership: handles *own* their registration; destroying the last reference unregisters it.
// An endpoint handle keeps its node handle alive, a node handle its participant handle, and
// every handle its Registry (the mapping). A handle inherited across fork() is not the child's:
// its destructor in the child does nothing.
//
// Threads: a Registry and its handles may be used from any thread.
// Failure guarantee: an error leaves the registry unchanged.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/graph/graph_error.hpp"
#include "baton/graph/graph_snapshot.hpp"
#include "baton/graph/registry_layout.hpp"
#include "baton/shm/segment.hpp"
#include "baton/shm/segment_lifecycle.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::graph {

class Registry;

struct RegistryOptions {
  // User-level name of the registry; its segment is shm::segment_name("g", name). Tests and
  // tools use other names to keep apart; everything else uses the default.
  std::string name = "registry";
  std::uint32_t segment_mode = 0600;  // 0660 shares the registry with the group
  int ready_timeout_ms = 1000;        // how long to wait for a creator to finish the segment
};

class ParticipantHandle {
 public:
  ~ParticipantHandle();
  ParticipantHandle(const ParticipantHandle&) = delete;
  ParticipantHandle& operator=(const ParticipantHandle&) = delete;

  std::uint32_t index() const noexcept { return index_; }
  std::uint32_t generation() const noexcept { return entry_gen(word_); }
  std::uint32_t pid() const noexcept { return entry_pid(word_); }
  const std::shared_ptr<Registry>& registry() const noexcept { return registry_; }
  // True while the entry still holds this registration (false once reclaimed by a peer that
  // judged this process dead, e.g. across a pid namespace change).
  bool registered() const noexcept;

 private:
  friend class Registry;
  ParticipantHandle(std::shared_ptr<Registry> r, std::uint32_t index, std::uint64_t word)
      : registry_(std::move(r)), index_(index), word_(word) {}
  std::shared_ptr<Registry> registry_;
  std::uint32_t index_;
  std::uint64_t word_;  // the Active word this registration published
};

class NodeHandle {
 public:
  ~NodeHandle();
  NodeHandle(const NodeHandle&) = delete;
  NodeHandle& operator=(const NodeHandle&) = delete;

  std::uint32_t index() const noexcept { return index_; }
  std::uint32_t generation() const noexcept { return entry_gen(word_); }
  const std::string& name() const noexcept { return name_; }
  const std::string& get_namespace() const noexcept { return namespace_; }
  const std::shared_ptr<ParticipantHandle>& participant() const noexcept { return participant_; }

 private:
  friend class Registry;
  NodeHandle(std::shared_ptr<ParticipantHandle> p, std::uint32_t index, std::uint64_t word,
             std::string name, std::string ns)
      : participant_(std::move(p)),
        index_(index),
        word_(word),
        name_(std::move(name)),
        namespace_(std::move(ns)) {}
  std::shared_ptr<ParticipantHandle> participant_;
  std::uint32_t index_;
  std::uint64_t word_;
  std::string name_;
  std::string namespace_;
};

class EndpointHandle {
 public:
  ~EndpointHandle();
  EndpointHandle(const EndpointHandle&) = delete;
  EndpointHandle& operator=(const EndpointHandle&) = delete;

  std::uint32_t index() const noexcept { return index_; }
  EndpointKind kind() const noexcept { return kind_; }
  const std::shared_ptr<NodeHandle>& node() const noexcept { return node_; }

 private:
  friend class Registry;
  EndpointHandle(std::shared_ptr<NodeHandle> n, std::uint32_t index, std::uint64_t word,
                 EndpointKind kind)
      : node_(std::move(n)), index_(index), word_(word), kind_(kind) {}
  std::shared_ptr<NodeHandle> node_;
  std::uint32_t index_;
  std::uint64_t word_;
  EndpointKind kind_;
};

class Registry : public std::enable_shared_from_this<Registry> {
 public:
  // Opens the registry segment, creating it if nobody has (O_EXCL; a lost creation race opens
  // the winner's). A segment that fails validation is refused, never repaired or removed: a
  // foreign file under our name is not ours to delete. A segment whose creator died before
  // finishing it is removed and re-created.
  static Result<std::shared_ptr<Registry>, Error<RegistryOpenError>> open_or_create(
      const RegistryOptions& options = {});

  // Removes the registry if no live participant is left (what ~Registry does).
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Registers the calling process (one per Context is the convention). Closed: the registry was
  // removed meanwhile (nothing registered); open_or_create() again and register there.
  Result<std::shared_ptr<ParticipantHandle>, Error<RegisterError>> register_participant();
  // Registers a node of `participant`. An empty namespace means "/".
  Result<std::shared_ptr<NodeHandle>, Error<RegisterError>> register_node(
      const std::shared_ptr<ParticipantHandle>& participant, std::string_view name,
      std::string_view namespace_);
  // Registers a publisher / subscription (name = topic) or service / client (name = service).
  Result<std::shared_ptr<EndpointHandle>, Error<RegisterError>> register_endpoint(
      EndpointKind kind, const std::shared_ptr<NodeHandle>& node, std::string_view name,
      const topic::TypeInfo& type, const EndpointQos& qos, const EndpointGid& gid = {});

  // Removes participants whose process died, with their nodes and endpoints, and entries whose
  // participant is gone. Safe from any process and thread at any time; returns entries removed.
  std::uint32_t reclaim_dead();
  // The periodic pass of a janitor that runs every `period`: reclaim_dead(), unless any
  // participant's janitor ran one within the last half period (then 0). Every participant runs
  // a janitor, and a pass checks every participant's process, so N processes made N x N checks
  // per period; the first check of each process in a thread reads /proc/<pid>/stat (~17 % of
  // 256 subscriber processes' CPU during issue 20's fan-out run).
  std::uint32_t reclaim_dead_if_due(std::chrono::nanoseconds period);

  // Bumped on every registration, removal and reclaim: callers may cache a snapshot until it
  // moves. Acquire load; a newer value may exist by the time the caller looks at it.
  std::uint64_t epoch() const noexcept;

  // Reads the whole registry (after a reclaim pass, unless `reclaim` is false). Corrupt entries
  // are skipped and listed in `issues`, never trusted.
  GraphSnapshot snapshot(bool reclaim = true);
  // A snapshot if the epoch differs from `known_epoch`, else nothing.
  std::optional<GraphSnapshot> snapshot_if_changed(std::uint64_t known_epoch);

  // Convenience views of a fresh snapshot (see GraphSnapshot).
  std::vector<NodeInfo> nodes() { return snapshot().nodes; }
  std::vector<TopicInfo> topics() { return snapshot().topics(); }
  std::vector<ServiceInfo> services() { return snapshot().services(); }
  std::vector<EndpointInfo> endpoints_of(std::string_view name) {
    return snapshot().endpoints_of(name);
  }
  std::optional<NodeDetail> node_info(std::string_view fq) { return snapshot().node_info(fq); }

  // False once the registry is being removed or gone: register in a freshly opened one.
  bool is_open() const noexcept;
  // Removes the registry if no live participant is left (dead participants do not keep it).
  // Participants registering meanwhile reopen it by name.
  shm::CloseVerdict close_if_unused();

  const std::string& name() const noexcept { return name_; }
  // The mapped segment (tools and tests; the layout is in registry_layout.hpp).
  const shm::Segment& segment() const noexcept { return segment_; }

 private:
  friend class ParticipantHandle;
  friend class NodeHandle;
  friend class EndpointHandle;
  Registry(std::string name, shm::Segment segment)
      : name_(std::move(name)), segment_(std::move(segment)) {}

  RegistryHeader* header() const noexcept;
  ParticipantEntry* participant_entry(std::uint32_t i) const noexcept;
  NodeEntry* node_entry(std::uint32_t i) const noexcept;
  EndpointEntry* endpoint_entry(std::uint32_t i) const noexcept;
  void bump_epoch() noexcept;
  // Gives an entry back if it still holds `word` (the owner's unregister path).
  void release(std::atomic<std::uint64_t>& state, std::uint64_t word) noexcept;
  bool participant_live(std::uint32_t index, std::uint32_t gen) const noexcept;

  std::string name_;
  shm::Segment segment_;
};

// Validates a mapped registry segment; empty when sound, otherwise what is wrong. Sets
// `incompatible` when the segment is another layout version or capacity (vs. corrupt).
std::string validate_registry_segment(const shm::Segment& seg, bool* incompatible);

// True if a live process holds a participant entry of the mapped, validated registry (the
// liveness rules of Registry::reclaim_dead): what keeps it from being removed.
bool registry_has_live_participant(const shm::Segment& seg);

// The closing side of the protocol in registry_layout.hpp, on a mapped, validated registry.
shm::CloseVerdict close_registry_if_unused(shm::Segment& seg);

}  // namespace baton::graph
