// rmw_baton_cpp on the standard DDS wire (issue 5): what lets rclpy on rmw_baton_cpp talk to rclpy
// / rclcpp on any other RMW (rmw_fastrtps_cpp, rmw_cyclonedds_cpp) while baton peers keep talking
// through shared memory only. Built from the native wire pieces, not a second implementation:
//   context      -> one Participant (CycloneDDS; ros_discovery_info lists the nodes)
//   node         -> listed in that ros_discovery_info while it lives
//   publisher    -> a BridgedWriter (src/wire/bridged_topic.hpp, the core Publisher composes too)
//                   over a DdsRawWriter (USER_DATA "baton=<shm tag>;typehash=…;"): written only
//                   while a foreign reader is matched (always for transient local), listed under
//                   its node
//   subscription -> a BridgedReader (as Subscription's) of the baton port and a DdsRawReader
//                   with the same tag (drops same-tag samples, which came through shared memory);
//                   its guard condition, raised by the reader's data_available listener, is what
//                   rmw_wait also waits on; rmw_take serves shared memory first, then the wire
//   graph        -> a DdsGraphReader (built-in topics + others' ros_discovery_info): rmw_graph.cpp
//                   lists the DDS peers outside this shm domain next to baton's registry
// The hooks in the other rmw files are one call each, marked "wire:".
//
// The wire is on by default. Off (shared memory only, no DDS participant) with BATON_RMW_WIRE=0, or
// with ROS_AUTOMATIC_DISCOVERY_RANGE=OFF, or in a build without CycloneDDS; when the participant
// cannot be made (no rmw_dds_common .msg files, …) the rmw warns and runs on shared memory only.
#pragma once

#include <rmw/discovery_options.h>
#include <rmw/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../../wire/bridged_topic.hpp"
#include "baton/api/guard_condition.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/dds_graph_cache.hpp"

namespace baton::ros2::rmw {

struct ContextImpl;
struct NodeImpl;
struct PublisherImpl;
struct SubscriptionImpl;

// Opaque: defined in rmw_wire.cpp (they hold CycloneDDS objects when built with it). Endpoints
// and nodes keep their context's wire alive, so teardown order never matters.
struct ContextWire;
struct NodeWire;

// The context's DDS participant on `domain_id`, or null when the wire is off (see above).
std::shared_ptr<ContextWire> open_context_wire(uint32_t domain_id,
                                               const rmw_discovery_options_t& discovery);

// The ROS graph of the DDS peers outside this process's shm domain (their endpoints, and their
// nodes from ros_discovery_info), refreshed now; empty without a wire.
DdsGraph wire_graph(ContextWire* w);
// Takes what DDS discovery delivered and returns the count of graph changes so far (0 without a
// wire): the graph watcher triggers the graph guard conditions when it moves.
uint64_t wire_graph_generation(ContextWire* w);
// The rmw QoS profile of a discovered DDS endpoint (durations DDS infinite = RMW infinite).
rmw_qos_profile_t rmw_qos_of(const WireQos& q);

// Lists node `ns`/`name` in the context's ros_discovery_info while the result lives; null when
// the context has no wire.
std::shared_ptr<NodeWire> open_node_wire(const ContextImpl& context, const char* ns,
                                         const char* name);

// The bridged-endpoint core of an endpoint whose type, QoS, node and (subscription) baton port
// are already in `p` / `s`: a publisher's is null when the context has no wire; a subscription's
// is its port alone then. Errors name the topic.
Result<std::unique_ptr<baton::wire::BridgedWriter>, std::string> open_publisher_wire(
    const PublisherImpl& p, const char* topic);
Result<std::unique_ptr<baton::wire::BridgedReader>, std::string> open_subscription_bridge(
    const SubscriptionImpl& s, const char* topic);

// Hands a taken sample's bytes back once decoded, for reuse by the next large sample.
void recycle_wire_bytes(std::vector<uint8_t>&& bytes);
// The message info of a DDS sample (null `info`: nothing): received now; publisher gid, source
// timestamp and sequence numbers unknown (DdsRawReader::take does not report them yet).
void fill_wire_info(rmw_message_info_t* info);

}  // namespace baton::ros2::rmw
