#include "baton/graph/registry.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "baton/shm/clock.hpp"
#include "baton/shm/naming.hpp"
#include "baton/shm/participant.hpp"
#include "baton/shm/periodic_turn.hpp"

namespace baton::graph {
namespace {

constexpr int OPEN_ATTEMPTS = 50;
constexpr auto RELAXED = std::memory_order_relaxed;

// Strings are packed 8 bytes per word, little-endian; bytes past the length are zero.
template <std::size_t N>
void store_string(std::atomic<std::uint64_t> (&words)[N], std::string_view s) {
  for (std::size_t w = 0; w < N; ++w) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < 8; ++b) {
      const std::size_t i = w * 8 + b;
      if (i < s.size())
        v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * b);
    }
    words[w].store(v, RELAXED);
  }
}

// `len` must already be checked against N * 8.
template <std::size_t N>
std::string load_string(const std::atomic<std::uint64_t> (&words)[N], std::uint32_t len) {
  std::string out(len, '\0');
  std::uint64_t v = 0;
  for (std::uint32_t i = 0; i < len; ++i) {
    if (i % 8 == 0) v = words[i / 8].load(RELAXED);
    out[i] = static_cast<char>(static_cast<unsigned char>(v >> (8 * (i % 8))));
  }
  return out;
}

bool pid_alive(std::uint32_t pid) { return shm::is_alive(shm::ParticipantId{pid, 0}); }

std::string hex_byte(std::uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", b);
  return buf;
}

Status<std::string> check_name(std::string_view what, std::string_view s, std::uint32_t capacity,
                               bool allow_empty) {
  if (!allow_empty && s.empty()) return unexpected(std::string(what) + " is empty");
  if (s.size() > capacity) {
    return unexpected(std::string(what) + " '" + std::string(s) + "' has " +
                      std::to_string(s.size()) + " bytes; the registry holds at most " +
                      std::to_string(capacity));
  }
  if (s.find('\0') != std::string_view::npos) {
    return unexpected(std::string(what) + " contains a NUL byte");
  }
  return Ok{};
}

// Claims a Free entry of `entries[0..count)` for the calling process: CAS Free -> Claimed with
// the generation bumped (sync point "entry-claim": pairs with the release that made the entry
// Free; seq_cst for sync point "segment-close", whose claimer half a participant claim is).
// Returns the index and the claimed word.
template <typename EntryT>
bool claim_row(EntryT& e, std::uint32_t pid, std::uint64_t* word) {
  std::uint64_t w = e.state.load(RELAXED);
  if (!entry_state_valid(w) || entry_state(w) != EntryState::Free) return false;
  const std::uint64_t claimed = entry_word(EntryState::Claimed, pid, entry_gen(w) + 1);
  if (!e.state.compare_exchange_strong(w, claimed, std::memory_order_seq_cst, RELAXED))
    return false;
  *word = claimed;
  return true;
}

template <typename EntryT>
bool claim(EntryT* entries, std::uint32_t count, std::uint32_t pid, std::uint32_t* index,
           std::uint64_t* word) {
  for (std::uint32_t i = 0; i < count; ++i) {
    if (claim_row(entries[i], pid, word)) {
      *index = i;
      return true;
    }
  }
  return false;
}

// The rows of a table below its high-water mark `used`, clamped to the table's size (the mark is
// read from shared memory). Sync point "rows-used": acquire, pairs with the claimer's CAS; the
// closer reads the participants' mark seq_cst ("segment-close").
std::uint32_t rows_in_use(const std::atomic<std::uint32_t>& used, std::uint32_t count,
                          std::memory_order order = std::memory_order_acquire) {
  return std::min(used.load(order), count);
}

enum class Claim : std::uint8_t { Claimed, Full, NoSpace };

// claim() for a table with a high-water mark (registry_layout.hpp "Rows in use"): a Free row
// below the mark, else the row at the mark, moving the mark up by one after committing the
// row's pages (a hole until then). The mark's CAS is seq_cst and comes before the row's claim:
// for the participant table it is the claimer's side of sync point "segment-close".
template <typename EntryT>
Claim claim_below_mark(shm::Segment& segment, EntryT* entries, std::atomic<std::uint32_t>& used,
                       std::uint32_t count, std::uint32_t pid, std::uint32_t* index,
                       std::uint64_t* word) {
  std::uint32_t mark = rows_in_use(used, count);
  if (claim(entries, mark, pid, index, word)) return Claim::Claimed;
  while (mark < count) {
    const auto at =
        static_cast<std::uint64_t>(reinterpret_cast<std::byte*>(entries + mark) - segment.base());
    if (!segment.commit(at, sizeof(EntryT), false)) return Claim::NoSpace;
    // Whether this CAS or another claimer's moved the mark past `mark`, the row there is now in
    // use; take it if still Free. A row past a corrupt (too small) mark is not Free: move on.
    std::uint32_t expected = mark;
    used.compare_exchange_strong(expected, mark + 1, std::memory_order_seq_cst);
    if (claim_row(entries[mark], pid, word)) {
      *index = mark;
      return Claim::Claimed;
    }
    mark = std::max(mark + 1, rows_in_use(used, count));
  }
  // Every row is below the mark: one freed since the first scan may be Free now.
  return claim(entries, count, pid, index, word) ? Claim::Claimed : Claim::Full;
}

// The error of a claim that got no row.
Error<RegisterError> claim_error(Claim c, const std::string& registry, const char* table,
                                 std::uint32_t capacity) {
  if (c == Claim::NoSpace) {
    return Error<RegisterError>{RegisterError::NoSpace,
                                "graph registry '" + registry + "': no room in /dev/shm for a " +
                                    table + " row (free space there or enlarge it)"};
  }
  return Error<RegisterError>{RegisterError::TableFull, "graph registry '" + registry + "': all " +
                                                            std::to_string(capacity) + " " + table +
                                                            " entries belong to live processes"};
}

std::uint64_t activated(std::uint64_t claimed) {
  return entry_word(EntryState::Active, entry_pid(claimed), entry_gen(claimed));
}

// True while the process holding the non-Free participant word `w` of `e` lives. A Reclaiming
// word carries the reclaimer's pid, whose start time we do not know; a fresh claim's start time
// may not be stored yet (0): then the pid alone decides.
bool holder_alive(const ParticipantEntry& e, std::uint64_t w) {
  const std::uint64_t start =
      entry_state(w) == EntryState::Reclaiming ? 0 : e.start_time.load(RELAXED);
  return shm::is_alive(shm::ParticipantId{entry_pid(w), start});
}

// Gives a participant entry back: the start time is zeroed before the entry goes Free, so the
// next claimer's word is never paired with the old start time by a reclaimer (sync point
// "entry-free": release here, acquire in claim).
void free_participant(ParticipantEntry* e, std::uint64_t w) {
  e->start_time.store(0, RELAXED);
  e->state.store(entry_word(EntryState::Free, 0, entry_gen(w)), std::memory_order_release);
}

shm::SegmentLifecycle lifecycle_of(const shm::Segment& seg) {
  auto* h = seg.at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  return shm::SegmentLifecycle(h->lifecycle, h->closer_start_time);
}

}  // namespace

// ---- validation and opening ----

std::string validate_registry_segment(const shm::Segment& seg, bool* incompatible) {
  *incompatible = false;
  if (seg.size() < RegistrySegmentLayout::participants_offset) {
    return "size " + std::to_string(seg.size()) + " is below the registry header";
  }
  const auto* h = seg.at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  if (h->magic != REGISTRY_MAGIC) {
    *incompatible = true;
    return "not a graph registry (bad registry magic)";
  }
  if (h->layout_version != REGISTRY_LAYOUT_VERSION) {
    *incompatible = true;
    return "registry layout version " + std::to_string(h->layout_version) +
           ", this build expects " + std::to_string(REGISTRY_LAYOUT_VERSION);
  }
  if (h->max_participants != MAX_PARTICIPANTS || h->max_nodes != MAX_NODES ||
      h->max_endpoints != MAX_ENDPOINTS || h->participant_size != sizeof(ParticipantEntry) ||
      h->node_size != sizeof(NodeEntry) || h->endpoint_size != sizeof(EndpointEntry) ||
      h->participants_offset != RegistrySegmentLayout::participants_offset ||
      h->nodes_offset != RegistrySegmentLayout::nodes_offset ||
      h->endpoints_offset != RegistrySegmentLayout::endpoints_offset) {
    *incompatible = true;
    return "tables of " + std::to_string(h->max_participants) + "/" + std::to_string(h->max_nodes) +
           "/" + std::to_string(h->max_endpoints) + " entries, this build expects " +
           std::to_string(MAX_PARTICIPANTS) + "/" + std::to_string(MAX_NODES) + "/" +
           std::to_string(MAX_ENDPOINTS) +
           " (or entry sizes "
           "or offsets differ)";
  }
  if (seg.size() != RegistrySegmentLayout::total_size) {
    return "size " + std::to_string(seg.size()) + ", expected " +
           std::to_string(RegistrySegmentLayout::total_size);
  }
  return {};
}

bool registry_has_live_participant(const shm::Segment& seg) {
  const auto* entries = seg.at<ParticipantEntry>(RegistrySegmentLayout::participants_offset);
  // The mark after the CAS to Closing, seq_cst: a claimer moves it before its claim.
  const auto* h = seg.at<RegistryHeader>(RegistrySegmentLayout::header_offset);
  const std::uint32_t used =
      rows_in_use(h->participants_used, MAX_PARTICIPANTS, std::memory_order_seq_cst);
  for (std::uint32_t i = 0; i < used; ++i) {
    // The closer's half of sync point "segment-close": seq_cst loads after its CAS.
    const std::uint64_t w = entries[i].state.load(std::memory_order_seq_cst);
    if (!entry_state_valid(w) || entry_state(w) == EntryState::Free) continue;
    if (holder_alive(entries[i], w)) return true;
  }
  return false;
}

shm::CloseVerdict close_registry_if_unused(shm::Segment& seg) {
  return lifecycle_of(seg).close_if_unused(seg, [&] { return registry_has_live_participant(seg); });
}

Result<std::shared_ptr<Registry>, Error<RegistryOpenError>> Registry::open_or_create(
    const RegistryOptions& options) {
  using E = Error<RegistryOpenError>;
  const std::string seg_name = shm::segment_name("g", options.name);
  const std::string hint = " (remove it with `baton shm clean` once no process uses it)";
  shm::ClosingWait closing;
  for (int attempt = 0; attempt < OPEN_ATTEMPTS; ++attempt) {
    auto opened = shm::Segment::open(seg_name, shm::SegmentKind::Graph, options.ready_timeout_ms);
    if (opened) {
      bool incompatible = false;
      const std::string why = validate_registry_segment(*opened, &incompatible);
      if (!why.empty()) {
        return unexpected(
            E{incompatible ? RegistryOpenError::Incompatible : RegistryOpenError::Corrupt,
              "graph registry '" + seg_name + "': " + why + hint});
      }
      if (!lifecycle_of(*opened).is_open()) {
        // Being removed: let its closer finish (or finish for a dead one), then open anew.
        if (closing.settle(*opened, lifecycle_of(*opened),
                           [&] { return registry_has_live_participant(*opened); })) {
          --attempt;
        }
        continue;
      }
      return std::shared_ptr<Registry>(new Registry(options.name, std::move(*opened)));
    }
    switch (opened.error().code) {
      case shm::SegmentOpenError::PermissionDenied:
        return unexpected(E{RegistryOpenError::PermissionDenied, opened.error().detail});
      case shm::SegmentOpenError::Incompatible:
        return unexpected(E{RegistryOpenError::Incompatible, opened.error().detail + hint});
      case shm::SegmentOpenError::Corrupt:
        return unexpected(E{RegistryOpenError::Corrupt, opened.error().detail + hint});
      case shm::SegmentOpenError::Stale:
        shm::Segment::remove_if_stale(seg_name);  // its creator died before finishing it
        continue;
      case shm::SegmentOpenError::NotReady:
        continue;
      case shm::SegmentOpenError::DoesNotExist:
        break;
      default:
        return unexpected(E{RegistryOpenError::SegmentFailure, opened.error().detail});
    }
    shm::SegmentOptions seg_opts;
    seg_opts.mode = options.segment_mode;
    // The header only: rows are committed as claims move the marks past them (version 5).
    seg_opts.commit_prefix = RegistrySegmentLayout::participants_offset;
    auto created = shm::Segment::create(seg_name, RegistrySegmentLayout::total_size,
                                        shm::SegmentKind::Graph, seg_opts);
    if (!created) {
      if (created.error().code == shm::SegmentCreateError::AlreadyExists) continue;  // lost race
      return unexpected(E{RegistryOpenError::SegmentFailure, created.error().detail});
    }
    created->close_backing_file();  // rows are committed through the mappings
    // A fresh tmpfs file is zero-filled: every entry starts Free with generation 0.
    auto* h = created->at<RegistryHeader>(RegistrySegmentLayout::header_offset);
    h->magic = REGISTRY_MAGIC;
    h->layout_version = REGISTRY_LAYOUT_VERSION;
    h->max_participants = MAX_PARTICIPANTS;
    h->max_nodes = MAX_NODES;
    h->max_endpoints = MAX_ENDPOINTS;
    h->participant_size = sizeof(ParticipantEntry);
    h->node_size = sizeof(NodeEntry);
    h->endpoint_size = sizeof(EndpointEntry);
    h->participants_offset = RegistrySegmentLayout::participants_offset;
    h->nodes_offset = RegistrySegmentLayout::nodes_offset;
    h->endpoints_offset = RegistrySegmentLayout::endpoints_offset;
    // Never an epoch a reader cached from a predecessor under this name (registry_layout.hpp).
    h->epoch.store(static_cast<std::uint64_t>(shm::monotonic_ns()), RELAXED);
    created->mark_ready();  // sync point "segment-ready"
    return std::shared_ptr<Registry>(new Registry(options.name, std::move(*created)));
  }
  if (closing.busy_closer() != 0) {
    return unexpected(E{RegistryOpenError::Contention, "graph registry '" + seg_name +
                                                           "': it is being removed by process " +
                                                           std::to_string(closing.busy_closer()) +
                                                           ", which does not finish; retry"});
  }
  return unexpected(E{RegistryOpenError::Contention,
                      "graph registry '" + seg_name + "': could not open or create it after " +
                          std::to_string(OPEN_ATTEMPTS) + " attempts"});
}

// ---- table access (indices are the caller's, always < the table size) ----

Registry::~Registry() { close_if_unused(); }

bool Registry::is_open() const noexcept { return lifecycle_of(segment_).is_open(); }

shm::CloseVerdict Registry::close_if_unused() { return close_registry_if_unused(segment_); }

RegistryHeader* Registry::header() const noexcept {
  return segment_.at<RegistryHeader>(RegistrySegmentLayout::header_offset);
}
ParticipantEntry* Registry::participant_entry(std::uint32_t i) const noexcept {
  return segment_.at<ParticipantEntry>(RegistrySegmentLayout::participants_offset) + i;
}
NodeEntry* Registry::node_entry(std::uint32_t i) const noexcept {
  return segment_.at<NodeEntry>(RegistrySegmentLayout::nodes_offset) + i;
}
EndpointEntry* Registry::endpoint_entry(std::uint32_t i) const noexcept {
  return segment_.at<EndpointEntry>(RegistrySegmentLayout::endpoints_offset) + i;
}

void Registry::bump_epoch() noexcept {
  header()->epoch.fetch_add(1, std::memory_order_acq_rel);  // sync point "epoch"
}

std::uint64_t Registry::epoch() const noexcept {
  return header()->epoch.load(std::memory_order_acquire);  // sync point "epoch"
}

bool Registry::participant_live(std::uint32_t index, std::uint32_t gen) const noexcept {
  if (index >= rows_in_use(header()->participants_used, MAX_PARTICIPANTS)) return false;
  const std::uint64_t w = participant_entry(index)->state.load(std::memory_order_acquire);
  return entry_state(w) == EntryState::Active && entry_gen(w) == (gen & GENERATION_MASK);
}

void Registry::release(std::atomic<std::uint64_t>& state, std::uint64_t word) noexcept {
  // Only the registering process unregisters; a forked child's inherited handle does nothing.
  if (entry_pid(word) != shm::self().pid) return;
  std::uint64_t expected = word;
  // Fails harmlessly if a peer already reclaimed the entry (it judged us dead).
  if (state.compare_exchange_strong(expected, entry_word(EntryState::Free, 0, entry_gen(word)),
                                    std::memory_order_acq_rel, RELAXED)) {
    bump_epoch();
  }
}

// ---- registration ----

Result<std::shared_ptr<ParticipantHandle>, Error<RegisterError>> Registry::register_participant() {
  const shm::ParticipantId me = shm::self();
  Claim got = Claim::Full;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::uint32_t i = 0;
    std::uint64_t claimed = 0;
    got = claim_below_mark(segment_, participant_entry(0), header()->participants_used,
                           MAX_PARTICIPANTS, me.pid, &i, &claimed);
    if (got == Claim::Claimed) {
      ParticipantEntry* e = participant_entry(i);
      if (!lifecycle_of(segment_).admits_claim()) {
        // A closer may not have seen the claim: nothing may stay in a registry being removed.
        free_participant(e, claimed);
        return unexpected(Error<RegisterError>{
            RegisterError::Closed, "graph registry '" + segment_.name() +
                                       "' was removed while this participant registered"});
      }
      e->start_time.store(me.start_time, RELAXED);
      const std::uint64_t active = activated(claimed);
      e->state.store(active, std::memory_order_release);  // sync point "entry-active"
      bump_epoch();
      return std::shared_ptr<ParticipantHandle>(
          new ParticipantHandle(shared_from_this(), i, active));
    }
    if (got == Claim::NoSpace) break;
    if (attempt == 0) reclaim_dead();
  }
  return unexpected(claim_error(got, segment_.name(), "participant", MAX_PARTICIPANTS));
}

Result<std::shared_ptr<NodeHandle>, Error<RegisterError>> Registry::register_node(
    const std::shared_ptr<ParticipantHandle>& participant, std::string_view name,
    std::string_view namespace_) {
  using E = Error<RegisterError>;
  if (!participant || participant->registry_.get() != this) {
    return unexpected(E{RegisterError::InvalidHandle,
                        "participant handle is null or belongs to "
                        "another registry"});
  }
  const std::uint32_t pid = shm::self().pid;
  if (participant->pid() != pid) {
    return unexpected(E{RegisterError::InvalidHandle,
                        "participant was registered by pid " + std::to_string(participant->pid()) +
                            ", this is pid " + std::to_string(pid) + " (inherited across fork?)"});
  }
  if (!participant->registered()) {
    return unexpected(E{
        RegisterError::ParticipantGone,
        "participant entry " + std::to_string(participant->index()) + " was reclaimed by a peer"});
  }
  const std::string_view ns = namespace_.empty() ? std::string_view("/") : namespace_;
  if (auto ok = check_name("node name", name, NODE_NAME_CAPACITY, false); !ok) {
    return unexpected(E{RegisterError::InvalidName, ok.error()});
  }
  if (auto ok = check_name("node namespace", ns, NAMESPACE_CAPACITY, false); !ok) {
    return unexpected(E{RegisterError::InvalidName, ok.error()});
  }
  Claim got = Claim::Full;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::uint32_t i = 0;
    std::uint64_t claimed = 0;
    got = claim_below_mark(segment_, node_entry(0), header()->nodes_used, MAX_NODES, pid, &i,
                           &claimed);
    if (got == Claim::Claimed) {
      NodeEntry* e = node_entry(i);
      e->participant.store(participant->index(), RELAXED);
      e->participant_gen.store(participant->generation(), RELAXED);
      e->name_len.store(static_cast<std::uint16_t>(name.size()), RELAXED);
      e->namespace_len.store(static_cast<std::uint16_t>(ns.size()), RELAXED);
      store_string(e->name, name);
      store_string(e->namespace_, ns);
      const std::uint64_t active = activated(claimed);
      e->state.store(active, std::memory_order_release);  // sync point "entry-active"
      bump_epoch();
      return std::shared_ptr<NodeHandle>(
          new NodeHandle(participant, i, active, std::string(name), std::string(ns)));
    }
    if (got == Claim::NoSpace) break;
    if (attempt == 0) reclaim_dead();
  }
  return unexpected(claim_error(got, segment_.name(), "node", MAX_NODES));
}

Result<std::shared_ptr<EndpointHandle>, Error<RegisterError>> Registry::register_endpoint(
    EndpointKind kind, const std::shared_ptr<NodeHandle>& node, std::string_view name,
    const topic::TypeInfo& type, const EndpointQos& qos, const EndpointGid& gid) {
  using E = Error<RegisterError>;
  if (!node || node->participant_->registry_.get() != this) {
    return unexpected(E{RegisterError::InvalidHandle,
                        "node handle is null or belongs to another "
                        "registry"});
  }
  const auto& participant = node->participant_;
  const std::uint32_t pid = shm::self().pid;
  if (participant->pid() != pid) {
    return unexpected(E{RegisterError::InvalidHandle,
                        "node was registered by pid " + std::to_string(participant->pid()) +
                            ", this is pid " + std::to_string(pid) + " (inherited across fork?)"});
  }
  if (static_cast<std::uint8_t>(kind) > static_cast<std::uint8_t>(EndpointKind::Client)) {
    return unexpected(E{RegisterError::InvalidName, "unknown endpoint kind"});
  }
  if (!participant->registered()) {
    return unexpected(E{
        RegisterError::ParticipantGone,
        "participant entry " + std::to_string(participant->index()) + " was reclaimed by a peer"});
  }
  const char* what = (kind == EndpointKind::Service || kind == EndpointKind::Client)
                         ? "service name"
                         : "topic name";
  if (auto ok = check_name(what, name, ENDPOINT_NAME_CAPACITY, false); !ok) {
    return unexpected(E{RegisterError::InvalidName, ok.error()});
  }
  if (auto ok = check_name("type name", type.name, TYPE_NAME_CAPACITY, false); !ok) {
    return unexpected(E{RegisterError::InvalidName, ok.error()});
  }
  Claim got = Claim::Full;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::uint32_t i = 0;
    std::uint64_t claimed = 0;
    got = claim_below_mark(segment_, endpoint_entry(0), header()->endpoints_used, MAX_ENDPOINTS,
                           pid, &i, &claimed);
    if (got == Claim::Claimed) {
      EndpointEntry* e = endpoint_entry(i);
      e->participant.store(participant->index(), RELAXED);
      e->participant_gen.store(participant->generation(), RELAXED);
      e->node.store(node->index(), RELAXED);
      e->node_gen.store(node->generation(), RELAXED);
      e->kind.store(static_cast<std::uint8_t>(kind), RELAXED);
      e->reliability.store(static_cast<std::uint8_t>(qos.reliability), RELAXED);
      e->durability.store(static_cast<std::uint8_t>(qos.durability), RELAXED);
      e->depth.store(qos.depth, RELAXED);
      e->name_len.store(static_cast<std::uint16_t>(name.size()), RELAXED);
      e->type_name_len.store(static_cast<std::uint16_t>(type.name.size()), RELAXED);
      for (int w = 0; w < 4; ++w) {
        std::uint64_t v = 0;
        for (int b = 0; b < 8; ++b) {
          v |= static_cast<std::uint64_t>(type.hash[static_cast<std::size_t>(w * 8 + b)])
               << (8 * b);
        }
        e->type_hash[w].store(v, RELAXED);
      }
      for (int w = 0; w < 2; ++w) {
        std::uint64_t v = 0;
        std::memcpy(&v, gid.data() + w * 8, 8);  // little endian, as the hash words
        e->gid[w].store(v, RELAXED);
      }
      store_string(e->name, name);
      store_string(e->type_name, type.name);
      const std::uint64_t active = activated(claimed);
      e->state.store(active, std::memory_order_release);  // sync point "entry-active"
      bump_epoch();
      return std::shared_ptr<EndpointHandle>(new EndpointHandle(node, i, active, kind));
    }
    if (got == Claim::NoSpace) break;
    if (attempt == 0) reclaim_dead();
  }
  return unexpected(claim_error(got, segment_.name(), "endpoint", MAX_ENDPOINTS));
}

// ---- handles ----

bool ParticipantHandle::registered() const noexcept {
  return registry_->participant_entry(index_)->state.load(std::memory_order_acquire) == word_;
}

ParticipantHandle::~ParticipantHandle() {
  if (entry_pid(word_) != shm::self().pid) return;  // inherited across fork: not ours
  ParticipantEntry* e = registry_->participant_entry(index_);
  std::uint64_t expected = word_;
  const std::uint64_t reclaiming =
      entry_word(EntryState::Reclaiming, entry_pid(word_), entry_gen(word_));
  // Fails if a peer reclaimed it already (it judged us dead).
  if (e->state.compare_exchange_strong(expected, reclaiming, std::memory_order_acq_rel, RELAXED)) {
    free_participant(e, word_);
    registry_->bump_epoch();
  }
  // Perhaps the namespace's last participant: remove the registry if nobody else is left.
  registry_->close_if_unused();
}

NodeHandle::~NodeHandle() {
  const auto& reg = participant_->registry();
  reg->release(reg->node_entry(index_)->state, word_);
}

EndpointHandle::~EndpointHandle() {
  const auto& reg = node_->participant()->registry();
  reg->release(reg->endpoint_entry(index_)->state, word_);
}

// ---- reclaiming ----

std::uint32_t Registry::reclaim_dead_if_due(std::chrono::nanoseconds period) {
  return shm::take_periodic_turn(header()->reclaimed_at, period) ? reclaim_dead() : 0;
}

std::uint32_t Registry::reclaim_dead() {
  std::uint32_t removed = 0;
  const std::uint32_t me = shm::self().pid;
  // 1. Participants whose process died (or whose reclaimer died mid-way).
  for (std::uint32_t i = 0, used = rows_in_use(header()->participants_used, MAX_PARTICIPANTS);
       i < used; ++i) {
    ParticipantEntry* e = participant_entry(i);
    std::uint64_t w = e->state.load(std::memory_order_acquire);
    if (!entry_state_valid(w) || entry_state(w) == EntryState::Free) continue;
    if (holder_alive(*e, w)) continue;
    const std::uint64_t reclaiming = entry_word(EntryState::Reclaiming, me, entry_gen(w));
    if (!e->state.compare_exchange_strong(w, reclaiming, std::memory_order_acq_rel, RELAXED)) {
      continue;  // someone else is on it, or the entry changed
    }
    free_participant(e, w);
    bump_epoch();
    ++removed;
  }
  // 2. Nodes and endpoints whose participant is gone (orphans), and claims abandoned by a dead
  // process before activation. An Active entry whose participant index is out of range is
  // corrupt; it is removed only once the process that wrote it is dead.
  auto sweep = [&](auto* entries, std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) {
      auto& e = entries[i];
      std::uint64_t w = e.state.load(std::memory_order_acquire);
      if (!entry_state_valid(w) || entry_state(w) == EntryState::Free) continue;
      if (entry_state(w) == EntryState::Active) {
        const std::uint32_t p = e.participant.load(RELAXED);
        const std::uint32_t pg = e.participant_gen.load(RELAXED);
        std::atomic_thread_fence(std::memory_order_acquire);  // seqlock "entry-active"
        if (e.state.load(RELAXED) != w) continue;
        if (p < MAX_PARTICIPANTS ? participant_live(p, pg) : pid_alive(entry_pid(w))) continue;
      } else if (pid_alive(entry_pid(w))) {
        continue;  // being registered (Claimed) by a live process
      }
      if (e.state.compare_exchange_strong(w, entry_word(EntryState::Free, 0, entry_gen(w)),
                                          std::memory_order_acq_rel, RELAXED)) {
        bump_epoch();
        ++removed;
      }
    }
  };
  sweep(node_entry(0), rows_in_use(header()->nodes_used, MAX_NODES));
  sweep(endpoint_entry(0), rows_in_use(header()->endpoints_used, MAX_ENDPOINTS));
  return removed;
}

// ---- reading ----
// Each table row goes through three steps: read (its fields, under the row's seqlock: a row that
// changed while it was read is skipped, not reported), validate (every index, enum and length
// read from shared memory is checked; a bad row becomes a GraphIssue), apply (a sound row whose
// participant still lives joins the snapshot).

namespace {

// The row's state word if the row is Active. A state byte out of range is reported in `issue`.
template <typename Entry>
std::optional<std::uint64_t> active_word(const Entry& e, std::string& issue) {
  const std::uint64_t w = e.state.load(std::memory_order_acquire);
  if (!entry_state_valid(w)) {
    issue = "state byte " + hex_byte(entry_state_raw(w)) + " out of range";
    return std::nullopt;
  }
  if (entry_state(w) != EntryState::Active) return std::nullopt;
  return w;
}

// True if the row still holds `w` after its fields were read (seqlock "entry-active").
template <typename Entry>
bool unchanged(const Entry& e, std::uint64_t w) {
  std::atomic_thread_fence(std::memory_order_acquire);
  return e.state.load(RELAXED) == w;
}

struct NodeRow {
  std::uint64_t word = 0;
  std::uint32_t participant = 0, participant_gen = 0, name_len = 0, ns_len = 0;
  std::string name, ns;  // read only when both lengths are in range
};

bool node_lengths_ok(std::uint32_t name_len, std::uint32_t ns_len) {
  return name_len >= 1 && name_len <= NODE_NAME_CAPACITY && ns_len >= 1 &&
         ns_len <= NAMESPACE_CAPACITY;
}

std::optional<NodeRow> read_node(const NodeEntry& e, std::string& issue) {
  const auto w = active_word(e, issue);
  if (!w) return std::nullopt;
  NodeRow r;
  r.word = *w;
  r.participant = e.participant.load(RELAXED);
  r.participant_gen = e.participant_gen.load(RELAXED);
  r.name_len = e.name_len.load(RELAXED);
  r.ns_len = e.namespace_len.load(RELAXED);
  if (node_lengths_ok(r.name_len, r.ns_len)) {
    r.name = load_string(e.name, r.name_len);
    r.ns = load_string(e.namespace_, r.ns_len);
  }
  if (!unchanged(e, r.word)) return std::nullopt;  // changed while read: not corrupt
  return r;
}

std::string node_issue(const NodeRow& r) {
  if (r.participant >= MAX_PARTICIPANTS) {
    return "participant index " + std::to_string(r.participant) + " out of range (max " +
           std::to_string(MAX_PARTICIPANTS) + ")";
  }
  if (!node_lengths_ok(r.name_len, r.ns_len)) {
    return "name / namespace length " + std::to_string(r.name_len) + " / " +
           std::to_string(r.ns_len) + " out of range (1.." + std::to_string(NODE_NAME_CAPACITY) +
           ")";
  }
  if (r.name.find('\0') != std::string::npos || r.ns.find('\0') != std::string::npos)
    return "name contains a NUL byte";
  return {};
}

struct EndpointRow {
  std::uint64_t word = 0;
  std::uint32_t participant = 0, participant_gen = 0, node = 0, node_gen = 0, depth = 0;
  std::uint32_t name_len = 0, type_len = 0;
  std::uint8_t kind = 0, reliability = 0, durability = 0;
  EndpointInfo info;  // name and type name only when both lengths are in range; hash; gid
};

bool endpoint_lengths_ok(std::uint32_t name_len, std::uint32_t type_len) {
  return name_len >= 1 && name_len <= ENDPOINT_NAME_CAPACITY && type_len >= 1 &&
         type_len <= TYPE_NAME_CAPACITY;
}

std::optional<EndpointRow> read_endpoint(const EndpointEntry& e, std::string& issue) {
  const auto w = active_word(e, issue);
  if (!w) return std::nullopt;
  EndpointRow r;
  r.word = *w;
  r.participant = e.participant.load(RELAXED);
  r.participant_gen = e.participant_gen.load(RELAXED);
  r.node = e.node.load(RELAXED);
  r.node_gen = e.node_gen.load(RELAXED);
  r.kind = e.kind.load(RELAXED);
  r.reliability = e.reliability.load(RELAXED);
  r.durability = e.durability.load(RELAXED);
  r.depth = e.depth.load(RELAXED);
  r.name_len = e.name_len.load(RELAXED);
  r.type_len = e.type_name_len.load(RELAXED);
  if (endpoint_lengths_ok(r.name_len, r.type_len)) {
    r.info.name = load_string(e.name, r.name_len);
    r.info.type.name = load_string(e.type_name, r.type_len);
  }
  for (std::size_t b = 0; b < 32; ++b) {
    r.info.type.hash[b] =
        static_cast<std::uint8_t>(e.type_hash[b / 8].load(RELAXED) >> (8 * (b % 8)));
  }
  for (int g = 0; g < 2; ++g) {
    const std::uint64_t v = e.gid[g].load(RELAXED);
    std::memcpy(r.info.gid.data() + g * 8, &v, 8);
  }
  if (!unchanged(e, r.word)) return std::nullopt;
  return r;
}

std::string endpoint_issue(const EndpointRow& r) {
  if (r.participant >= MAX_PARTICIPANTS)
    return "participant index " + std::to_string(r.participant) + " out of range";
  if (r.node >= MAX_NODES) {
    return "node index " + std::to_string(r.node) + " out of range (max " +
           std::to_string(MAX_NODES) + ")";
  }
  if (r.kind > static_cast<std::uint8_t>(EndpointKind::Client))
    return "kind " + std::to_string(r.kind) + " out of range";
  if (r.reliability > 1 || r.durability > 1) {
    return "reliability / durability " + std::to_string(r.reliability) + " / " +
           std::to_string(r.durability) + " out of range";
  }
  if (!endpoint_lengths_ok(r.name_len, r.type_len)) {
    return "name / type name length " + std::to_string(r.name_len) + " / " +
           std::to_string(r.type_len) + " out of range";
  }
  if (r.info.name.find('\0') != std::string::npos ||
      r.info.type.name.find('\0') != std::string::npos)
    return "name contains a NUL byte";
  return {};
}

}  // namespace

GraphSnapshot Registry::snapshot(bool reclaim) {
  if (reclaim) reclaim_dead();
  GraphSnapshot snap;
  const std::uint64_t epoch_before = epoch();
  std::string issue;
  // Reports `issue` (if any) for row `i` of `t`, and clears it; true if there was one.
  auto reported = [&](Table t, std::uint32_t i) {
    if (issue.empty()) return false;
    snap.issues.push_back(GraphIssue{t, i, std::move(issue)});
    issue.clear();
    return true;
  };

  const std::uint32_t participants = rows_in_use(header()->participants_used, MAX_PARTICIPANTS);
  for (std::uint32_t i = 0; i < participants; ++i) {
    const ParticipantEntry& e = *participant_entry(i);
    const auto w = active_word(e, issue);
    if (!w) {
      reported(Table::Participants, i);
      continue;
    }
    if (entry_pid(*w) == 0) issue = "active entry with pid 0";
    if (reported(Table::Participants, i)) continue;
    snap.participants.push_back(ParticipantInfo{i, entry_pid(*w), e.start_time.load(RELAXED)});
  }

  const std::uint32_t nodes = rows_in_use(header()->nodes_used, MAX_NODES);
  for (std::uint32_t i = 0; i < nodes; ++i) {
    auto row = read_node(*node_entry(i), issue);
    if (!row) {
      reported(Table::Nodes, i);
      continue;
    }
    issue = node_issue(*row);
    if (reported(Table::Nodes, i)) continue;
    if (!participant_live(row->participant, row->participant_gen))
      continue;  // orphan: next reclaim
    NodeInfo n;
    n.fully_qualified_name = (row->ns == "/" ? std::string() : row->ns) + "/" + row->name;
    n.name = std::move(row->name);
    n.namespace_ = std::move(row->ns);
    n.pid = entry_pid(row->word);
    n.index = i;
    n.generation = entry_gen(row->word);
    snap.nodes.push_back(std::move(n));
  }

  const std::uint32_t endpoints = rows_in_use(header()->endpoints_used, MAX_ENDPOINTS);
  for (std::uint32_t i = 0; i < endpoints; ++i) {
    auto row = read_endpoint(*endpoint_entry(i), issue);
    if (!row) {
      reported(Table::Endpoints, i);
      continue;
    }
    issue = endpoint_issue(*row);
    if (reported(Table::Endpoints, i)) continue;
    if (!participant_live(row->participant, row->participant_gen)) continue;  // orphan
    EndpointInfo info = std::move(row->info);
    info.kind = static_cast<EndpointKind>(row->kind);
    info.qos = EndpointQos{row->depth, static_cast<topic::Reliability>(row->reliability),
                           static_cast<topic::Durability>(row->durability)};
    info.node_index = row->node;
    info.node_generation = row->node_gen & GENERATION_MASK;
    info.pid = entry_pid(row->word);
    info.index = i;
    for (const auto& n : snap.nodes) {
      if (n.index == row->node && n.generation == info.node_generation) {
        info.node_fully_qualified_name = n.fully_qualified_name;
        break;
      }
    }
    snap.endpoints.push_back(std::move(info));
  }

  snap.epoch = epoch();
  snap.consistent = snap.epoch == epoch_before;
  return snap;
}

std::optional<GraphSnapshot> Registry::snapshot_if_changed(std::uint64_t known_epoch) {
  reclaim_dead();  // a death does not move the epoch until someone reclaims it
  if (epoch() == known_epoch) return std::nullopt;
  return snapshot(false);
}

}  // namespace baton::graph
