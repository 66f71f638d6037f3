// rmw_baton_cpp services and clients on the standard DDS wire (issue 5), beside their
// shared-memory topics (rmw_service.cpp):
//   service -> a DdsRawReader on "rq/<service>Request" + a DdsRawWriter on "rr/<service>Reply"
//   client  -> a DdsRawWriter on "rq/<service>Request" + a DdsRawReader on "rr/<service>Reply"
// types "pkg::srv::dds_::Name_Request_" / "Name_Response_", QoS as rmw_cyclonedds_cpp maps the
// service's profile, USER_DATA "baton=<shm tag>;typehash=<RIHS01 of the request / response>;"
// + "serviceid=<id>;" / "clientid=<id>;" (the pairing rmw_cyclonedds_cpp checks), listed in
// ros_discovery_info under the node. Samples carry rmw_cyclonedds_cpp's request header
// (baton/ros2/request_header.hpp).
//
// Who uses which path (each request is served once, each client gets one response per server):
//   - a client sends through shared memory when a server of its own shm domain listens there;
//     otherwise on DDS when a foreign server (other shm tag; rq reader + rr writer with one
//     serviceid) is matched. Never both.
//   - a service takes requests from shared memory and from DDS (its DDS reader drops same-tag
//     writers' samples: those clients use shared memory) and answers each on the path it came by;
//     a DDS reply echoes the request header, and goes out once the client's reply reader is
//     matched (rmw_cyclonedds_cpp's wait, 100 ms at most).
// The hooks in rmw_service.cpp / rmw_wait.cpp are one call each, marked "wire:".
#pragma once

#include <rmw/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "baton/api/guard_condition.hpp"
#include "baton/common/result.hpp"

namespace baton::ros2::rmw {

struct ServiceImpl;
struct ClientImpl;

// Opaque: defined in rmw_service_wire.cpp. Null when the context has no wire.
struct ServiceWire;
struct ClientWire;

Result<std::shared_ptr<ServiceWire>, std::string> open_service_wire(const ServiceImpl& s,
                                                                    const char* service_name);
Result<std::shared_ptr<ClientWire>, std::string> open_client_wire(const ClientImpl& c,
                                                                  const char* service_name);

// Service side. Takes the next DDS request of a foreign client into `ros_request` (a sample that
// does not unframe or decode is dropped with a warning); `info->request_id` =
// {[header guid 8 B][DDS writer handle 8 B], header sequence}, as rmw_cyclonedds_cpp fills it.
rmw_ret_t wire_take_request(ServiceImpl& s, rmw_service_info_t* info, void* ros_request,
                            bool* taken);
// True when `id` names a request taken from DDS (shared-memory ids end in "bat-clnt", gid.hpp).
bool is_wire_request(const rmw_request_id_t& id);
// Sends the reply to a DDS request (`id` from wire_take_request) with the header echoed.
rmw_ret_t wire_send_response(ServiceImpl& s, const rmw_request_id_t& id, const void* ros_response);

// Client side. True when a foreign server is matched on DDS (false without a wire).
bool wire_server_available(ClientWire* w);
// Sends `ros_request` with header {this client's guid, sequence} on DDS.
rmw_ret_t wire_send_request(ClientImpl& c, const void* ros_request, int64_t sequence);
// Takes the next DDS reply addressed to this client (other clients' replies are skipped).
rmw_ret_t wire_take_response(ClientImpl& c, rmw_service_info_t* info, void* ros_response,
                             bool* taken);
// DDS samples taken and then dropped by a service or client (malformed, or another client's
// reply): the count tests and logs read.
uint64_t wire_dropped(const ServiceWire* w);
uint64_t wire_dropped(const ClientWire* w);

// rmw_wait: the guard condition raised when a DDS request / reply arrives (null without a wire;
// re-raised here while samples still wait), and whether samples wait.
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ServiceWire* w);
std::shared_ptr<baton::GuardCondition> wire_wait_guard(ClientWire* w);
bool wire_has_data(ServiceWire* w);
bool wire_has_data(ClientWire* w);

}  // namespace baton::ros2::rmw
