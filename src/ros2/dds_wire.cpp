// Raw-CDR DDS endpoints on CycloneDDS (see include/baton/ros2/dds_wire.hpp). A sertype whose
// serdata is just the CDR bytes: Cyclone sends and receives them untouched, so the encoding is
// baton's (cdr.hpp) and byte-identical to what other ROS 2 RMWs produce.
#include "baton/ros2/dds_wire.hpp"

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>
#include <dds/ddsi/q_radmin.h>

#include <cstdlib>
#include <cstring>
#include <new>

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
  // Cyclone may read up to alignup4(size) (ddsi_serdata_to_ser_t contract).
  d->bytes.assign((size + 3) & ~size_t{3}, 0);
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

void sd_free(ddsi_serdata* d) { delete raw(d); }

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

dds_qos_t* make_qos(const WireQos& q) {
  dds_qos_t* qos = dds_create_qos();
  dds_qset_reliability(qos, q.reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
                       DDS_SECS(1));
  dds_qset_durability(qos,
                      q.transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, static_cast<int32_t>(q.depth));
  dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
  dds_qset_data_representation(qos, 1, &xcdr1);
  return qos;
}

Unexpected<Err> dds_fail(WireError code, const std::string& what, dds_return_t rc) {
  return unexpected(Err{code, what + ": " + dds_strretcode(rc)});
}

int32_t create_topic(int32_t participant, const std::string& topic, const std::string& type,
                     const dds_qos_t* qos, const void** used_sertype = nullptr) {
  ddsi_sertype* st = new_sertype(type);
  // On success Cyclone owns `st` (and may swap it for an equal one it already has).
  dds_entity_t t = dds_create_topic_sertype(participant, topic.c_str(), &st, qos, nullptr, nullptr);
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

// ---- DdsRawWriter -----------------------------------------------------------------------------
DdsRawWriter::~DdsRawWriter() {
  if (writer_ > 0) dds_delete(writer_);
  if (topic_ > 0) dds_delete(topic_);
}
DdsRawWriter::DdsRawWriter(DdsRawWriter&& o) noexcept
    : topic_(std::exchange(o.topic_, 0)),
      writer_(std::exchange(o.writer_, 0)),
      sertype_(std::exchange(o.sertype_, nullptr)) {}
DdsRawWriter& DdsRawWriter::operator=(DdsRawWriter&& o) noexcept {
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

// ---- DdsRawReader -----------------------------------------------------------------------------
DdsRawReader::~DdsRawReader() {
  if (waitset_ > 0) dds_delete(waitset_);
  if (reader_ > 0) dds_delete(reader_);
  if (topic_ > 0) dds_delete(topic_);
}
DdsRawReader::DdsRawReader(DdsRawReader&& o) noexcept
    : topic_(std::exchange(o.topic_, 0)),
      reader_(std::exchange(o.reader_, 0)),
      waitset_(std::exchange(o.waitset_, 0)) {}
DdsRawReader& DdsRawReader::operator=(DdsRawReader&& o) noexcept {
  std::swap(topic_, o.topic_);
  std::swap(reader_, o.reader_);
  std::swap(waitset_, o.waitset_);
  return *this;
}

std::optional<std::vector<uint8_t>> DdsRawReader::take(std::chrono::milliseconds timeout) {
  const dds_time_t deadline = dds_time() + DDS_MSECS(timeout.count());
  while (true) {
    ddsi_serdata* sd = nullptr;
    dds_sample_info_t info{};
    if (dds_takecdr(reader_, &sd, 1, &info, DDS_ANY_STATE) > 0) {
      std::optional<std::vector<uint8_t>> out;
      if (info.valid_data) out = raw(sd)->bytes;
      ddsi_serdata_unref(sd);
      if (out) return out;
      continue;
    }
    const dds_time_t now = dds_time();
    if (now >= deadline) return std::nullopt;
    dds_waitset_wait(waitset_, nullptr, 0, deadline - now);
  }
}

// ---- DdsParticipant ---------------------------------------------------------------------------
Result<DdsParticipant, Err> DdsParticipant::create(uint32_t domain_id, bool localhost_only) {
  DdsParticipant p;
  if (localhost_only) {
    // No multicast; unicast discovery to the RTPS ports of participant indices 0..32 on
    // 127.0.0.1: what Fast DDS does for ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST. The interface
    // stays Cyclone's default: Fast DDS (Kilted) sends SPDP to 127.0.0.1 but advertises its
    // host address (e.g. 192.0.2.2) as unicast locator, which a lo-only Cyclone cannot reach
    // ("SPDP ... no unicast address" in a Cyclone trace).
    std::string xml =
        "<CycloneDDS><Domain id=\"any\"><General><AllowMulticast>false</AllowMulticast>"
        "</General><Discovery>"
        "<ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>32"
        "</MaxAutoParticipantIndex><Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery>";
    if (const char* trace = std::getenv("BATON_CYCLONEDDS_TRACE"))  // debugging discovery
      xml += std::string("<Tracing><Verbosity>finest</Verbosity><OutputFile>") + trace +
             "</OutputFile></Tracing>";
    xml += "</Domain></CycloneDDS>";
    dds_entity_t d = dds_create_domain(domain_id, xml.c_str());
    if (d > 0) p.domain_ = d;  // else the domain exists already in this process: reuse it
  }
  dds_entity_t part = dds_create_participant(domain_id, nullptr, nullptr);
  if (part < 0) return dds_fail(WireError::Participant, "dds_create_participant", part);
  p.participant_ = part;
  return p;
}

DdsParticipant::~DdsParticipant() {
  if (participant_ > 0) dds_delete(participant_);
  if (domain_ > 0) dds_delete(domain_);
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
  w.topic_ = create_topic(participant_, dds_topic, dds_type, qos, &w.sertype_);
  if (w.topic_ < 0) {
    dds_return_t rc = w.topic_;
    w.topic_ = 0;
    dds_delete_qos(qos);
    return dds_fail(WireError::Endpoint, "topic " + dds_topic + " (" + dds_type + ")", rc);
  }
  w.writer_ = dds_create_writer(participant_, w.topic_, qos, nullptr);
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
  r.topic_ = create_topic(participant_, dds_topic, dds_type, qos);
  if (r.topic_ < 0) {
    dds_return_t rc = r.topic_;
    r.topic_ = 0;
    dds_delete_qos(qos);
    return dds_fail(WireError::Endpoint, "topic " + dds_topic + " (" + dds_type + ")", rc);
  }
  r.reader_ = dds_create_reader(participant_, r.topic_, qos, nullptr);
  dds_delete_qos(qos);
  if (r.reader_ < 0) {
    dds_return_t rc = r.reader_;
    r.reader_ = 0;
    return dds_fail(WireError::Endpoint, "reader on " + dds_topic, rc);
  }
  r.waitset_ = dds_create_waitset(participant_);
  dds_entity_t cond = dds_create_readcondition(r.reader_, DDS_ANY_STATE);
  dds_waitset_attach(r.waitset_, cond, 0);
  return r;
}

}  // namespace baton::ros2
