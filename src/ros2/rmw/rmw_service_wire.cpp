// rmw_baton_cpp services and clients on the standard DDS wire: see rmw_service_wire.hpp.
#include "rmw_service_wire.hpp"

#include <rcutils/logging_macros.h>
#include <rcutils/time.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "rmw_impl.hpp"

#if BATON_HAVE_CYCLONEDDS
#include <atomic>
#include <cstdio>
#include <set>

#include "baton/ros2/request_header.hpp"
#include "baton/ros2/shm_peer_tag.hpp"
#include "baton/ros2/type_description.hpp"
#include "rmw_wire_internal.hpp"
#endif

namespace baton::ros2::rmw {

bool is_wire_request(const rmw_request_id_t& id) {
  uint8_t shm[RMW_GID_STORAGE_SIZE] = {};
  client_gid(client_id_of(id.writer_guid), shm);
  return std::memcmp(id.writer_guid + 8, shm + 8, 8) != 0;
}

#if BATON_HAVE_CYCLONEDDS

// One DDS reader and one DDS writer (service: rq reader + rr writer; client: rq writer + rr
// reader). Members in teardown order, last first: unlisted, then the endpoints, then the context.
struct RpcWire {
  RpcWire(std::shared_ptr<ContextWire> c, DdsRawReader r, DdsRawWriter w)
      : context(std::move(c)), reader(std::move(r)), writer(std::move(w)) {}
  std::shared_ptr<ContextWire> context;
  std::shared_ptr<baton::GuardCondition> ready =  // held by the reader's listener too
      std::make_shared<baton::GuardCondition>();
  DdsRawReader reader;
  DdsRawWriter writer;
  std::atomic<uint64_t> dropped{0};
  std::unique_ptr<DiscoveryListing> reader_listing, writer_listing;
};
struct ServiceWire : RpcWire {
  using RpcWire::RpcWire;
};
struct ClientWire : RpcWire {
  using RpcWire::RpcWire;
  uint64_t guid = 0;  // request header guid: the rq writer's instance handle (as rmw_cyclonedds)
};

namespace {

constexpr const char* LOGGER = "rmw_baton_cpp";

// rmw_cyclonedds_cpp's client / service id: the participant's GUID prefix + a per-context
// counter, as hex bytes joined by '.'. Only compared for equality (the two endpoints of one
// client or service carry the same), so the exact text is baton's.
std::string next_rpc_id(ContextWire& wire) {
  static std::atomic<uint32_t> counter{0};
  const Guid g = wire.participant->gid();
  const uint32_t n = counter.fetch_add(1) + 1;
  std::string out;
  char buf[4];
  for (size_t i = 0; i < 16; ++i) {
    const uint8_t b = i < 12 ? g[i] : static_cast<uint8_t>(n >> (8 * (15 - i)));
    std::snprintf(buf, sizeof buf, i == 0 ? "%02x" : ".%02x", b);
    out += buf;
  }
  return out;
}

std::string user_data_key(const std::string& user_data, const char* key) {
  const auto kv = parse_user_data(
      std::span(reinterpret_cast<const uint8_t*>(user_data.data()), user_data.size()));
  const auto it = kv.find(key);
  return it == kv.end() ? std::string() : it->second;
}

bool same_shm_domain(const MatchedEndpoint& ep, const std::string& tag) {
  return has_shm_tag(
      std::span(reinterpret_cast<const uint8_t*>(ep.user_data.data()), ep.user_data.size()), tag);
}

// A DDS sample dropped: counted, and logged for the first 10 and then every power of two.
void drop(RpcWire& w, const char* service, const std::string& why) {
  const uint64_t n = w.dropped.fetch_add(1) + 1;
  if (n <= 10 || (n & (n - 1)) == 0)
    RCUTILS_LOG_WARN_NAMED(LOGGER, "%s: dropped a DDS sample (%llu so far): %s", service,
                           static_cast<unsigned long long>(n), why.c_str());
}

// Opens the reader / writer pair of a service (`is_service`) or client and lists them.
template <typename Wire, typename Impl>
Result<std::shared_ptr<Wire>, std::string> open_rpc(const Impl& impl, const char* service,
                                                    bool is_service) {
  const auto& context = impl.node->context->wire;
  if (!context) return std::shared_ptr<Wire>();
  const rmw_qos_profile_t& qos = impl.qos.actual;
  const std::string request_topic = dds_topic_of(service, qos, "rq", "Request");
  const std::string reply_topic = dds_topic_of(service, qos, "rr", "Reply");
  const std::string request_type = dds_type_name(impl.type.name + "_Request");
  const std::string reply_type = dds_type_name(impl.type.name + "_Response");
  // The same serviceid / clientid in both endpoints' USER_DATA pairs them (see above).
  const std::string extra =
      std::string(is_service ? "serviceid=" : "clientid=") + next_rpc_id(*context) + ";";
  const WireQos request_qos = wire_qos_of(qos, impl.type.request_hash, extra);
  const WireQos reply_qos = wire_qos_of(qos, impl.type.response_hash, extra);
  DdsParticipant& dds = context->participant->dds();
  auto r = is_service ? dds.create_reader(request_topic, request_type, request_qos)
                      : dds.create_reader(reply_topic, reply_type, reply_qos);
  if (!r) return unexpected("DDS reader for '" + std::string(service) + "': " + r.error().detail);
  auto w = is_service ? dds.create_writer(reply_topic, reply_type, reply_qos)
                      : dds.create_writer(request_topic, request_type, request_qos);
  if (!w) return unexpected("DDS writer for '" + std::string(service) + "': " + w.error().detail);
  auto out = std::make_shared<Wire>(context, std::move(*r), std::move(*w));
  out->reader.on_data_available([g = out->ready] { g->trigger(); });
  auto rl = list_endpoint(*context, *impl.node, out->reader.guid(), /*reader=*/true);
  if (!rl) return unexpected(rl.error());
  out->reader_listing = std::move(*rl);
  auto wl = list_endpoint(*context, *impl.node, out->writer.guid(), /*reader=*/false);
  if (!wl) return unexpected(wl.error());
  out->writer_listing = std::move(*wl);
  return out;
}

// The CDR of `ros_message` framed with `header`, or the error text.
Result<std::vector<uint8_t>, std::string> encode_framed(const MessageMembers& members,
                                                        const void* ros_message,
                                                        const RequestHeader& header) {
  auto size = introspection_encoded_size(members, ros_message);
  if (!size) return unexpected(size.error().detail);
  std::vector<uint8_t> cdr(*size);
  auto used = introspection_encode(members, ros_message, cdr);
  if (!used) return unexpected(used.error().detail);
  cdr.resize(*used);
  return frame_request(header, cdr);
}

// Writes `ros_message` framed with `header` on `w`'s writer (errors set for `function`).
rmw_ret_t write_framed(RpcWire& w, const MessageMembers& members, const void* ros_message,
                       const RequestHeader& header, const char* function) {
  auto framed = encode_framed(members, ros_message, header);
  if (!framed) {
    set_error(function, framed.error());
    return RMW_RET_ERROR;
  }
  if (auto st = w.writer.write(*framed); !st) {
    set_error(function, "DDS write: " + st.error().detail);
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

// Takes DDS samples until one passes `check(sample)` (which returns why not), unframes, passes
// `accept(header)` and decodes into `ros_message`; the others are dropped (`accept` false:
// silently, else with a warning). `fill` gets the header and the sample of the one taken.
template <typename Check, typename Accept, typename Fill>
rmw_ret_t take_framed(RpcWire& w, const char* service, const MessageMembers& members,
                      void* ros_message, bool* taken, Check check, Accept accept, Fill fill) {
  *taken = false;
  while (auto sample = w.reader.take_sample(std::chrono::milliseconds(0))) {
    if (const std::string why = check(*sample); !why.empty()) {
      drop(w, service, why);
      continue;
    }
    auto unframed = unframe_request(sample->cdr);
    if (!unframed) {
      drop(w, service, unframed.error());
      continue;
    }
    if (!accept(unframed->header)) continue;
    if (auto st = introspection_decode(members, unframed->cdr, ros_message); !st) {
      drop(w, service, st.error().detail);
      continue;
    }
    fill(unframed->header, *sample);
    *taken = true;
    return RMW_RET_OK;
  }
  return RMW_RET_OK;
}

void fill_service_info(rmw_service_info_t* info, const uint8_t* writer_guid, int64_t sequence,
                       int64_t source_timestamp) {
  if (info == nullptr) return;
  rcutils_time_point_value_t now = 0;
  (void)rcutils_system_time_now(&now);
  info->source_timestamp = source_timestamp;
  info->received_timestamp = now;
  std::memcpy(info->request_id.writer_guid, writer_guid, sizeof info->request_id.writer_guid);
  info->request_id.sequence_number = sequence;
}

// rmw_cyclonedds_cpp's check_for_response_reader: whether the reply writer has matched the reader
// of the client whose request writer is `publication_handle`. nullopt: that writer is gone.
// Why a request from this writer cannot be served ("" if it can): a client that does not pair
// its endpoints with "clientid=" (rmw_cyclonedds_cpp's USER_DATA key) does not frame its requests
// with the {guid, sequence} header either. rmw_fastrtps_cpp (RTPS vendor 01.0f in the GUID)
// correlates by the RTPS sample identity instead, which CycloneDDS 0.10 can neither read nor
// echo: serving the bytes as if they had the header would run a garbage request.
std::string unservable_requester(const RpcWire& w, uint64_t publication_handle) {
  const auto requester = w.reader.matched_writer(publication_handle);
  if (!requester || !user_data_key(requester->user_data, "clientid").empty()) return {};
  const bool fast_dds = requester->guid[0] == 0x01 && requester->guid[1] == 0x0f;
  return "request from DDS writer " + hex(requester->guid) +
         (fast_dds ? " (eProsima Fast DDS: rmw_fastrtps_cpp correlates requests by RTPS sample "
                     "identity, which baton's CycloneDDS cannot read or echo)"
                   : " without clientid= in its USER_DATA (not rmw_cyclonedds_cpp's request "
                     "header convention)") +
         ": not served";
}

std::optional<bool> client_reader_matched(RpcWire& w, uint64_t publication_handle) {
  const auto requester = w.reader.matched_writer(publication_handle);
  if (!requester) return std::nullopt;
  const std::string clientid = user_data_key(requester->user_data, "clientid");
  if (clientid.empty()) return true;  // a client without an id: nothing to wait for
  for (const auto& ep : w.writer.matched_reader_endpoints())
    if (user_data_key(ep.user_data, "clientid") == clientid) return true;
  return false;
}

}  // namespace

Result<std::shared_ptr<ServiceWire>, std::string> open_service_wire(const ServiceImpl& s,
                                                                    const char* service_name) {
  return open_rpc<ServiceWire>(s, service_name, /*is_service=*/true);
}

Result<std::shared_ptr<ClientWire>, std::string> open_client_wire(const ClientImpl& c,
                                                                  const char* service_name) {
  auto w = open_rpc<ClientWire>(c, service_name, /*is_service=*/false);
  if (w && *w) (*w)->guid = (*w)->writer.instance_handle();
  return w;
}

rmw_ret_t wire_take_request(ServiceImpl& s, rmw_service_info_t* info, void* ros_request,
                            bool* taken) {
  *taken = false;
  if (!s.wire) return RMW_RET_OK;
  const char* name = s.name.c_str();
  RpcWire& w = *s.wire;
  return take_framed(
      w, name, *s.type.request, ros_request, taken,
      [&w](const DdsSample& sample) { return unservable_requester(w, sample.publication_handle); },
      [](const RequestHeader&) { return true; },
      [&](const RequestHeader& h, const DdsSample& sample) {
        uint8_t id[RMW_GID_STORAGE_SIZE];
        std::memcpy(id, &h.guid, 8);
        std::memcpy(id + 8, &sample.publication_handle, 8);
        fill_service_info(info, id, h.sequence, sample.source_timestamp_ns);
      });
}

rmw_ret_t wire_send_response(ServiceImpl& s, const rmw_request_id_t& id, const void* ros_response) {
  if (!s.wire) {
    set_error("rmw_send_response", "a DDS request id, but the service has no DDS wire");
    return RMW_RET_ERROR;
  }
  RequestHeader header;
  std::memcpy(&header.guid, id.writer_guid, 8);
  header.sequence = id.sequence_number;
  uint64_t requester = 0;
  std::memcpy(&requester, id.writer_guid + 8, 8);
  // A reply to a client whose reply reader this writer has not matched yet would be lost.
  std::optional<bool> matched;
  for (int i = 0; i < 10 && (matched = client_reader_matched(*s.wire, requester)) == false; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!matched) return RMW_RET_OK;  // the client is gone: as DDS, the reply is lost
  return write_framed(*s.wire, *s.type.response, ros_response, header, "rmw_send_response");
}

bool wire_server_available(ClientWire* w) {
  if (w == nullptr) return false;
  // A server is its rq reader + rr writer with one serviceid (rmw_cyclonedds_cpp's
  // check_for_service_reader_writer). Endpoints without one (rmw_fastrtps_cpp's) do not read the
  // request header: they are no server for this client, which never sends them a request.
  const std::string tag = local_shm_tag();
  std::set<std::string> readers;
  for (const auto& ep : w->writer.matched_reader_endpoints())
    if (!same_shm_domain(ep, tag)) readers.insert(user_data_key(ep.user_data, "serviceid"));
  readers.erase("");
  if (readers.empty()) return false;
  for (const auto& ep : w->reader.matched_writer_endpoints())
    if (!same_shm_domain(ep, tag) && readers.count(user_data_key(ep.user_data, "serviceid")) != 0)
      return true;
  return false;
}

rmw_ret_t wire_send_request(ClientImpl& c, const void* ros_request, int64_t sequence) {
  return write_framed(*c.wire, *c.type.request, ros_request, RequestHeader{c.wire->guid, sequence},
                      "rmw_send_request");
}

rmw_ret_t wire_take_response(ClientImpl& c, rmw_service_info_t* info, void* ros_response,
                             bool* taken) {
  *taken = false;
  if (!c.wire) return RMW_RET_OK;
  const uint64_t guid = c.wire->guid;
  return take_framed(
      *c.wire, c.name.c_str(), *c.type.response, ros_response, taken,
      [](const DdsSample&) { return std::string(); },
      [guid](const RequestHeader& h) { return h.guid == guid; },
      [&](const RequestHeader& h, const DdsSample& sample) {
        fill_service_info(info, c.gid.data, h.sequence, sample.source_timestamp_ns);
      });
}

uint64_t wire_dropped(const ServiceWire* w) { return w != nullptr ? w->dropped.load() : 0; }
uint64_t wire_dropped(const ClientWire* w) { return w != nullptr ? w->dropped.load() : 0; }

namespace {
std::shared_ptr<baton::GuardCondition> rpc_wait_guard(RpcWire* w) {
  if (w == nullptr) return nullptr;
  if (w->reader.has_data()) w->ready->trigger();
  return w->ready;
}
}  // namespace

std::shared_ptr<baton::GuardCondition> wire_wait_guard(ServiceWire* w) { return rpc_wait_guard(w); }
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ClientWire* w) { return rpc_wait_guard(w); }
bool wire_has_data(ServiceWire* w) { return w != nullptr && w->reader.has_data(); }
bool wire_has_data(ClientWire* w) { return w != nullptr && w->reader.has_data(); }

#else  // built without CycloneDDS: the wire is always off

struct ServiceWire {};
struct ClientWire {};

Result<std::shared_ptr<ServiceWire>, std::string> open_service_wire(const ServiceImpl&,
                                                                    const char*) {
  return std::shared_ptr<ServiceWire>();
}
Result<std::shared_ptr<ClientWire>, std::string> open_client_wire(const ClientImpl&, const char*) {
  return std::shared_ptr<ClientWire>();
}
rmw_ret_t wire_take_request(ServiceImpl&, rmw_service_info_t*, void*, bool* taken) {
  *taken = false;
  return RMW_RET_OK;
}
rmw_ret_t wire_send_response(ServiceImpl&, const rmw_request_id_t&, const void*) {
  set_error("rmw_send_response", "a DDS request id, but this build has no DDS wire");
  return RMW_RET_ERROR;
}
bool wire_server_available(ClientWire*) { return false; }
rmw_ret_t wire_send_request(ClientImpl&, const void*, int64_t) { return RMW_RET_ERROR; }
rmw_ret_t wire_take_response(ClientImpl&, rmw_service_info_t*, void*, bool* taken) {
  *taken = false;
  return RMW_RET_OK;
}
uint64_t wire_dropped(const ServiceWire*) { return 0; }
uint64_t wire_dropped(const ClientWire*) { return 0; }
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ServiceWire*) { return nullptr; }
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ClientWire*) { return nullptr; }
bool wire_has_data(ServiceWire*) { return false; }
bool wire_has_data(ClientWire*) { return false; }

#endif

}  // namespace baton::ros2::rmw
