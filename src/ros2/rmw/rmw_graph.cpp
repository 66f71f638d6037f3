// rmw_baton_cpp: graph queries, answered from a snapshot of baton's shared-memory graph registry
// (every process using the same BATON_NAMESPACE). The rmw registers only what ROS shows; the
// plumbing of baton's own C++ services ("<svc>/_request", "<svc>/_response/<id>", the
// "_baton_service" node) is filtered out as well.
#include <rcutils/strdup.h>
#include <rmw/get_node_info_and_types.h>
#include <rmw/get_service_names_and_types.h>
#include <rmw/get_topic_endpoint_info.h>
#include <rmw/get_topic_names_and_types.h>
#include <rmw/names_and_types.h>
#include <rmw/rmw.h>
#include <rmw/topic_endpoint_info_array.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "qos_map.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users
using baton::graph::EndpointInfo;
using baton::graph::EndpointKind;
using baton::graph::GraphSnapshot;
using baton::graph::NodeInfo;

namespace {

bool is_plumbing_name(std::string_view name) {
  return name.ends_with("/_request") || name.find("/_response/") != std::string_view::npos;
}

bool is_plumbing_node(const NodeInfo& n) { return n.name.starts_with("_baton"); }

// The snapshot of the node's context's registry, or an error (set) when discovery is off.
bool snapshot_of(const rmw_node_t* node, const char* function, GraphSnapshot& out) {
  if (!check_handle(node, function, "node")) return false;
  auto registry = static_cast<NodeImpl*>(node->data)->context->context->graph();
  if (!registry) {
    set_error(function, "baton graph registry unavailable: " + registry.error().detail);
    return false;
  }
  out = (*registry)->snapshot();
  return true;
}

const NodeInfo* node_of(const GraphSnapshot& g, const EndpointInfo& e) {
  for (const auto& n : g.nodes)
    if (n.index == e.node_index && n.generation == e.node_generation) return &n;
  return nullptr;
}

rmw_ret_t fill_string_array(const std::vector<std::string>& in, rcutils_string_array_t* out,
                            rcutils_allocator_t allocator, const char* function) {
  if (rcutils_string_array_init(out, in.size(), &allocator) != RCUTILS_RET_OK) {
    set_error(function, "out of memory");
    return RMW_RET_BAD_ALLOC;
  }
  for (size_t i = 0; i < in.size(); ++i) {
    out->data[i] = rcutils_strdup(in[i].c_str(), allocator);
    if (out->data[i] == nullptr) {
      (void)rcutils_string_array_fini(out);
      set_error(function, "out of memory");
      return RMW_RET_BAD_ALLOC;
    }
  }
  return RMW_RET_OK;
}

// name -> sorted, unique types.
using NamesAndTypes = std::map<std::string, std::set<std::string>>;

rmw_ret_t fill_names_and_types(const NamesAndTypes& in, rcutils_allocator_t* allocator,
                               rmw_names_and_types_t* out, const char* function) {
  if (in.empty()) return RMW_RET_OK;  // zero-initialized = empty
  rmw_ret_t ret = rmw_names_and_types_init(out, in.size(), allocator);
  if (ret != RMW_RET_OK) return ret;
  size_t i = 0;
  for (const auto& [name, types] : in) {
    out->names.data[i] = rcutils_strdup(name.c_str(), *allocator);
    ret = out->names.data[i] == nullptr ? RMW_RET_BAD_ALLOC
                                        : fill_string_array({types.begin(), types.end()},
                                                            &out->types[i], *allocator, function);
    if (ret != RMW_RET_OK) {
      (void)rmw_names_and_types_fini(out);
      set_error(function, "out of memory");
      return ret;
    }
    ++i;
  }
  return RMW_RET_OK;
}

rmw_ret_t count_kind(const rmw_node_t* node, const char* name, EndpointKind kind, size_t* count,
                     const char* function) {
  RMW_CHECK_ARGUMENT_FOR_NULL(name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(count, RMW_RET_INVALID_ARGUMENT);
  GraphSnapshot g;
  if (!snapshot_of(node, function, g)) return RMW_RET_ERROR;
  *count = 0;
  for (const auto& e : g.endpoints)
    if (e.kind == kind && e.name == name) ++*count;
  return RMW_RET_OK;
}

// Names and types of the endpoints of the given kinds of one node, or of every node when
// node_name is null.
rmw_ret_t names_and_types(const rmw_node_t* node, rcutils_allocator_t* allocator,
                          const char* node_name, const char* node_namespace,
                          std::initializer_list<EndpointKind> kinds, rmw_names_and_types_t* out,
                          const char* function) {
  RMW_CHECK_ARGUMENT_FOR_NULL(allocator, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(out, RMW_RET_INVALID_ARGUMENT);
  if (rmw_names_and_types_check_zero(out) != RMW_RET_OK) return RMW_RET_INVALID_ARGUMENT;
  GraphSnapshot g;
  if (!snapshot_of(node, function, g)) return RMW_RET_ERROR;
  const NodeInfo* wanted = nullptr;
  if (node_name != nullptr) {
    for (const auto& n : g.nodes)
      if (n.name == node_name && n.namespace_ == node_namespace) wanted = &n;
    if (wanted == nullptr) {
      set_error(function, std::string("node '") + node_namespace + "' '" + node_name +
                              "' is not in the graph");
      return RMW_RET_NODE_NAME_NON_EXISTENT;
    }
  }
  NamesAndTypes found;
  for (const auto& e : g.endpoints) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) continue;
    if (is_plumbing_name(e.name)) continue;
    if (wanted != nullptr &&
        (e.node_index != wanted->index || e.node_generation != wanted->generation))
      continue;
    found[e.name].insert(e.type.name);
  }
  return fill_names_and_types(found, allocator, out, function);
}

rmw_ret_t endpoints_info(const rmw_node_t* node, rcutils_allocator_t* allocator,
                         const char* topic_name, EndpointKind kind,
                         rmw_topic_endpoint_info_array_t* out, const char* function) {
  RMW_CHECK_ARGUMENT_FOR_NULL(allocator, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(topic_name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(out, RMW_RET_INVALID_ARGUMENT);
  if (rmw_topic_endpoint_info_array_check_zero(out) != RMW_RET_OK) return RMW_RET_INVALID_ARGUMENT;
  GraphSnapshot g;
  if (!snapshot_of(node, function, g)) return RMW_RET_ERROR;
  std::vector<const EndpointInfo*> found;
  for (const auto& e : g.endpoints)
    if (e.kind == kind && e.name == topic_name) found.push_back(&e);
  if (found.empty()) return RMW_RET_OK;
  rmw_ret_t ret = rmw_topic_endpoint_info_array_init_with_size(out, found.size(), allocator);
  if (ret != RMW_RET_OK) return ret;
  for (size_t i = 0; i < found.size(); ++i) {
    const EndpointInfo& e = *found[i];
    rmw_topic_endpoint_info_t& info = out->info_array[i];
    info = rmw_get_zero_initialized_topic_endpoint_info();
    const NodeInfo* n = node_of(g, e);
    rosidl_type_hash_t hash = rosidl_get_zero_initialized_type_hash();
    hash.version = 1;
    std::memcpy(hash.value, e.type.hash.data(), sizeof hash.value);
    // The gid the endpoint registered (rmw_baton_cpp's own, gid.hpp); native baton endpoints
    // register none: then one the graph can name, [pid][endpoint entry index][kind].
    uint8_t gid[RMW_GID_STORAGE_SIZE] = {};
    if (e.gid != baton::graph::EndpointGid{}) {
      std::memcpy(gid, e.gid.data(), e.gid.size());
    } else {
      std::memcpy(gid, &e.pid, 4);
      std::memcpy(gid + 4, &e.index, 4);
      gid[8] = static_cast<uint8_t>(e.kind);
    }
    const rmw_qos_profile_t qos = qos_from_graph(e.qos);
    ret = rmw_topic_endpoint_info_set_node_name(&info, n ? n->name.c_str() : "_NODE_NAME_UNKNOWN_",
                                                allocator);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_node_namespace(
          &info, n ? n->namespace_.c_str() : "_NODE_NAMESPACE_UNKNOWN_", allocator);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_topic_type(&info, e.type.name.c_str(), allocator);
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_topic_type_hash(&info, &hash);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_endpoint_type(&info, kind == EndpointKind::Publisher
                                                                 ? RMW_ENDPOINT_PUBLISHER
                                                                 : RMW_ENDPOINT_SUBSCRIPTION);
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_gid(&info, gid, sizeof gid);
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_qos_profile(&info, &qos);
    if (ret != RMW_RET_OK) {
      (void)rmw_topic_endpoint_info_array_fini(out, allocator);
      return ret;
    }
  }
  return RMW_RET_OK;
}

rmw_ret_t list_nodes(const rmw_node_t* node, rcutils_string_array_t* names,
                     rcutils_string_array_t* namespaces, rcutils_string_array_t* enclaves,
                     const char* function) {
  RMW_CHECK_ARGUMENT_FOR_NULL(names, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(namespaces, RMW_RET_INVALID_ARGUMENT);
  GraphSnapshot g;
  if (!snapshot_of(node, function, g)) return RMW_RET_ERROR;
  std::vector<std::string> n, ns, enc;
  for (const auto& info : g.nodes) {
    if (is_plumbing_node(info)) continue;
    n.push_back(info.name);
    ns.push_back(info.namespace_);
    enc.push_back("/");  // baton has no security enclaves
  }
  const rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_ret_t ret = fill_string_array(n, names, allocator, function);
  if (ret == RMW_RET_OK) ret = fill_string_array(ns, namespaces, allocator, function);
  if (ret == RMW_RET_OK && enclaves != nullptr)
    ret = fill_string_array(enc, enclaves, allocator, function);
  return ret;
}

}  // namespace

extern "C" {

rmw_ret_t rmw_get_node_names(const rmw_node_t* node, rcutils_string_array_t* node_names,
                             rcutils_string_array_t* node_namespaces) {
  return list_nodes(node, node_names, node_namespaces, nullptr, __func__);
}

rmw_ret_t rmw_get_node_names_with_enclaves(const rmw_node_t* node,
                                           rcutils_string_array_t* node_names,
                                           rcutils_string_array_t* node_namespaces,
                                           rcutils_string_array_t* enclaves) {
  RMW_CHECK_ARGUMENT_FOR_NULL(enclaves, RMW_RET_INVALID_ARGUMENT);
  return list_nodes(node, node_names, node_namespaces, enclaves, __func__);
}

rmw_ret_t rmw_count_publishers(const rmw_node_t* node, const char* topic_name, size_t* count) {
  return count_kind(node, topic_name, EndpointKind::Publisher, count, __func__);
}

rmw_ret_t rmw_count_subscribers(const rmw_node_t* node, const char* topic_name, size_t* count) {
  return count_kind(node, topic_name, EndpointKind::Subscription, count, __func__);
}

rmw_ret_t rmw_count_clients(const rmw_node_t* node, const char* service_name, size_t* count) {
  return count_kind(node, service_name, EndpointKind::Client, count, __func__);
}

rmw_ret_t rmw_count_services(const rmw_node_t* node, const char* service_name, size_t* count) {
  return count_kind(node, service_name, EndpointKind::Service, count, __func__);
}

rmw_ret_t rmw_get_topic_names_and_types(const rmw_node_t* node, rcutils_allocator_t* allocator,
                                        bool no_demangle,
                                        rmw_names_and_types_t* topic_names_and_types) {
  (void)no_demangle;  // baton topics carry ROS names already: nothing to demangle
  return names_and_types(node, allocator, nullptr, nullptr,
                         {EndpointKind::Publisher, EndpointKind::Subscription},
                         topic_names_and_types, __func__);
}

rmw_ret_t rmw_get_service_names_and_types(const rmw_node_t* node, rcutils_allocator_t* allocator,
                                          rmw_names_and_types_t* service_names_and_types) {
  return names_and_types(node, allocator, nullptr, nullptr,
                         {EndpointKind::Service, EndpointKind::Client}, service_names_and_types,
                         __func__);
}

rmw_ret_t rmw_get_publisher_names_and_types_by_node(const rmw_node_t* node,
                                                    rcutils_allocator_t* allocator,
                                                    const char* node_name,
                                                    const char* node_namespace, bool no_demangle,
                                                    rmw_names_and_types_t* topic_names_and_types) {
  (void)no_demangle;
  RMW_CHECK_ARGUMENT_FOR_NULL(node_name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(node_namespace, RMW_RET_INVALID_ARGUMENT);
  return names_and_types(node, allocator, node_name, node_namespace, {EndpointKind::Publisher},
                         topic_names_and_types, __func__);
}

rmw_ret_t rmw_get_subscriber_names_and_types_by_node(const rmw_node_t* node,
                                                     rcutils_allocator_t* allocator,
                                                     const char* node_name,
                                                     const char* node_namespace, bool no_demangle,
                                                     rmw_names_and_types_t* topic_names_and_types) {
  (void)no_demangle;
  RMW_CHECK_ARGUMENT_FOR_NULL(node_name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(node_namespace, RMW_RET_INVALID_ARGUMENT);
  return names_and_types(node, allocator, node_name, node_namespace, {EndpointKind::Subscription},
                         topic_names_and_types, __func__);
}

rmw_ret_t rmw_get_service_names_and_types_by_node(const rmw_node_t* node,
                                                  rcutils_allocator_t* allocator,
                                                  const char* node_name, const char* node_namespace,
                                                  rmw_names_and_types_t* service_names_and_types) {
  RMW_CHECK_ARGUMENT_FOR_NULL(node_name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(node_namespace, RMW_RET_INVALID_ARGUMENT);
  return names_and_types(node, allocator, node_name, node_namespace, {EndpointKind::Service},
                         service_names_and_types, __func__);
}

rmw_ret_t rmw_get_client_names_and_types_by_node(const rmw_node_t* node,
                                                 rcutils_allocator_t* allocator,
                                                 const char* node_name, const char* node_namespace,
                                                 rmw_names_and_types_t* service_names_and_types) {
  RMW_CHECK_ARGUMENT_FOR_NULL(node_name, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(node_namespace, RMW_RET_INVALID_ARGUMENT);
  return names_and_types(node, allocator, node_name, node_namespace, {EndpointKind::Client},
                         service_names_and_types, __func__);
}

rmw_ret_t rmw_get_publishers_info_by_topic(const rmw_node_t* node, rcutils_allocator_t* allocator,
                                           const char* topic_name, bool no_mangle,
                                           rmw_topic_endpoint_info_array_t* publishers_info) {
  (void)no_mangle;
  return endpoints_info(node, allocator, topic_name, EndpointKind::Publisher, publishers_info,
                        __func__);
}

rmw_ret_t rmw_get_subscriptions_info_by_topic(const rmw_node_t* node,
                                              rcutils_allocator_t* allocator,
                                              const char* topic_name, bool no_mangle,
                                              rmw_topic_endpoint_info_array_t* subscriptions_info) {
  (void)no_mangle;
  return endpoints_info(node, allocator, topic_name, EndpointKind::Subscription, subscriptions_info,
                        __func__);
}

}  // extern "C"
