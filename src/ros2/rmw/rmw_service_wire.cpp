// rmw_baton_cpp services and clients on the standard DDS wire: see rmw_service_wire.hpp.
#include "rmw_service_wire.hpp"

#include <rcutils/logging_macros.h>
#include <rcutils/time.h>

#include <cstring>
#include <vector>

#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "rmw_impl.hpp"

#if BATON_HAVE_CYCLONEDDS
#include "../rpc_wire.hpp"
#include "rmw_wire_internal.hpp"
#endif

namespace baton::ros2::rmw {

bool is_wire_request(const rmw_request_id_t& id) {
  uint8_t shm[RMW_GID_STORAGE_SIZE] = {};
  client_gid(client_id_of(id.writer_guid), shm);
  return std::memcmp(id.writer_guid + 8, shm + 8, 8) != 0;
}

#if BATON_HAVE_CYCLONEDDS

// The service's / client's two DDS endpoints (detail::RpcWire, shared with the native
// Service / Client). Members in teardown order, last first: the endpoints, then the
// context that owns the participant.
struct ServiceWire {
  std::shared_ptr<ContextWire> context;
  std::unique_ptr<detail::RpcWire> rpc;
};
struct ClientWire {
  std::shared_ptr<ContextWire> context;
  std::unique_ptr<detail::RpcWire> rpc;
};

namespace {

// Opens the reader / writer pair of a service or client (`role`) of `impl`.
template <typename Wire, typename Impl>
Result<std::shared_ptr<Wire>, std::string> open_rpc(const Impl& impl, const char* service,
                                                    detail::RpcWire::Role role) {
  const auto& context = impl.node->context->wire;
  if (!context) return std::shared_ptr<Wire>();
  const rmw_qos_profile_t& qos = impl.qos.actual;
  detail::RpcWireSpec spec{service,
                           dds_topic_of(service, qos, "rq", "Request"),
                           dds_topic_of(service, qos, "rr", "Reply"),
                           impl.type.name,
                           wire_qos_of(qos, impl.type.request_hash),
                           wire_qos_of(qos, impl.type.response_hash),
                           impl.node->node->get_namespace(),
                           impl.node->node->name()};
  auto rpc = detail::RpcWire::open(
      *context->participant, role, std::move(spec),
      [](const std::string& line) { RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "%s", line.c_str()); });
  if (!rpc) return unexpected(rpc.error());
  return std::make_shared<Wire>(Wire{context, std::move(*rpc)});
}

// Writes `ros_message` framed with `header` (errors set for `function`).
rmw_ret_t write_framed(detail::RpcWire& w, const IntrospectionType& members,
                       const void* ros_message, const RequestHeader& header, const char* function) {
  auto size = introspection_encoded_size(members, ros_message);
  if (!size) {
    set_error(function, size.error().detail);
    return RMW_RET_ERROR;
  }
  std::vector<uint8_t> cdr(*size);
  auto used = introspection_encode(members, ros_message, cdr);
  if (!used) {
    set_error(function, used.error().detail);
    return RMW_RET_ERROR;
  }
  if (auto st = w.write_framed(std::span(cdr).first(*used), header); !st) {
    set_error(function, st.error());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

// Takes the next acceptable DDS sample of `w` decoded into `ros_message` (see RpcWire::take).
std::optional<detail::RpcTaken> take_decoded(detail::RpcWire& w, const IntrospectionType& members,
                                             void* ros_message) {
  return w.take([&](std::span<const uint8_t> cdr) {
    auto st = introspection_decode(members, cdr, ros_message);
    return st ? std::string() : st.error().detail;
  });
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

}  // namespace

Result<std::shared_ptr<ServiceWire>, std::string> open_service_wire(const ServiceImpl& s,
                                                                    const char* service_name) {
  return open_rpc<ServiceWire>(s, service_name, detail::RpcWire::Role::Service);
}

Result<std::shared_ptr<ClientWire>, std::string> open_client_wire(const ClientImpl& c,
                                                                  const char* service_name) {
  return open_rpc<ClientWire>(c, service_name, detail::RpcWire::Role::Client);
}

rmw_ret_t wire_take_request(ServiceImpl& s, rmw_service_info_t* info, void* ros_request,
                            bool* taken) {
  *taken = false;
  if (!s.wire) return RMW_RET_OK;
  auto t = take_decoded(*s.wire->rpc, s.type.request, ros_request);
  if (!t) return RMW_RET_OK;
  uint8_t id[RMW_GID_STORAGE_SIZE];
  std::memcpy(id, &t->header.guid, 8);
  std::memcpy(id + 8, &t->publication_handle, 8);
  fill_service_info(info, id, t->header.sequence, t->source_timestamp_ns);
  *taken = true;
  return RMW_RET_OK;
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
  // A reply to a client that is gone is lost, as on DDS.
  if (!s.wire->rpc->wait_for_reply_reader(requester)) return RMW_RET_OK;
  return write_framed(*s.wire->rpc, s.type.response, ros_response, header, "rmw_send_response");
}

bool wire_server_available(ClientWire* w) { return w != nullptr && w->rpc->server_available(); }

rmw_ret_t wire_send_request(ClientImpl& c, const void* ros_request, int64_t sequence) {
  return write_framed(*c.wire->rpc, c.type.request, ros_request,
                      RequestHeader{c.wire->rpc->client_guid(), sequence}, "rmw_send_request");
}

rmw_ret_t wire_take_response(ClientImpl& c, rmw_service_info_t* info, void* ros_response,
                             bool* taken) {
  *taken = false;
  if (!c.wire) return RMW_RET_OK;
  auto t = take_decoded(*c.wire->rpc, c.type.response, ros_response);
  if (!t) return RMW_RET_OK;
  fill_service_info(info, c.gid.data, t->header.sequence, t->source_timestamp_ns);
  *taken = true;
  return RMW_RET_OK;
}

uint64_t wire_dropped(const ServiceWire* w) { return w != nullptr ? w->rpc->dropped() : 0; }
uint64_t wire_dropped(const ClientWire* w) { return w != nullptr ? w->rpc->dropped() : 0; }

std::shared_ptr<baton::GuardCondition> wire_wait_guard(ServiceWire* w) {
  return w != nullptr ? w->rpc->wait_guard() : nullptr;
}
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ClientWire* w) {
  return w != nullptr ? w->rpc->wait_guard() : nullptr;
}
bool wire_has_data(ServiceWire* w) { return w != nullptr && w->rpc->has_data(); }
bool wire_has_data(ClientWire* w) { return w != nullptr && w->rpc->has_data(); }

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
