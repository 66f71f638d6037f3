// rmw_baton_cpp on the standard DDS wire: see rmw_wire.hpp.
#include "rmw_wire.hpp"

#include <rcutils/logging_macros.h>
#include <rcutils/time.h>
#include <rmw/qos_profiles.h>

#include <chrono>
#include <cstdlib>
#include <string_view>

#include "rmw_impl.hpp"

#if BATON_HAVE_CYCLONEDDS
#include <dlfcn.h>

#include <filesystem>
#include <rmw_dds_common/qos.hpp>

#include "../endpoint_qos.hpp"
#include "../foreign_dds_wire.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/shm/domain_tag.hpp"
#include "rmw_wire_internal.hpp"
#endif

namespace baton::ros2::rmw {

void fill_wire_info(rmw_message_info_t* info) {
  if (info == nullptr) return;
  *info = rmw_get_zero_initialized_message_info();
  rcutils_time_point_value_t now = 0;
  (void)rcutils_system_time_now(&now);
  info->received_timestamp = now;
  info->publication_sequence_number = RMW_MESSAGE_INFO_SEQUENCE_NUMBER_UNSUPPORTED;
  info->reception_sequence_number = RMW_MESSAGE_INFO_SEQUENCE_NUMBER_UNSUPPORTED;
  info->publisher_gid.implementation_identifier = IDENTIFIER;
  info->from_intra_process = false;
}

namespace {

rmw_time_t rmw_time_of(std::chrono::nanoseconds d) {
  if (d == std::chrono::nanoseconds::max()) return RMW_DURATION_INFINITE;
  return rmw_time_t{static_cast<uint64_t>(d.count() / 1'000'000'000),
                    static_cast<uint64_t>(d.count() % 1'000'000'000)};
}

}  // namespace

rmw_qos_profile_t rmw_qos_of(const WireQos& q) {
  rmw_qos_profile_t p = rmw_qos_profile_unknown;
  p.history = q.keep_all ? RMW_QOS_POLICY_HISTORY_KEEP_ALL : RMW_QOS_POLICY_HISTORY_KEEP_LAST;
  p.depth = q.keep_all ? 0 : q.depth;
  p.reliability =
      q.reliable ? RMW_QOS_POLICY_RELIABILITY_RELIABLE : RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT;
  p.durability = q.transient_local ? RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
                                   : RMW_QOS_POLICY_DURABILITY_VOLATILE;
  p.deadline = rmw_time_of(q.deadline);
  p.lifespan = rmw_time_of(q.lifespan);
  p.liveliness = q.liveliness_manual_by_topic ? RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC
                                              : RMW_QOS_POLICY_LIVELINESS_AUTOMATIC;
  p.liveliness_lease_duration = rmw_time_of(q.liveliness_lease);
  return p;
}

#if BATON_HAVE_CYCLONEDDS

struct NodeWire {
  std::shared_ptr<ContextWire> context;
  std::string ns, name;
  ~NodeWire() { (void)context->participant->remove_node(ns, name); }
};

namespace {

// rmw_dds_common's share directory, next to the library this rmw already links: ros_discovery_info
// is encoded from its ParticipantEntitiesInfo.msg. <prefix>/lib/librmw_dds_common.so ->
// <prefix>/share. AMENT_PREFIX_PATH (a sourced ROS install) is searched too.
void add_rmw_dds_common_share(TypeRegistry& registry) {
  registry.add_ament_prefix_path();
  Dl_info info{};
  const auto fn = &rmw_dds_common::qos_profile_check_compatible;
  if (dladdr(reinterpret_cast<const void*>(fn), &info) != 0 && info.dli_fname != nullptr)
    registry.add_share_root(std::filesystem::path(info.dli_fname).parent_path().parent_path() /
                            "share");
}

std::chrono::nanoseconds duration_of(const rmw_time_t& t) {
  if (t.sec == 0 && t.nsec == 0) return std::chrono::nanoseconds(0);  // unspecified
  constexpr uint64_t max_s = static_cast<uint64_t>(INT64_MAX / 1'000'000'000) - 1;
  if (t.sec >= max_s) return std::chrono::nanoseconds::max();  // RMW_DURATION_INFINITE
  return std::chrono::nanoseconds(static_cast<int64_t>(t.sec) * 1'000'000'000 +
                                  static_cast<int64_t>(t.nsec));
}

}  // namespace

WireQos wire_qos_of(const rmw_qos_profile_t& a, const rosidl_type_hash_t& hash) {
  WireQos q;
  q.reliable = a.reliability == RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  q.transient_local = a.durability == RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  q.keep_all = a.history == RMW_QOS_POLICY_HISTORY_KEEP_ALL;
  q.depth = static_cast<uint32_t>(a.depth);
  q.deadline = duration_of(a.deadline);
  q.lifespan = duration_of(a.lifespan);
  q.liveliness_lease = duration_of(a.liveliness_lease_duration);
  q.liveliness_manual_by_topic = a.liveliness == RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
  std::array<uint8_t, 32> bytes{};
  std::copy(std::begin(hash.value), std::end(hash.value), bytes.begin());
  const std::string type_hash = hash.version == 1 ? format_type_hash(bytes) : "";
  return detail::endpoint_wire_qos(type_hash, q);
}

std::string dds_topic_of(const char* topic, const rmw_qos_profile_t& qos, std::string_view prefix,
                         std::string_view suffix) {
  if (qos.avoid_ros_namespace_conventions) return std::string(topic).append(suffix);
  return dds_topic_name(topic, prefix).append(suffix);
}

Result<std::unique_ptr<DiscoveryListing>, std::string> list_endpoint(ContextWire& wire,
                                                                     const NodeImpl& node,
                                                                     const Guid& gid, bool reader) {
  auto l = DiscoveryListing::create(*wire.participant, node.node->get_namespace(),
                                    node.node->name(), gid, reader);
  if (!l) return unexpected("ros_discovery_info: " + l.error().detail);
  return std::move(*l);
}

std::shared_ptr<ContextWire> open_context_wire(uint32_t domain_id,
                                               const rmw_discovery_options_t& discovery) {
  if (const char* env = std::getenv("BATON_RMW_WIRE");
      env != nullptr && std::string_view(env) == "0")
    return nullptr;
  if (discovery.automatic_discovery_range == RMW_AUTOMATIC_DISCOVERY_RANGE_OFF) return nullptr;
  const bool localhost =
      discovery.automatic_discovery_range == RMW_AUTOMATIC_DISCOVERY_RANGE_LOCALHOST;
  auto wire = std::make_shared<ContextWire>();
  add_rmw_dds_common_share(wire->registry);
  auto participant = Participant::create(wire->registry, domain_id, localhost);
  if (!participant) {
    RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp",
                           "no DDS wire (shared memory only; BATON_RMW_WIRE=0 silences this): %s",
                           participant.error().detail.c_str());
    return nullptr;
  }
  wire->participant = std::move(*participant);
  if (auto graph = DdsGraphReader::create(*wire->participant); graph)
    wire->graph = std::move(*graph);
  else
    RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "the graph lists no DDS peers: %s",
                           graph.error().detail.c_str());
  return wire;
}

std::shared_ptr<NodeWire> open_node_wire(const ContextImpl& context, const char* ns,
                                         const char* name) {
  if (!context.wire) return nullptr;
  if (auto s = context.wire->participant->add_node(ns, name); !s)
    RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "ros_discovery_info (node %s%s%s): %s", ns,
                           std::string_view(ns) == "/" ? "" : "/", name, s.error().detail.c_str());
  return std::make_shared<NodeWire>(NodeWire{context.wire, ns, name});
}

Result<std::unique_ptr<baton::wire::BridgedWriter>, std::string> open_publisher_wire(
    const PublisherImpl& p, const char* topic) {
  const auto& wire = p.node->context->wire;
  if (!wire) return std::unique_ptr<baton::wire::BridgedWriter>();
  const WireQos qos = wire_qos_of(p.qos.actual, p.type.hash);
  auto w = wire->participant->dds().create_writer(dds_topic_of(topic, p.qos.actual),
                                                  dds_type_name(p.type.name), qos);
  if (!w) return unexpected("DDS writer on '" + std::string(topic) + "': " + w.error().detail);
  // The core keeps the context (its participant) until the writer is gone.
  auto out = std::make_unique<baton::wire::BridgedWriter>(detail::dds_foreign_writer(std::move(*w)),
                                                          qos.transient_local, wire);
  auto listing = list_endpoint(*wire, *p.node, out->wire().gid(), /*reader=*/false);
  if (!listing) return unexpected(listing.error());
  out->keep_listed(std::move(*listing));
  return out;
}

Result<std::unique_ptr<baton::wire::BridgedReader>, std::string> open_subscription_bridge(
    const SubscriptionImpl& s, const char* topic) {
  const auto& wire = s.node->context->wire;
  if (!wire) return std::make_unique<baton::wire::BridgedReader>(s.subscription, nullptr);
  auto r = wire->participant->dds().create_reader(dds_topic_of(topic, s.qos.actual),
                                                  dds_type_name(s.type.name),
                                                  wire_qos_of(s.qos.actual, s.type.hash));
  if (!r) return unexpected("DDS reader on '" + std::string(topic) + "': " + r.error().detail);
  auto out = std::make_unique<baton::wire::BridgedReader>(
      s.subscription, detail::dds_foreign_reader(std::move(*r)), wire);
  auto listing = list_endpoint(*wire, *s.node, out->wire()->gid(), /*reader=*/true);
  if (!listing) return unexpected(listing.error());
  out->keep_listed(std::move(*listing));
  return out;
}

void recycle_wire_bytes(std::vector<uint8_t>&& bytes) {
  baton::ros2::recycle_sample_bytes(std::move(bytes));
}

DdsGraph wire_graph(ContextWire* w) {
  if (w == nullptr || !w->graph) return {};
  return w->graph->snapshot(shm::domain_tag());
}

uint64_t wire_graph_generation(ContextWire* w) {
  if (w == nullptr || !w->graph) return 0;
  w->graph->refresh();
  return w->graph->generation();
}

#else  // built without CycloneDDS: the wire is always off

struct ContextWire {};
struct NodeWire {};

std::shared_ptr<ContextWire> open_context_wire(uint32_t, const rmw_discovery_options_t&) {
  return nullptr;
}
std::shared_ptr<NodeWire> open_node_wire(const ContextImpl&, const char*, const char*) {
  return nullptr;
}
Result<std::unique_ptr<baton::wire::BridgedWriter>, std::string> open_publisher_wire(
    const PublisherImpl&, const char*) {
  return std::unique_ptr<baton::wire::BridgedWriter>();
}
Result<std::unique_ptr<baton::wire::BridgedReader>, std::string> open_subscription_bridge(
    const SubscriptionImpl& s, const char*) {
  return std::make_unique<baton::wire::BridgedReader>(s.subscription, nullptr);
}
void recycle_wire_bytes(std::vector<uint8_t>&&) {}
DdsGraph wire_graph(ContextWire*) { return {}; }
uint64_t wire_graph_generation(ContextWire*) { return 0; }

#endif

}  // namespace baton::ros2::rmw
