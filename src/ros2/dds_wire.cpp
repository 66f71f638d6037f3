// Raw-CDR DDS endpoints on CycloneDDS (see dds_wire.hpp). A sertype whose
// serdata is just the CDR bytes: Cyclone sends and receives them untouched, so the encoding is
// baton's (cdr.hpp) and byte-identical to what other ROS 2 RMWs produce.
#include "dds_wire.hpp"

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>
#include <dds/ddsi/q_radmin.h>
#include <dds/ddsi/q_thread.h>
#include <dds/ddsrt/atomics.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "cyclone_type_lookup_guard.hpp"
#include "dds_domain_config.hpp"
#include "dds_sample_buffers.hpp"
#include "shm_peer_tag.hpp"

namespace baton::ros2 {
namespace {

using Err = Error<WireError>;

// ---- serdata: the sample's CDR bytes, padded to a multiple of 4 --------------------------------
struct RawSerdata {
  ddsi_serdata c;  // first: Cyclone hands us &c
  std::vector<uint8_t> bytes;
};
static_assert(offsetof(RawSerdata, c) == 0);

RawSerdata* raw(const ddsi_serdata* d) {
  return reinterpret_cast<RawSerdata*>(const_cast<ddsi_serdata*>(d));
}

RawSerdata* new_serdata(const ddsi_sertype* type, ddsi_serdata_kind kind, size_t size) {
  auto* d = new (std::nothrow) RawSerdata;
  if (d == nullptr) return nullptr;
  ddsi_serdata_init(&d->c, type, kind);
  // Cyclone may read up to alignup4(size) (ddsi_serdata_to_ser_t contract): the pad is zero.
  const size_t aligned = (size + 3) & ~size_t{3};
  d->bytes = take_sample_buffer(aligned);
  if (aligned > size) std::memset(d->bytes.data() + size, 0, aligned - size);
  d->bytes.resize(size);
  return d;
}

// Pads to 4 and records the pad count in the encapsulation options (XTypes 7.6.3.1.2).
void pad_to_4(RawSerdata* d) {
  const size_t pad = (4 - d->bytes.size() % 4) % 4;
  if (pad == 0 || d->bytes.size() < 4) return;
  d->bytes.resize(d->bytes.size() + pad, 0);
  d->bytes[3] = static_cast<uint8_t>((d->bytes[3] & ~3u) | pad);
}

bool sd_eqkey(const ddsi_serdata*, const ddsi_serdata*) { return true; }  // ROS 2: no keys
uint32_t sd_size(const ddsi_serdata* d) { return static_cast<uint32_t>(raw(d)->bytes.size()); }

ddsi_serdata* sd_from_ser(const ddsi_sertype* type, ddsi_serdata_kind kind,
                          const nn_rdata* fragchain, size_t size) {
  RawSerdata* d = new_serdata(type, kind, size);
  if (d == nullptr) return nullptr;
  uint32_t off = 0;
  for (; fragchain != nullptr; fragchain = fragchain->nextfrag) {
    if (fragchain->maxp1 <= off) continue;                  // nothing new in this fragment
    if (fragchain->maxp1 > size || fragchain->min > off) {  // inconsistent chain: drop sample
      delete d;
      return nullptr;
    }
    const unsigned char* payload =
        NN_RMSG_PAYLOADOFF(fragchain->rmsg, NN_RDATA_PAYLOAD_OFF(fragchain));
    std::memcpy(d->bytes.data() + off, payload + off - fragchain->min, fragchain->maxp1 - off);
    off = fragchain->maxp1;
  }
  return &d->c;
}

ddsi_serdata* sd_from_ser_iov(const ddsi_sertype* type, ddsi_serdata_kind kind,
                              ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t* iov, size_t size) {
  RawSerdata* d = new_serdata(type, kind, size);
  if (d == nullptr) return nullptr;
  size_t off = 0;
  for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; ++i) {
    size_t n = std::min<size_t>(iov[i].iov_len, size - off);
    std::memcpy(d->bytes.data() + off, iov[i].iov_base, n);
    off += n;
  }
  return &d->c;
}

ddsi_serdata* sd_from_keyhash(const ddsi_sertype* type, const ddsi_keyhash*) {
  return &new_serdata(type, SDK_KEY, 0)->c;
}

// Typed samples are a span of bytes ({const uint8_t*, size_t}); baton only uses writecdr/takecdr.
struct RawSample {
  const uint8_t* data;
  size_t size;
};

ddsi_serdata* sd_from_sample(const ddsi_sertype* type, ddsi_serdata_kind kind, const void* s) {
  const auto* sample = static_cast<const RawSample*>(s);
  RawSerdata* d = new_serdata(type, kind, kind == SDK_DATA ? sample->size : 0);
  if (d == nullptr) return nullptr;
  if (kind == SDK_DATA && sample->size > 0)
    std::memcpy(d->bytes.data(), sample->data, sample->size);
  pad_to_4(d);
  return &d->c;
}

void sd_to_ser(const ddsi_serdata* d, size_t off, size_t sz, void* buf) {
  const auto& b = raw(d)->bytes;
  size_t n = off < b.size() ? std::min(sz, b.size() - off) : 0;
  if (n > 0) std::memcpy(buf, b.data() + off, n);
  if (n < sz) std::memset(static_cast<uint8_t*>(buf) + n, 0, sz - n);
}

ddsi_serdata* sd_to_ser_ref(const ddsi_serdata* d, size_t off, size_t sz, ddsrt_iovec_t* ref) {
  ref->iov_base = raw(d)->bytes.data() + off;
  ref->iov_len = static_cast<ddsrt_iov_len_t>(sz);
  return ddsi_serdata_ref(d);
}

void sd_to_ser_unref(ddsi_serdata* d, const ddsrt_iovec_t*) { ddsi_serdata_unref(d); }

bool sd_to_sample(const ddsi_serdata* d, void* s, void**, void*) {
  auto* sample = static_cast<RawSample*>(s);
  sample->data = raw(d)->bytes.data();
  sample->size = raw(d)->bytes.size();
  return true;
}

ddsi_serdata* sd_to_untyped(const ddsi_serdata* d) {
  RawSerdata* u = new_serdata(d->type, SDK_KEY, 0);
  if (u == nullptr) return nullptr;
  u->c.type = nullptr;
  return &u->c;
}

bool sd_untyped_to_sample(const ddsi_sertype*, const ddsi_serdata*, void*, void**, void*) {
  return true;
}

void sd_free(ddsi_serdata* d) {
  keep_sample_buffer(std::move(raw(d)->bytes));
  delete raw(d);
}

// The sample's bytes for a reader that took it: moved out when the reader holds the only
// reference (the usual case: one reader per topic and process), saving a copy of the whole
// sample (24.9 MB for a 4K image), copied otherwise.
std::vector<uint8_t> take_bytes(ddsi_serdata* d) {
  if (ddsrt_atomic_ld32(&d->refc) == 1) return std::move(raw(d)->bytes);
  return raw(d)->bytes;
}

size_t sd_print(const ddsi_sertype*, const ddsi_serdata* d, char* buf, size_t size) {
  return static_cast<size_t>(std::snprintf(buf, size, "<%zu CDR bytes>", raw(d)->bytes.size()));
}

void sd_get_keyhash(const ddsi_serdata*, ddsi_keyhash* buf, bool) {
  std::memset(buf, 0, sizeof *buf);
}

const ddsi_serdata_ops SERDATA_OPS = [] {
  ddsi_serdata_ops ops{};
  ops.eqkey = sd_eqkey;
  ops.get_size = sd_size;
  ops.from_ser = sd_from_ser;
  ops.from_ser_iov = sd_from_ser_iov;
  ops.from_keyhash = sd_from_keyhash;
  ops.from_sample = sd_from_sample;
  ops.to_ser = sd_to_ser;
  ops.to_ser_ref = sd_to_ser_ref;
  ops.to_ser_unref = sd_to_ser_unref;
  ops.to_sample = sd_to_sample;
  ops.to_untyped = sd_to_untyped;
  ops.untyped_to_sample = sd_untyped_to_sample;
  ops.free = sd_free;
  ops.print = sd_print;
  ops.get_keyhash = sd_get_keyhash;
  return ops;
}();

// ---- sertype ----------------------------------------------------------------------------------
void st_free(ddsi_sertype* t) {
  ddsi_sertype_fini(t);
  delete t;
}
void st_zero_samples(const ddsi_sertype*, void* s, size_t n) {
  std::memset(s, 0, n * sizeof(RawSample));
}
void st_realloc_samples(void** ptrs, const ddsi_sertype*, void* old, size_t oldcount,
                        size_t count) {
  auto* p = static_cast<RawSample*>(std::realloc(old, count * sizeof(RawSample)));
  if (p != nullptr && count > oldcount)
    std::memset(p + oldcount, 0, (count - oldcount) * sizeof(RawSample));
  for (size_t i = 0; i < count; ++i) ptrs[i] = p + i;
}
void st_free_samples(const ddsi_sertype*, void** ptrs, size_t, dds_free_op_t op) {
  if ((op & DDS_FREE_ALL_BIT) != 0) std::free(ptrs[0]);
}
bool st_equal(const ddsi_sertype* a, const ddsi_sertype* b) {
  return std::strcmp(a->type_name, b->type_name) == 0 && a->ops == b->ops;
}
uint32_t st_hash(const ddsi_sertype* t) {
  uint32_t h = 2166136261u;  // FNV-1a of the type name
  for (const char* c = t->type_name; *c != 0; ++c) h = (h ^ uint8_t(*c)) * 16777619u;
  return h;
}

const ddsi_sertype_ops SERTYPE_OPS = [] {
  ddsi_sertype_ops ops{};
  ops.version = ddsi_sertype_v0;
  ops.free = st_free;
  ops.zero_samples = st_zero_samples;
  ops.realloc_samples = st_realloc_samples;
  ops.free_samples = st_free_samples;
  ops.equal = st_equal;
  ops.hash = st_hash;
  return ops;
}();

ddsi_sertype* new_sertype(const std::string& type_name) {
  auto* t = new ddsi_sertype{};
  ddsi_sertype_init(t, type_name.c_str(), &SERTYPE_OPS, &SERDATA_OPS, /*topickind_no_key=*/true);
  t->allowed_data_representation = DDS_DATA_REPRESENTATION_FLAG_XCDR1;
  return t;
}

dds_duration_t to_dds(std::chrono::nanoseconds d) {
  return d == std::chrono::nanoseconds::max() ? DDS_INFINITY
                                              : static_cast<dds_duration_t>(d.count());
}

// rmw_cyclonedds_cpp's create_readwrite_qos, on WireQos (README "QoS on the wire").
dds_qos_t* make_qos(const WireQos& q) {
  dds_qos_t* qos = dds_create_qos();
  dds_qset_writer_data_lifecycle(qos, false);  // no autodispose (ROS 2 topics have no keys)
  const auto kind = q.keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST;
  const int32_t depth =
      q.keep_all ? DDS_LENGTH_UNLIMITED : static_cast<int32_t>(std::max<uint32_t>(q.depth, 1));
  dds_qset_history(qos, kind, depth);
  dds_qset_reliability(qos, q.reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
                       DDS_SECS(1));
  if (q.transient_local) {
    // Cyclone keeps historical data per the durability-service QoS, not the history QoS.
    dds_qset_durability(qos, DDS_DURABILITY_TRANSIENT_LOCAL);
    dds_qset_durability_service(qos, 0, kind, depth, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED,
                                DDS_LENGTH_UNLIMITED);
  } else {
    dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
  }
  if (q.deadline.count() != 0) dds_qset_deadline(qos, to_dds(q.deadline));
  if (q.lifespan.count() != 0) dds_qset_lifespan(qos, to_dds(q.lifespan));
  const dds_duration_t lease =
      q.liveliness_lease.count() != 0 ? to_dds(q.liveliness_lease) : DDS_INFINITY;
  dds_qset_liveliness(
      qos, q.liveliness_manual_by_topic ? DDS_LIVELINESS_MANUAL_BY_TOPIC : DDS_LIVELINESS_AUTOMATIC,
      lease);
  if (!q.user_data.empty()) dds_qset_userdata(qos, q.user_data.data(), q.user_data.size());
  if (q.ignore_local_participant) dds_qset_ignorelocal(qos, DDS_IGNORELOCAL_PARTICIPANT);
  dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
  dds_qset_data_representation(qos, 1, &xcdr1);
  return qos;
}

// The baton tag in `q.user_data` ("" if none).
std::string tag_of(const WireQos& q) {
  const auto kv = parse_user_data(
      std::span(reinterpret_cast<const uint8_t*>(q.user_data.data()), q.user_data.size()));
  const auto it = kv.find("baton");
  return it == kv.end() ? std::string() : it->second;
}

// GUID and USER_DATA of a matched endpoint (from dds_get_matched_*_data; may be null). Frees it.
std::optional<MatchedEndpoint> describe_endpoint(dds_builtintopic_endpoint_t* ep) {
  if (ep == nullptr) return std::nullopt;
  MatchedEndpoint out;
  std::memcpy(out.guid.data(), ep->key.v, out.guid.size());
  void* value = nullptr;
  size_t size = 0;
  if (ep->qos != nullptr && dds_qget_userdata(ep->qos, &value, &size) && value != nullptr)
    out.user_data.assign(static_cast<const char*>(value), size);
  dds_free(value);
  dds_builtintopic_free_endpoint(ep);
  return out;
}

// Whether a matched endpoint (from dds_get_matched_*_data; may be null) carries `tag`. Frees it.
bool endpoint_has_tag(dds_builtintopic_endpoint_t* ep, const std::string& tag) {
  const auto d = describe_endpoint(ep);
  return d && has_shm_tag(std::span(reinterpret_cast<const uint8_t*>(d->user_data.data()),
                                    d->user_data.size()),
                          tag);
}

// Domains this file created with the localhost configuration, per domain id, with the number of
// DdsParticipants using each.
struct DomainRef {
  dds_entity_t handle;
  int refs;
};
std::mutex& domains_mu() {
  static std::mutex mu;
  return mu;
}
std::map<uint32_t, DomainRef>& domains() {
  static std::map<uint32_t, DomainRef> m;
  return m;
}

Guid guid_of(dds_entity_t e) {
  Guid out{};
  dds_guid_t g{};
  if (dds_get_guid(e, &g) == DDS_RETCODE_OK) std::memcpy(out.data(), g.v, out.size());
  return out;
}

Unexpected<Err> dds_fail(WireError code, const std::string& what, dds_return_t rc) {
  return unexpected(Err{code, what + ": " + dds_strretcode(rc)});
}

// Without topic QoS, as rmw_cyclonedds_cpp: CycloneDDS 0.10 refuses a second topic entity of the
// same name in one participant whose QoS differs ("Inconsistent Policy"), and one participant
// holds every endpoint of an rmw context (a publisher and a subscription of one topic with
// different depths, ros_discovery_info's writer and reader). Each endpoint sets its own QoS.
int32_t create_topic(int32_t participant, const std::string& topic, const std::string& type,
                     const void** used_sertype = nullptr) {
  ddsi_sertype* st = new_sertype(type);
  // On success Cyclone owns `st` (and may swap it for an equal one it already has).
  dds_entity_t t =
      dds_create_topic_sertype(participant, topic.c_str(), &st, nullptr, nullptr, nullptr);
  if (t < 0) st_free(st);
  if (t > 0 && used_sertype != nullptr) *used_sertype = st;  // valid while the topic lives
  return t;
}

}  // namespace

std::string dds_topic_name(std::string_view ros_name, std::string_view prefix) {
  std::string out(prefix);
  if (ros_name.empty() || ros_name.front() != '/') out += '/';
  out += ros_name;
  return out;
}

// ---- match state (listeners run on Cyclone threads) ------------------------------------------
struct DdsRawWriter::MatchState {
  std::string tag;                // this writer's baton tag, "" if none
  std::atomic<bool> dirty{true};  // a reader matched or left since the last classification
  std::atomic<uint32_t> foreign{0};
};

// Where a Cyclone thread was when it raised a match: the thread and its virtual time.
struct MatchingThread {
  const thread_state* thread;
  vtime_t vtime;
};

struct DdsRawReader::MatchState {
  std::string tag;  // this reader's baton tag, "" if none
  std::mutex mu;
  // Matched writers by instance handle: true = same baton tag (its samples came through shared
  // memory). Kept after an unmatch: samples of a writer that left may still be queued.
  std::unordered_map<dds_instance_handle_t, bool> same_tag;
  // Matched writers that Cyclone may not have connected yet (sync point "match-connected"), by
  // instance handle: the thread that raised the match, until it went on.
  std::unordered_map<dds_instance_handle_t, MatchingThread> connecting;
  // Matched writers whose match the listener reported and that Cyclone has connected. A writer
  // Cyclone already lists as matched is in neither map until its listener call ran: Cyclone adds
  // it to the reader's matches, releases the reader's lock and only then calls the listener, so
  // a count in between counted a writer not yet connected (WireNative saw 2 then 1 writers).
  std::unordered_set<dds_instance_handle_t> connected;
  std::function<void()> on_data;
  std::atomic<uint64_t> dropped{0};
};

namespace {

// The instance handles of the endpoints matched with `entity` (`get` =
// dds_get_matched_subscriptions for a writer, dds_get_matched_publications for a reader).
std::vector<dds_instance_handle_t> matched_handles(
    dds_entity_t entity, dds_return_t (*get)(dds_entity_t, dds_instance_handle_t*, size_t)) {
  std::vector<dds_instance_handle_t> handles(16);
  int32_t n = get(entity, handles.data(), handles.size());
  if (n > static_cast<int32_t>(handles.size())) {
    handles.resize(static_cast<size_t>(n));
    n = get(entity, handles.data(), handles.size());
  }
  handles.resize(
      static_cast<size_t>(std::clamp<int32_t>(n, 0, static_cast<int32_t>(handles.size()))));
  return handles;
}

// Sync point "wire-classify" (Cyclone's thread -> the next write): only a flag here; the writer
// re-reads Cyclone's matched set in matched_foreign_readers() when it is set.
void on_publication_matched(dds_entity_t, const dds_publication_matched_status_t, void* arg) {
  static_cast<DdsRawWriter::MatchState*>(arg)->dirty.store(true, std::memory_order_release);
}

// Sync point "match-before-data": classified at match time, under the reader's mutex, before any
// sample of that writer can arrive (take reads the map under the same mutex), so a same-tag
// writer that writes and leaves at once is still recognised.
void on_subscription_matched(dds_entity_t reader, const dds_subscription_matched_status_t st,
                             void* arg) {
  auto* m = static_cast<DdsRawReader::MatchState*>(arg);
  const dds_instance_handle_t h = st.last_publication_handle;
  if (st.current_count_change < 0) {
    std::lock_guard lock(m->mu);
    m->connecting.erase(h);
    m->connected.erase(h);
    return;
  }
  if (st.current_count_change == 0) return;
  // Sync point "match-connected": Cyclone raises the match (reader_add_connection) before it
  // connects the writer's receive side to this reader (proxy_writer_add_connection) and before it
  // ends matching the writer with every local reader; until then it drops the writer's data
  // ("no readers" in a Cyclone trace), and the first heartbeat it accepts from a non-Cyclone
  // writer afterwards makes a volatile reader skip all that went before (sample 1 of a Fast DDS
  // writer that published as soon as it saw the match). Both run on this thread in one go (the
  // builtin delivery thread for a writer that appeared, the creating thread for a reader made
  // after the writer); once its virtual time moved on, as Cyclone's own garbage collector waits,
  // the writer is connected. Until then matched_writers() does not count it.
  const thread_state* self = lookup_thread_state();
  const MatchingThread where{self, ddsrt_atomic_ld32(&self->vtime)};
  const bool same =
      !m->tag.empty() && endpoint_has_tag(dds_get_matched_publication_data(reader, h), m->tag);
  std::lock_guard lock(m->mu);
  m->connecting[h] = where;
  m->connected.erase(h);
  if (!m->tag.empty()) m->same_tag[h] = same;
}

// True once the thread that raised a match went on from where it was (asleep, or later in time).
bool moved_on(const MatchingThread& w) {
  const vtime_t now = ddsrt_atomic_ld32(&w.thread->vtime);
  return vtime_asleep_p(now) || vtime_gt(now, w.vtime);
}

// Sync point "dds-wake": Cyclone's thread raises the owner's guard condition (on_data), which
// sits in the same WaitSet as the baton port, so one futex_waitv sleeps for shm and DDS.
void on_data_available(dds_entity_t, void* arg) {
  auto* m = static_cast<DdsRawReader::MatchState*>(arg);
  std::function<void()> fn;
  {
    std::lock_guard lock(m->mu);
    fn = m->on_data;
  }
  if (fn) fn();
}

}  // namespace

void recycle_sample_bytes(std::vector<uint8_t>&& bytes) { keep_sample_buffer(std::move(bytes)); }

// ---- DdsRawWriter -----------------------------------------------------------------------------
DdsRawWriter::DdsRawWriter() : match_(std::make_unique<MatchState>()) {}
DdsRawWriter::~DdsRawWriter() {
  if (writer_ > 0) dds_delete(writer_);
  if (topic_ > 0) dds_delete(topic_);
}
DdsRawWriter::DdsRawWriter(DdsRawWriter&& o) noexcept
    : topic_(std::exchange(o.topic_, 0)),
      writer_(std::exchange(o.writer_, 0)),
      sertype_(std::exchange(o.sertype_, nullptr)),
      match_(std::move(o.match_)) {}
DdsRawWriter& DdsRawWriter::operator=(DdsRawWriter&& o) noexcept {
  std::swap(match_, o.match_);
  std::swap(sertype_, o.sertype_);
  std::swap(topic_, o.topic_);
  std::swap(writer_, o.writer_);
  return *this;
}

Status<Err> DdsRawWriter::write(std::span<const uint8_t> cdr) {
  if (cdr.size() < 4 || cdr[0] != 0x00 || (cdr[1] != 0x01 && cdr[1] != 0x00))
    return unexpected(Err{WireError::Write, "sample lacks a CDR encapsulation header"});
  const auto* st = static_cast<const ddsi_sertype*>(sertype_);
  RawSample sample{cdr.data(), cdr.size()};
  ddsi_serdata* sd = ddsi_serdata_from_sample(st, SDK_DATA, &sample);
  if (sd == nullptr) return unexpected(Err{WireError::Write, "out of memory"});
  if (dds_return_t rc = dds_writecdr(writer_, sd); rc < 0)  // consumes sd
    return dds_fail(WireError::Write, "dds_writecdr", rc);
  return Ok{};
}

uint32_t DdsRawWriter::matched_readers() const {
  dds_publication_matched_status_t st{};
  if (dds_get_publication_matched_status(writer_, &st) < 0) return 0;
  return st.current_count;
}

uint32_t DdsRawWriter::matched_foreign_readers() {
  if (!match_ || match_->tag.empty()) return matched_readers();
  if (match_->dirty.exchange(false, std::memory_order_acq_rel)) {  // "wire-classify"
    uint32_t foreign = 0;
    for (dds_instance_handle_t h : matched_handles(writer_, dds_get_matched_subscriptions)) {
      dds_builtintopic_endpoint_t* ep = dds_get_matched_subscription_data(writer_, h);
      if (ep != nullptr && !endpoint_has_tag(ep, match_->tag)) ++foreign;
    }
    match_->foreign.store(foreign, std::memory_order_release);
  }
  return match_->foreign.load(std::memory_order_acquire);
}

std::vector<MatchedEndpoint> DdsRawWriter::matched_reader_endpoints() const {
  std::vector<MatchedEndpoint> out;
  for (dds_instance_handle_t h : matched_handles(writer_, dds_get_matched_subscriptions))
    if (auto ep = describe_endpoint(dds_get_matched_subscription_data(writer_, h)))
      out.push_back(std::move(*ep));
  return out;
}

Guid DdsRawWriter::guid() const { return guid_of(writer_); }

uint64_t DdsRawWriter::instance_handle() const {
  dds_instance_handle_t h = 0;
  return dds_get_instance_handle(writer_, &h) == DDS_RETCODE_OK ? h : 0;
}

// ---- DdsRawReader -----------------------------------------------------------------------------
DdsRawReader::DdsRawReader() : match_(std::make_unique<MatchState>()) {}
DdsRawReader::~DdsRawReader() {
  if (waitset_ > 0) dds_delete(waitset_);
  if (reader_ > 0) dds_delete(reader_);
  if (topic_ > 0) dds_delete(topic_);
}
DdsRawReader::DdsRawReader(DdsRawReader&& o) noexcept
    : topic_(std::exchange(o.topic_, 0)),
      reader_(std::exchange(o.reader_, 0)),
      waitset_(std::exchange(o.waitset_, 0)),
      readcond_(std::exchange(o.readcond_, 0)),
      match_(std::move(o.match_)) {}
DdsRawReader& DdsRawReader::operator=(DdsRawReader&& o) noexcept {
  std::swap(match_, o.match_);
  std::swap(readcond_, o.readcond_);
  std::swap(topic_, o.topic_);
  std::swap(reader_, o.reader_);
  std::swap(waitset_, o.waitset_);
  return *this;
}

std::optional<std::vector<uint8_t>> DdsRawReader::take(std::chrono::milliseconds timeout) {
  auto s = take_sample(timeout);
  if (!s) return std::nullopt;
  return std::move(s->cdr);
}

std::optional<DdsSample> DdsRawReader::take_sample(std::chrono::milliseconds timeout) {
  const dds_time_t deadline = dds_time() + DDS_MSECS(timeout.count());
  while (true) {
    ddsi_serdata* sd = nullptr;
    dds_sample_info_t info{};
    if (dds_takecdr(reader_, &sd, 1, &info, DDS_ANY_STATE) > 0) {
      std::optional<DdsSample> out;
      if (info.valid_data && from_same_tag_writer(info.publication_handle)) {
        match_->dropped.fetch_add(1, std::memory_order_relaxed);
      } else if (info.valid_data) {
        out = DdsSample{take_bytes(sd), info.publication_handle, info.source_timestamp};
      }
      ddsi_serdata_unref(sd);
      if (out) return out;
      continue;
    }
    const dds_time_t now = dds_time();
    if (now >= deadline) return std::nullopt;
    dds_waitset_wait(waitset_, nullptr, 0, deadline - now);
  }
}

bool DdsRawReader::from_same_tag_writer(uint64_t publication_handle) {
  if (!match_ || match_->tag.empty()) return false;
  {
    std::lock_guard lock(match_->mu);
    if (auto it = match_->same_tag.find(publication_handle); it != match_->same_tag.end())
      return it->second;
  }
  // Not seen by the listener (cannot happen for matches after creation; kept as a fallback).
  const bool same =
      endpoint_has_tag(dds_get_matched_publication_data(reader_, publication_handle), match_->tag);
  std::lock_guard lock(match_->mu);
  match_->same_tag[publication_handle] = same;
  return same;
}

uint64_t DdsRawReader::dropped_same_tag() const noexcept {
  return match_ ? match_->dropped.load(std::memory_order_relaxed) : 0;
}

bool DdsRawReader::has_data() const { return readcond_ > 0 && dds_triggered(readcond_) > 0; }

std::vector<uint64_t> DdsRawReader::connected_writers() const {
  std::vector<dds_instance_handle_t> handles =
      matched_handles(reader_, dds_get_matched_publications);
  // Taken after Cyclone's call, never around one: the listener takes it holding Cyclone's locks.
  std::lock_guard lock(match_->mu);
  std::erase_if(handles, [&](dds_instance_handle_t h) {
    if (match_->connected.contains(h)) return false;
    auto it = match_->connecting.find(h);
    if (it == match_->connecting.end()) return true;  // its listener call has not run yet
    if (!moved_on(it->second)) return true;           // "match-connected": not yet
    match_->connecting.erase(it);
    match_->connected.insert(h);
    return false;
  });
  return handles;
}

uint32_t DdsRawReader::matched_writers() const {
  return static_cast<uint32_t>(connected_writers().size());
}

uint32_t DdsRawReader::matched_foreign_writers() {
  uint32_t foreign = 0;
  for (uint64_t h : connected_writers())
    if (!from_same_tag_writer(h)) ++foreign;
  return foreign;
}

std::optional<MatchedEndpoint> DdsRawReader::matched_writer(uint64_t publication_handle) const {
  return describe_endpoint(dds_get_matched_publication_data(reader_, publication_handle));
}

std::vector<MatchedEndpoint> DdsRawReader::matched_writer_endpoints() const {
  std::vector<MatchedEndpoint> out;
  for (dds_instance_handle_t h : matched_handles(reader_, dds_get_matched_publications))
    if (auto ep = matched_writer(h)) out.push_back(std::move(*ep));
  return out;
}

Guid DdsRawReader::guid() const { return guid_of(reader_); }

void DdsRawReader::on_data_available(std::function<void()> fn) {
  std::lock_guard lock(match_->mu);
  match_->on_data = std::move(fn);
}

// ---- DdsParticipant ---------------------------------------------------------------------------
Result<DdsParticipant, Err> DdsParticipant::create(uint32_t domain_id, bool localhost_only,
                                                   std::string_view user_data) {
  DdsParticipant p;
  // Every program that makes a Cyclone domain links cyclone_type_lookup_guard.cpp, whose
  // TypeLookup reply handler replaces Cyclone's (a static library's object is linked only when
  // something refers to it).
  static_cast<void>(type_lookup_replies_dropped());
  {
    // One domain per domain id in this process, made with the wire's configuration
    // (dds_domain_config.cpp) and shared by every DdsParticipant on it.
    const char* trace = std::getenv("BATON_CYCLONEDDS_TRACE");  // debugging: Cyclone's trace
    const char* user_uri = std::getenv("CYCLONEDDS_URI");
    const std::string xml = cyclone_domain_config(localhost_only, trace != nullptr ? trace : "",
                                                  user_uri != nullptr ? user_uri : "");
    std::lock_guard lock(domains_mu());
    auto it = domains().find(domain_id);
    if (it != domains().end()) {
      ++it->second.refs;
      p.domain_ = static_cast<int32_t>(domain_id) + 1;
    } else if (dds_entity_t d = dds_create_domain(domain_id, xml.c_str()); d > 0) {
      domains()[domain_id] = DomainRef{d, 1};
      p.domain_ = static_cast<int32_t>(domain_id) + 1;
    }  // else someone else made this domain in this process (an implicit one): use it as it is
  }
  dds_qos_t* qos = dds_create_qos();
  if (!user_data.empty()) dds_qset_userdata(qos, user_data.data(), user_data.size());
  dds_entity_t part = dds_create_participant(domain_id, qos, nullptr);
  dds_delete_qos(qos);
  if (part < 0) return dds_fail(WireError::Participant, "dds_create_participant", part);
  p.participant_ = part;
  return p;
}

Guid DdsParticipant::guid() const { return guid_of(participant_); }

DdsParticipant::~DdsParticipant() {
  if (participant_ > 0) dds_delete(participant_);
  if (domain_ > 0) {
    // Deleting a domain deletes every participant in it: only the last user does.
    std::lock_guard lock(domains_mu());
    auto it = domains().find(static_cast<uint32_t>(domain_ - 1));
    if (it != domains().end() && --it->second.refs == 0) {
      dds_delete(it->second.handle);
      domains().erase(it);
    }
  }
}
DdsParticipant::DdsParticipant(DdsParticipant&& o) noexcept
    : participant_(std::exchange(o.participant_, 0)), domain_(std::exchange(o.domain_, 0)) {}
DdsParticipant& DdsParticipant::operator=(DdsParticipant&& o) noexcept {
  std::swap(participant_, o.participant_);
  std::swap(domain_, o.domain_);
  return *this;
}

Result<DdsRawWriter, Err> DdsParticipant::create_writer(const std::string& dds_topic,
                                                        const std::string& dds_type,
                                                        const WireQos& q) {
  dds_qos_t* qos = make_qos(q);
  DdsRawWriter w;
  w.topic_ = create_topic(participant_, dds_topic, dds_type, &w.sertype_);
  if (w.topic_ < 0) {
    dds_return_t rc = w.topic_;
    w.topic_ = 0;
    dds_delete_qos(qos);
    return dds_fail(WireError::Endpoint, "topic " + dds_topic + " (" + dds_type + ")", rc);
  }
  w.match_->tag = tag_of(q);
  dds_listener_t* listener = dds_create_listener(w.match_.get());
  dds_lset_publication_matched(listener, on_publication_matched);
  w.writer_ = dds_create_writer(participant_, w.topic_, qos, listener);
  dds_delete_listener(listener);
  dds_delete_qos(qos);
  if (w.writer_ < 0) {
    dds_return_t rc = w.writer_;
    w.writer_ = 0;
    return dds_fail(WireError::Endpoint, "writer on " + dds_topic, rc);
  }
  return w;
}

Result<DdsRawReader, Err> DdsParticipant::create_reader(const std::string& dds_topic,
                                                        const std::string& dds_type,
                                                        const WireQos& q) {
  dds_qos_t* qos = make_qos(q);
  DdsRawReader r;
  r.topic_ = create_topic(participant_, dds_topic, dds_type);
  if (r.topic_ < 0) {
    dds_return_t rc = r.topic_;
    r.topic_ = 0;
    dds_delete_qos(qos);
    return dds_fail(WireError::Endpoint, "topic " + dds_topic + " (" + dds_type + ")", rc);
  }
  r.match_->tag = tag_of(q);
  dds_listener_t* listener = dds_create_listener(r.match_.get());
  dds_lset_subscription_matched(listener, on_subscription_matched);
  dds_lset_data_available(listener, on_data_available);
  r.reader_ = dds_create_reader(participant_, r.topic_, qos, listener);
  dds_delete_listener(listener);
  dds_delete_qos(qos);
  if (r.reader_ < 0) {
    dds_return_t rc = r.reader_;
    r.reader_ = 0;
    return dds_fail(WireError::Endpoint, "reader on " + dds_topic, rc);
  }
  {
    // Writers matched inside dds_create_reader were connected on this thread before it returned
    // ("match-connected"); they count from now on (this thread's state may go to another thread
    // later, so its virtual time would say nothing about them).
    const thread_state* self = lookup_thread_state();
    std::lock_guard lock(r.match_->mu);
    std::erase_if(r.match_->connecting, [&](const auto& kv) {
      if (kv.second.thread != self) return false;
      r.match_->connected.insert(kv.first);
      return true;
    });
  }
  r.waitset_ = dds_create_waitset(participant_);
  r.readcond_ = dds_create_readcondition(r.reader_, DDS_ANY_STATE);
  dds_waitset_attach(r.waitset_, r.readcond_, 0);
  return r;
}

}  // namespace baton::ros2
