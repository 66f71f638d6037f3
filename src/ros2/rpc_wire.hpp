// Private to baton_ros2 (Service, Client) and rmw_baton_cpp (rmw_service_wire.cpp): the
// DDS side of one ROS 2 service or client, in rmw_cyclonedds_cpp's convention, written once.
//
//   service -> a DdsRawReader on "rq/<service>Request" + a DdsRawWriter on "rr/<service>Reply"
//   client  -> a DdsRawWriter on "rq/<service>Request" + a DdsRawReader on "rr/<service>Reply"
//
// Types "pkg::srv::dds_::Name_Request_" / "Name_Response_"; USER_DATA the baton endpoint form
// ("baton=<shm tag>;typehash=<RIHS01 of the request / response>;") + "serviceid=<id>;" /
// "clientid=<id>;" (the pairing rmw_cyclonedds_cpp's check_for_service_reader_writer reads);
// both GUIDs listed under the node in ros_discovery_info; every sample framed with the request
// header (baton/ros2/request_header.hpp). Paths: a client sends on DDS only when no server of its
// own shm domain listens and a foreign server is matched (request_goes_on_wire in rpc_shm.hpp,
// with server_available() below); the reader drops same-tag writers' samples.
//
// Everything taken from DDS is untrusted: a sample that does not unframe or decode, or a request
// from a writer that does not frame (no "clientid=": rmw_fastrtps_cpp), is dropped, counted and
// logged through the caller's sink ("<service>: dropped a DDS sample (<n> so far): <why>", the
// first 10 then every power of two). A client silently skips other clients' replies.
//
// Thread-safety: write_framed, take, server_available and the counters may be called from any
// thread; take is not meant to run in two threads at once (DdsRawReader is shared).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/api/guard_condition.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/request_header.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "dds_wire.hpp"

namespace baton::ros2::detail {

// What a service's or client's two DDS endpoints are.
struct RpcWireSpec {
  std::string service;                     // the ROS name, for log lines ("/add_two_ints")
  std::string request_topic, reply_topic;  // "rq/add_two_intsRequest", "rr/add_two_intsReply"
  std::string service_type;  // "example_interfaces/srv/AddTwoInts" (DDS type names derive)
  // QoS with USER_DATA "baton=…;typehash=…;" (the id is appended by open()).
  WireQos request_qos, reply_qos;
  // The node the endpoints are listed under in ros_discovery_info.
  std::string node_namespace, node_name;
};

// One sample taken: its header and where it came from.
struct RpcTaken {
  RequestHeader header;
  uint64_t publication_handle = 0;  // the DDS writer (a client's rq writer for a service)
  int64_t source_timestamp_ns = 0;
};

class RpcWire {
 public:
  enum class Role : uint8_t { Service, Client };
  // Receives each "dropped a DDS sample" line (rmw_baton_cpp: its logger; native: stderr).
  using LogSink = std::function<void(const std::string&)>;

  // Creates and lists both endpoints on `participant` (which must outlive the result).
  static Result<std::unique_ptr<RpcWire>, std::string> open(Participant& participant, Role role,
                                                            RpcWireSpec spec, LogSink log);
  ~RpcWire();
  RpcWire(const RpcWire&) = delete;
  RpcWire& operator=(const RpcWire&) = delete;

  // Writes `cdr` (a plain message's CDR, encapsulation included) framed with `header`.
  Status<std::string> write_framed(std::span<const uint8_t> cdr, const RequestHeader& header);
  // Takes DDS samples until one unframes, is for us (service: from a framing client; client:
  // header guid == client_guid()) and `decode(cdr)` accepts it (returns "" or why not); the
  // others are dropped as above. nullopt: nothing (acceptable) waiting.
  std::optional<RpcTaken> take(const std::function<std::string(std::span<const uint8_t>)>& decode);

  // Client: a foreign server (rq reader + rr writer without this process's shm tag, with one
  // serviceid) is matched: rmw_cyclonedds_cpp's check_for_service_reader_writer.
  bool server_available() const;
  // Client: the header guid of its requests (the rq writer's instance handle, as
  // rmw_cyclonedds_cpp).
  uint64_t client_guid() const { return client_guid_; }
  // Service: waits (100 ms at most, as rmw_cyclonedds_cpp's check_for_response_reader) until the
  // reply writer matched the reply reader of the client whose rq writer is `publication_handle`.
  // False: that client is gone (a reply to it would be lost).
  bool wait_for_reply_reader(uint64_t publication_handle);

  // Raised when a sample arrives (and re-raised here while samples wait): for a WaitSet.
  std::shared_ptr<GuardCondition> wait_guard();
  bool has_data() const { return reader_.has_data(); }
  // DDS writers the reader has matched (a service: clients' rq writers, from its own side).
  uint32_t matched_writers() const { return reader_.matched_writers(); }
  uint64_t dropped() const { return dropped_.load(); }
  Guid reader_gid() const { return reader_.guid(); }
  Guid writer_gid() const { return writer_.guid(); }
  const std::string& service() const { return spec_.service; }

 private:
  RpcWire(Role role, RpcWireSpec spec, LogSink log, DdsRawReader r, DdsRawWriter w)
      : role_(role),
        spec_(std::move(spec)),
        log_(std::move(log)),
        reader_(std::move(r)),
        writer_(std::move(w)) {}
  void drop(const std::string& why);
  std::string unservable_requester(uint64_t publication_handle) const;
  std::optional<bool> client_reader_matched(uint64_t publication_handle) const;

  Role role_;
  RpcWireSpec spec_;
  LogSink log_;
  std::shared_ptr<GuardCondition> ready_ = std::make_shared<GuardCondition>();  // + the listener
  DdsRawReader reader_;
  DdsRawWriter writer_;
  uint64_t client_guid_ = 0;
  std::atomic<uint64_t> dropped_{0};
  // Last members: unlisted before the endpoints are deleted.
  std::unique_ptr<DiscoveryListing> reader_listing_, writer_listing_;
};

}  // namespace baton::ros2::detail
