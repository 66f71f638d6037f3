// The DDS side of the graph cache: see dds_graph_reader.hpp (private to the ros2 layer).
#include "dds_graph_reader.hpp"

#include <dds/dds.h>

#include <cstdio>
#include <cstring>

#include "baton/ros2/type_hash.hpp"

namespace baton::ros2 {
namespace {

using Err = Error<WireError>;
constexpr int32_t BATCH = 32;  // samples per dds_take

std::chrono::nanoseconds from_dds(dds_duration_t d) {
  return d == DDS_INFINITY ? std::chrono::nanoseconds::max() : std::chrono::nanoseconds(d);
}

Guid guid_from(const dds_guid_t& g) {
  Guid out{};
  std::memcpy(out.data(), g.v, out.size());
  return out;
}

std::string user_data_of(const dds_qos_t* qos) {
  void* value = nullptr;
  size_t size = 0;
  std::string out;
  if (qos != nullptr && dds_qget_userdata(qos, &value, &size) && value != nullptr)
    out.assign(static_cast<const char*>(value), size);
  dds_free(value);
  return out;
}

// The discovered QoS (WireQos of dds_wire.hpp; policies a peer did not send read as the DDS
// defaults Cyclone fills in, durations DDS_INFINITY as nanoseconds::max()).
WireQos wire_qos_from(const dds_qos_t* qos) {
  WireQos q;
  q.deadline = q.lifespan = q.liveliness_lease = std::chrono::nanoseconds::max();
  if (qos == nullptr) return q;
  dds_reliability_kind_t reliability{};
  dds_duration_t blocking = 0;
  if (dds_qget_reliability(qos, &reliability, &blocking))
    q.reliable = reliability == DDS_RELIABILITY_RELIABLE;
  dds_durability_kind_t durability{};
  if (dds_qget_durability(qos, &durability))
    q.transient_local = durability == DDS_DURABILITY_TRANSIENT_LOCAL;
  dds_history_kind_t history{};
  int32_t depth = 0;
  if (dds_qget_history(qos, &history, &depth)) {
    q.keep_all = history == DDS_HISTORY_KEEP_ALL;
    q.depth = depth > 0 ? static_cast<uint32_t>(depth) : 0;
  }
  dds_duration_t d = 0;
  if (dds_qget_deadline(qos, &d)) q.deadline = from_dds(d);
  if (dds_qget_lifespan(qos, &d)) q.lifespan = from_dds(d);
  dds_liveliness_kind_t liveliness{};
  if (dds_qget_liveliness(qos, &liveliness, &d)) {
    q.liveliness_manual_by_topic = liveliness == DDS_LIVELINESS_MANUAL_BY_TOPIC;
    q.liveliness_lease = from_dds(d);
  }
  q.user_data = user_data_of(qos);
  return q;
}

// Takes every pending sample of built-in reader `reader`, handing each to `fn(sample, info)`
// (sample null for a disposal / unregistration without data).
template <typename Sample, typename Fn>
void take_all(dds_entity_t reader, Fn&& fn) {
  while (true) {
    void* samples[BATCH] = {};
    dds_sample_info_t infos[BATCH];
    const int32_t n = dds_take(reader, samples, infos, BATCH, BATCH);
    if (n <= 0) return;
    for (int32_t i = 0; i < n; ++i)
      fn(infos[i].valid_data ? static_cast<const Sample*>(samples[i]) : nullptr, infos[i]);
    dds_return_loan(reader, samples, n);
    if (n < BATCH) return;
  }
}

}  // namespace

Result<std::unique_ptr<DdsGraphReader>, Err> DdsGraphReader::create(Participant& p) {
  // ros_discovery_info as rmw_cyclonedds_cpp reads it (reliable, transient local), but deep:
  // the topic has no key, so every participant's sample lands in one instance, and a keep-last-1
  // reader could lose one participant's sample to another's before refresh() takes it.
  WireQos qos;
  qos.reliable = true;
  qos.transient_local = true;
  qos.depth = 256;
  qos.user_data = "typehash=" + type_hash(p.discovery_info_type()) + ";";
  auto reader =
      p.dds().create_reader(DISCOVERY_INFO_TOPIC, p.discovery_info_type().dds_type_name(), qos);
  if (!reader) return unexpected(reader.error());
  std::unique_ptr<DdsGraphReader> out(
      new DdsGraphReader(p.discovery_info_type(), std::move(*reader)));
  const dds_entity_t participant = p.dds().participant_;
  struct Builtin {
    dds_entity_t topic;
    int32_t* reader;
    const char* name;
  };
  for (const Builtin& b :
       {Builtin{DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, &out->participants_, "DCPSParticipant"},
        Builtin{DDS_BUILTIN_TOPIC_DCPSPUBLICATION, &out->publications_, "DCPSPublication"},
        Builtin{DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, &out->subscriptions_, "DCPSSubscription"}}) {
    const dds_entity_t r = dds_create_reader(participant, b.topic, nullptr, nullptr);
    if (r < 0)
      return unexpected(Err{WireError::Endpoint, std::string("built-in reader on ") + b.name +
                                                     ": " + dds_strretcode(r)});
    *b.reader = r;
  }
  return out;
}

DdsGraphReader::~DdsGraphReader() {
  for (int32_t r : {participants_, publications_, subscriptions_})
    if (r > 0) dds_delete(r);
}

bool DdsGraphReader::refresh() {
  std::lock_guard lock(mu_);
  // Participants first: a participant's nodes are listed only once it is known.
  bool changed = take_participants();
  changed |= take_endpoints(publications_, /*writers=*/true);
  changed |= take_endpoints(subscriptions_, /*writers=*/false);
  changed |= take_discovery_info();
  if (changed) generation_.fetch_add(1, std::memory_order_release);
  return changed;
}

DdsGraph DdsGraphReader::snapshot(std::string_view local_tag) {
  refresh();
  std::lock_guard lock(mu_);
  return cache_.snapshot(local_tag);
}

bool DdsGraphReader::take_participants() {
  bool changed = false;
  take_all<dds_builtintopic_participant_t>(
      participants_, [&](const dds_builtintopic_participant_t* s, const dds_sample_info_t& info) {
        if (s != nullptr && info.instance_state == DDS_IST_ALIVE) {
          const Guid gid = guid_from(s->key);
          guid_of_instance_[info.instance_handle] = gid;
          changed |= cache_.add_participant(gid, user_data_of(s->qos));
        } else if (info.instance_state != DDS_IST_ALIVE) {
          if (auto it = guid_of_instance_.find(info.instance_handle);
              it != guid_of_instance_.end()) {
            changed |= cache_.remove_participant(it->second);
            guid_of_instance_.erase(it);
          }
        }
      });
  return changed;
}

bool DdsGraphReader::take_endpoints(int32_t reader, bool writers) {
  bool changed = false;
  take_all<dds_builtintopic_endpoint_t>(reader, [&](const dds_builtintopic_endpoint_t* s,
                                                    const dds_sample_info_t& info) {
    if (s != nullptr && info.instance_state == DDS_IST_ALIVE) {
      DiscoveredEndpoint e;
      e.guid = guid_from(s->key);
      e.participant = guid_from(s->participant_key);
      e.writer = writers;
      e.topic = s->topic_name != nullptr ? s->topic_name : "";
      e.type = s->type_name != nullptr ? s->type_name : "";
      e.qos = wire_qos_from(s->qos);
      guid_of_instance_[info.instance_handle] = e.guid;
      changed |= cache_.add_endpoint(std::move(e));
    } else if (info.instance_state != DDS_IST_ALIVE) {
      if (auto it = guid_of_instance_.find(info.instance_handle); it != guid_of_instance_.end()) {
        changed |= cache_.remove_endpoint(it->second);
        guid_of_instance_.erase(it);
      }
    }
  });
  return changed;
}

bool DdsGraphReader::take_discovery_info() {
  bool changed = false;
  while (auto sample = discovery_info_.take_sample(std::chrono::milliseconds(0))) {
    auto entities = decode_discovery_info(*type_, sample->cdr);
    if (!entities) {
      const uint64_t n = malformed_.fetch_add(1, std::memory_order_relaxed) + 1;
      if (n <= 10 || (n & (n - 1)) == 0)
        std::fprintf(stderr,
                     "[baton_ros2] %s: dropped a malformed %s sample (%zu bytes): %s: %s (%llu "
                     "dropped so far)\n",
                     DISCOVERY_INFO_TOPIC, DISCOVERY_INFO_TYPE, sample->cdr.size(),
                     std::string(to_string(entities.error().code)).c_str(),
                     entities.error().detail.c_str(), static_cast<unsigned long long>(n));
      continue;
    }
    changed |= cache_.update_participant_entities(std::move(*entities));
  }
  return changed;
}

}  // namespace baton::ros2
