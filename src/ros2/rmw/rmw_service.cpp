// rmw_baton_cpp: services and clients over baton topics, with the framing baton's own services use
// (baton/api/detail/service_wire.hpp) and a CDR payload:
//
//   request  on "<service>/_request":              [ServiceMessageHeader (32 B)][CDR request]
//   response on "<service>/_response/<client id>":  [ServiceMessageHeader (32 B)][CDR response]
//
// The header carries the client id and the request's sequence number; the service echoes both.
// A client subscribes to its own response topic before it sends anything, so a response reaches
// only the client that asked. The request id rcl sees is {writer_guid = client gid (gid.hpp),
// sequence_number}. Everything read from shared memory is checked; a malformed request or a
// response that is not ours is dropped (with a warning when it does not decode).
#include <rcutils/logging_macros.h>
#include <rcutils/time.h>
#include <rmw/rmw.h>

#include <cstring>
#include <new>

#include "../rpc_shm.hpp"
#include "baton/api/client_base.hpp"
#include "baton/api/detail/service_wire.hpp"
#include "endpoint.hpp"
#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users
using baton::detail::ServiceMessageHeader;

namespace {

Checked<ServiceImpl> service_impl(const rmw_service_t* service, const char* function) {
  return checked_impl<ServiceImpl>(service, function, "service");
}

Checked<ClientImpl> client_impl(const rmw_client_t* client, const char* function) {
  return checked_impl<ClientImpl>(client, function, "client");
}

// The *_get_actual_qos answer of a checked service or client: one QoS for both directions.
template <typename Impl>
rmw_ret_t actual_qos(const Checked<Impl>& endpoint, rmw_qos_profile_t* qos) {
  if (!endpoint) return endpoint.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = qos_in_effect(endpoint->qos.actual);
  return RMW_RET_OK;
}

// Encodes [header][CDR of ros_message] into a loan of `publisher` and publishes it.
rmw_ret_t send_framed(baton::RawPublisher& publisher, const IntrospectionType& members,
                      const void* ros_message, uint64_t client_id, int64_t sequence,
                      const char* function) {
  auto size = introspection_encoded_size(members, ros_message);
  if (!size) {
    set_error(function, size.error().detail);
    return RMW_RET_ERROR;
  }
  auto st = baton::ros2::detail::publish_shm_framed(
      publisher, client_id, sequence, *size,
      [&](std::span<uint8_t> out) -> baton::Result<uint64_t, std::string> {
        auto used = introspection_encode(members, ros_message, out);
        if (!used) return baton::unexpected(used.error().detail);
        return *used;
      });
  if (!st) {
    set_error(function, st.error());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

// Takes framed samples from `queue` until one passes `accept(header)` and decodes into
// `ros_message`; the others are dropped. Fills `info` from the header of the one taken.
template <typename Accept>
rmw_ret_t take_framed(baton::RawSubscription& queue, const IntrospectionType& members,
                      void* ros_message, rmw_service_info_t* info, bool* taken, Accept accept,
                      const char* what) {
  auto t = baton::ros2::detail::take_shm_framed(
      queue, accept,
      [&](std::span<const uint8_t> cdr) {
        auto st = introspection_decode(members, cdr, ros_message);
        return st ? std::string() : st.error().detail;
      },
      [what](const std::string& why) {
        RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "dropped a %s: %s", what, why.c_str());
      });
  *taken = t.has_value();
  if (t && info != nullptr) {
    rcutils_time_point_value_t now = 0;
    (void)rcutils_system_time_now(&now);
    info->source_timestamp = t->source_timestamp_ns;
    info->received_timestamp = now;
    client_gid(t->header.client_id, info->request_id.writer_guid);
    info->request_id.sequence_number = static_cast<int64_t>(t->header.sequence);
  }
  return RMW_RET_OK;
}

// wire: opens the DDS endpoints of a service / client (`open`: open_service_wire or
// open_client_wire); false with the error set.
template <typename Impl, typename Open>
bool open_wire(Impl& impl, const char* service_name, Open open, const char* function) {
  impl.name = service_name;
  auto wire = open(impl, service_name);
  if (!wire) {
    set_error(function, wire.error());
    return false;
  }
  impl.wire = std::move(*wire);
  return true;
}

// Lists a service or client as alive on `node`, with what to do should it outlive the node
// (NodeImpl::Leakable).
void track_leakable(NodeImpl& node, const void* endpoint, std::function<void()> leave_graph,
                    std::function<void()> release) {
  std::lock_guard<std::mutex> lock(node.services_mutex);
  node.services[endpoint] = {std::move(leave_graph), std::move(release)};
}

void untrack_leakable(NodeImpl& node, const void* endpoint) {
  std::lock_guard<std::mutex> lock(node.services_mutex);
  node.services.erase(endpoint);
}

}  // namespace

extern "C" {

rmw_service_t* rmw_create_service(const rmw_node_t* node,
                                  const rosidl_service_type_support_t* type_support,
                                  const char* service_name, const rmw_qos_profile_t* qos_profile) {
  auto impl = new_endpoint<ServiceImpl>(node, type_support, service_name, qos_profile, __func__);
  if (!impl) return nullptr;
  NodeImpl* node_impl = impl->node;
  auto requests =
      open_subscription(*node_impl->context->context, baton::detail::request_topic(service_name),
                        impl->type.request_info, impl->qos.port);
  if (!requests) {
    set_error(__func__, requests.error());
    return nullptr;
  }
  impl->requests = std::move(*requests);
  impl->graph_handle = register_endpoint(*node_impl, baton::graph::EndpointKind::Service,
                                         service_name, impl->type.info, impl->qos.graph);
  if (!open_wire(*impl, service_name, open_service_wire, __func__)) return nullptr;  // wire
  ServiceImpl* raw = impl.get();
  auto* handle = new_handle(std::move(impl), &rmw_service_t::service_name, service_name, __func__);
  if (handle != nullptr)
    track_leakable(
        *node_impl, raw, [raw] { raw->graph_handle.reset(); },
        [raw] {
          std::lock_guard<std::mutex> lock(raw->mutex);
          raw->requests.reset();  // its topic directory goes with the last handle
          raw->responders.clear();
          raw->wire.reset();  // wire: its DDS endpoints keep the participant alive
        });
  return handle;
}

rmw_ret_t rmw_destroy_service(rmw_node_t* node, rmw_service_t* service) {
  if (const rmw_ret_t ret = check_handle(node, __func__, "node"); ret != RMW_RET_OK) return ret;
  auto s = service_impl(service, __func__);
  if (!s) return s.ret;
  untrack_leakable(*s->node, s.impl);
  delete_handle(service, s.impl,
                &rmw_service_t::service_name);  // the responders remove their topics
  return RMW_RET_OK;
}

rmw_ret_t rmw_take_request(const rmw_service_t* service, rmw_service_info_t* request_header,
                           void* ros_request, bool* taken) {
  auto s = service_impl(service, __func__);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_request, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  const RearmAfterTake rearm{*s->node->context, s.impl};
  std::lock_guard<std::mutex> lock(s->mutex);
  rmw_ret_t ret = take_framed(
      *s->requests, s->type.request, ros_request, request_header, taken,
      [](const ServiceMessageHeader&) { return true; }, "request");
  if (ret != RMW_RET_OK || *taken) return ret;
  return wire_take_request(*s, request_header, ros_request, taken);  // wire: foreign clients
}

rmw_ret_t rmw_send_response(const rmw_service_t* service, rmw_request_id_t* request_header,
                            void* ros_response) {
  auto s = service_impl(service, __func__);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_response, RMW_RET_INVALID_ARGUMENT);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (is_wire_request(*request_header))  // wire: answered on DDS, header echoed
    return wire_send_response(*s, *request_header, ros_response);
  const uint64_t client_id = client_id_of(request_header->writer_guid);
  auto responder = s->responders.get(
      service->service_name, client_id,
      [&](const std::string& topic) -> baton::Result<baton::RawPublisher, std::string> {
        return open_publisher(*s->node->context->context, topic, s->type.response_info,
                              s->qos.port);
      });
  if (!responder) {
    set_error(__func__, responder.error());
    return RMW_RET_ERROR;
  }
  if (*responder == nullptr) {
    RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "%s: response to client %llx dropped: it is gone",
                           service->service_name, static_cast<unsigned long long>(client_id));
    return RMW_RET_OK;  // as DDS: a response to a vanished client is lost, not an error
  }
  return send_framed(**responder, s->type.response, ros_response, client_id,
                     request_header->sequence_number, __func__);
}

rmw_ret_t rmw_service_request_subscription_get_actual_qos(const rmw_service_t* service,
                                                          rmw_qos_profile_t* qos) {
  return actual_qos(service_impl(service, __func__), qos);
}

rmw_ret_t rmw_service_response_publisher_get_actual_qos(const rmw_service_t* service,
                                                        rmw_qos_profile_t* qos) {
  return actual_qos(service_impl(service, __func__), qos);
}

rmw_client_t* rmw_create_client(const rmw_node_t* node,
                                const rosidl_service_type_support_t* type_support,
                                const char* service_name, const rmw_qos_profile_t* qos_policies) {
  auto impl = new_endpoint<ClientImpl>(node, type_support, service_name, qos_policies, __func__);
  if (!impl) return nullptr;
  NodeImpl* node_impl = impl->node;
  impl->id = baton::ClientBase::next_client_id();
  impl->gid.implementation_identifier = IDENTIFIER;
  client_gid(impl->id, impl->gid.data);
  baton::Context& ctx = *node_impl->context->context;
  // Responses first: the subscription exists before any request can be answered.
  auto responses = open_subscription(ctx, baton::detail::response_topic(service_name, impl->id),
                                     impl->type.response_info, impl->qos.port);
  if (!responses) {
    set_error(__func__, responses.error());
    return nullptr;
  }
  impl->responses = std::move(*responses);
  auto requests = open_publisher(ctx, baton::detail::request_topic(service_name),
                                 impl->type.request_info, impl->qos.port);
  if (!requests) {
    set_error(__func__, requests.error());
    return nullptr;
  }
  impl->requests = std::move(*requests);
  impl->graph_handle =
      register_endpoint(*node_impl, baton::graph::EndpointKind::Client, service_name,
                        impl->type.info, impl->qos.graph, impl->gid.data);
  if (!open_wire(*impl, service_name, open_client_wire, __func__)) return nullptr;  // wire
  ClientImpl* raw = impl.get();
  auto* handle = new_handle(std::move(impl), &rmw_client_t::service_name, service_name, __func__);
  if (handle != nullptr)
    track_leakable(
        *node_impl, raw, [raw] { raw->graph_handle.reset(); },
        [raw] {
          std::scoped_lock lock(raw->publish_mutex, raw->take_mutex);
          raw->requests = baton::RawPublisher{};  // their topic directories go
          raw->responses.reset();                 // with the last handles
          raw->wire.reset();  // wire: its DDS endpoints keep the participant alive
        });
  return handle;
}

rmw_ret_t rmw_destroy_client(rmw_node_t* node, rmw_client_t* client) {
  if (const rmw_ret_t ret = check_handle(node, __func__, "node"); ret != RMW_RET_OK) return ret;
  auto c = client_impl(client, __func__);
  if (!c) return c.ret;
  const std::string responses = c->responses->port().topic().name();
  untrack_leakable(*c->node, c.impl);
  delete_handle(client, c.impl, &rmw_client_t::service_name);
  baton::topic::remove_topic_if_unused(responses);
  return RMW_RET_OK;
}

rmw_ret_t rmw_send_request(const rmw_client_t* client, const void* ros_request,
                           int64_t* sequence_id) {
  auto c = client_impl(client, __func__);
  if (!c) return c.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_request, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(sequence_id, RMW_RET_INVALID_ARGUMENT);
  std::lock_guard<std::mutex> lock(c->publish_mutex);
  const int64_t seq = c->next_sequence.fetch_add(1);
  // wire: on DDS only when no server of this shm domain listens and a foreign one is matched
  const bool on_wire = baton::ros2::detail::request_goes_on_wire(
      c->requests.subscription_count(), [c] { return wire_server_available(c->wire.get()); });
  rmw_ret_t ret =
      on_wire ? wire_send_request(*c, ros_request, seq)
              : send_framed(c->requests, c->type.request, ros_request, c->id, seq, __func__);
  if (ret == RMW_RET_OK) *sequence_id = seq;
  return ret;
}

rmw_ret_t rmw_take_response(const rmw_client_t* client, rmw_service_info_t* request_header,
                            void* ros_response, bool* taken) {
  auto c = client_impl(client, __func__);
  if (!c) return c.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_response, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  const RearmAfterTake rearm{*c->node->context, c.impl};
  std::lock_guard<std::mutex> lock(c->take_mutex);
  const uint64_t id = c->id;
  rmw_ret_t ret = take_framed(
      *c->responses, c->type.response, ros_response, request_header, taken,
      [id](const ServiceMessageHeader& h) { return h.client_id == id; }, "response");
  if (ret != RMW_RET_OK || *taken) return ret;
  return wire_take_response(*c, request_header, ros_response, taken);  // wire: foreign servers
}

rmw_ret_t rmw_service_server_is_available(const rmw_node_t* node, const rmw_client_t* client,
                                          bool* is_available) {
  if (const rmw_ret_t ret = check_handle(node, __func__, "node"); ret != RMW_RET_OK) return ret;
  auto c = client_impl(client, __func__);
  if (!c) return c.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(is_available, RMW_RET_INVALID_ARGUMENT);
  std::lock_guard<std::mutex> lock(c->publish_mutex);
  *is_available = baton::ros2::detail::service_is_available(  // wire: or a foreign server
      c->requests.subscription_count(), [c] { return wire_server_available(c->wire.get()); });
  return RMW_RET_OK;
}

rmw_ret_t rmw_get_gid_for_client(const rmw_client_t* client, rmw_gid_t* gid) {
  auto c = client_impl(client, __func__);
  if (!c) return c.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(gid, RMW_RET_INVALID_ARGUMENT);
  *gid = c->gid;
  return RMW_RET_OK;
}

rmw_ret_t rmw_client_request_publisher_get_actual_qos(const rmw_client_t* client,
                                                      rmw_qos_profile_t* qos) {
  return actual_qos(client_impl(client, __func__), qos);
}

rmw_ret_t rmw_client_response_subscription_get_actual_qos(const rmw_client_t* client,
                                                          rmw_qos_profile_t* qos) {
  return actual_qos(client_impl(client, __func__), qos);
}

}  // extern "C"
