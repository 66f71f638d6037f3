// The DDS side of a ROS 2 service or client: see rpc_wire.hpp.
#include "rpc_wire.hpp"

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "baton/ros2/type_description.hpp"
#include "baton/shm/domain_tag.hpp"
#include "shm_peer_tag.hpp"

namespace baton::ros2::detail {
namespace {

std::string hex_guid(const Guid& g) {
  static constexpr char HEX[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : g) {
    out += HEX[b >> 4];
    out += HEX[b & 15];
  }
  return out;
}

// rmw_cyclonedds_cpp's client / service id: the participant's GUID prefix + a per-process
// counter, as hex bytes joined by '.'. Only compared for equality (the two endpoints of one
// client or service carry the same), so the exact text is baton's.
std::string next_rpc_id(const Guid& participant) {
  static std::atomic<uint32_t> counter{0};
  const uint32_t n = counter.fetch_add(1) + 1;
  std::string out;
  char buf[4];
  for (size_t i = 0; i < 16; ++i) {
    const uint8_t b = i < 12 ? participant[i] : static_cast<uint8_t>(n >> (8 * (15 - i)));
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

}  // namespace

Result<std::unique_ptr<RpcWire>, std::string> RpcWire::open(Participant& participant, Role role,
                                                            RpcWireSpec spec, LogSink log) {
  const bool service = role == Role::Service;
  // The same serviceid / clientid in both endpoints' USER_DATA pairs them.
  const std::string id =
      std::string(service ? "serviceid=" : "clientid=") + next_rpc_id(participant.gid()) + ";";
  spec.request_qos.user_data += id;
  spec.reply_qos.user_data += id;
  const std::string request_type = dds_type_name(spec.service_type + "_Request");
  const std::string reply_type = dds_type_name(spec.service_type + "_Response");
  DdsParticipant& dds = participant.dds();
  auto r = service ? dds.create_reader(spec.request_topic, request_type, spec.request_qos)
                   : dds.create_reader(spec.reply_topic, reply_type, spec.reply_qos);
  if (!r) return unexpected("DDS reader for '" + spec.service + "': " + r.error().detail);
  auto w = service ? dds.create_writer(spec.reply_topic, reply_type, spec.reply_qos)
                   : dds.create_writer(spec.request_topic, request_type, spec.request_qos);
  if (!w) return unexpected("DDS writer for '" + spec.service + "': " + w.error().detail);
  const std::string ns = spec.node_namespace, name = spec.node_name;
  std::unique_ptr<RpcWire> out(
      new RpcWire(role, std::move(spec), std::move(log), std::move(*r), std::move(*w)));
  if (!service) out->client_guid_ = out->writer_.instance_handle();
  out->reader_.on_data_available([g = out->ready_] { g->trigger(); });
  auto rl = DiscoveryListing::create(participant, ns, name, out->reader_.guid(), /*reader=*/true);
  if (!rl) return unexpected("ros_discovery_info: " + rl.error().detail);
  out->reader_listing_ = std::move(*rl);
  auto wl = DiscoveryListing::create(participant, ns, name, out->writer_.guid(), /*reader=*/false);
  if (!wl) return unexpected("ros_discovery_info: " + wl.error().detail);
  out->writer_listing_ = std::move(*wl);
  return out;
}

RpcWire::~RpcWire() {
  // Unlisted first, then the endpoints (the reader's listener holds its own guard reference).
  writer_listing_.reset();
  reader_listing_.reset();
}

void RpcWire::drop(const std::string& why) {
  const uint64_t n = dropped_.fetch_add(1) + 1;
  if (log_ && (n <= 10 || (n & (n - 1)) == 0))
    log_(spec_.service + ": dropped a DDS sample (" + std::to_string(n) + " so far): " + why);
}

Status<std::string> RpcWire::write_framed(std::span<const uint8_t> cdr,
                                          const RequestHeader& header) {
  auto framed = frame_request(header, cdr);
  if (!framed) return unexpected(framed.error());
  if (auto st = writer_.write(*framed); !st) return unexpected("DDS write: " + st.error().detail);
  return Ok{};
}

// Why a request from this writer cannot be served ("" if it can): a client that does not pair
// its endpoints with "clientid=" (rmw_cyclonedds_cpp's USER_DATA key) does not frame its requests
// with the {guid, sequence} header either. rmw_fastrtps_cpp (RTPS vendor 01.0f in the GUID)
// correlates by the RTPS sample identity instead, which CycloneDDS 0.10 can neither read nor
// echo: serving the bytes as if they had the header would run a garbage request.
std::string RpcWire::unservable_requester(uint64_t publication_handle) const {
  const auto requester = reader_.matched_writer(publication_handle);
  if (!requester || !user_data_key(requester->user_data, "clientid").empty()) return {};
  const bool fast_dds = requester->guid[0] == 0x01 && requester->guid[1] == 0x0f;
  return "request from DDS writer " + hex_guid(requester->guid) +
         (fast_dds ? " (eProsima Fast DDS: rmw_fastrtps_cpp correlates requests by RTPS sample "
                     "identity, which baton's CycloneDDS cannot read or echo)"
                   : " without clientid= in its USER_DATA (not rmw_cyclonedds_cpp's request "
                     "header convention)") +
         ": not served";
}

std::optional<RpcTaken> RpcWire::take(
    const std::function<std::string(std::span<const uint8_t>)>& decode) {
  while (auto sample = reader_.take_sample(std::chrono::milliseconds(0))) {
    if (role_ == Role::Service) {
      if (const std::string why = unservable_requester(sample->publication_handle); !why.empty()) {
        drop(why);
        continue;
      }
    }
    auto unframed = unframe_request(sample->cdr);
    if (!unframed) {
      drop(unframed.error());
      continue;
    }
    if (role_ == Role::Client && unframed->header.guid != client_guid_)
      continue;  // another client's reply: not ours, not wrong
    if (const std::string why = decode(unframed->cdr); !why.empty()) {
      drop(why);
      continue;
    }
    return RpcTaken{unframed->header, sample->publication_handle, sample->source_timestamp_ns};
  }
  return std::nullopt;
}

bool RpcWire::server_available() const {
  // A server is its rq reader + rr writer with one serviceid (rmw_cyclonedds_cpp's
  // check_for_service_reader_writer). Endpoints without one (rmw_fastrtps_cpp's) do not read the
  // request header: they are no server for this client, which never sends them a request.
  const std::string tag = shm::domain_tag();
  std::set<std::string> readers;
  for (const auto& ep : writer_.matched_reader_endpoints())
    if (!same_shm_domain(ep, tag)) readers.insert(user_data_key(ep.user_data, "serviceid"));
  readers.erase("");
  if (readers.empty()) return false;
  for (const auto& ep : reader_.matched_writer_endpoints())
    if (!same_shm_domain(ep, tag) && readers.count(user_data_key(ep.user_data, "serviceid")) != 0)
      return true;
  return false;
}

// rmw_cyclonedds_cpp's check_for_response_reader: whether the reply writer has matched the reader
// of the client whose request writer is `publication_handle`. nullopt: that writer is gone.
std::optional<bool> RpcWire::client_reader_matched(uint64_t publication_handle) const {
  const auto requester = reader_.matched_writer(publication_handle);
  if (!requester) return std::nullopt;
  const std::string clientid = user_data_key(requester->user_data, "clientid");
  if (clientid.empty()) return true;  // a client without an id: nothing to wait for
  for (const auto& ep : writer_.matched_reader_endpoints())
    if (user_data_key(ep.user_data, "clientid") == clientid) return true;
  return false;
}

bool RpcWire::wait_for_reply_reader(uint64_t publication_handle) {
  std::optional<bool> matched;
  for (int i = 0; i < 10 && (matched = client_reader_matched(publication_handle)) == false; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return matched.has_value();
}

std::shared_ptr<GuardCondition> RpcWire::wait_guard() {
  // The guard is a flag: samples still queued after a take are seen here, not through it.
  if (reader_.has_data()) ready_->trigger();
  return ready_;
}

}  // namespace baton::ros2::detail
