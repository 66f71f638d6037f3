// rmw_baton_cpp: graph queries, answered from one GraphView (graph_view.hpp): a snapshot of baton's
// shared-memory graph registry (every process using the same BATON_NAMESPACE) and, with the wire,
// the DDS peers outside it (other RMWs, baton in other shm domains) as DDS discovery and their
// ros_discovery_info describe them.
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

#include "../dds_wire.hpp"
#include "baton/ros2/type_description.hpp"
#include "graph_view.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users
using baton::graph::EndpointKind;

namespace {

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

// The argument checks of the graph queries, in the order the rmw headers list them: the node
// (null / another implementation's), then each argument.
rmw_ret_t check_allocator(const rcutils_allocator_t* allocator, const char* function) {
  if (allocator == nullptr || !rcutils_allocator_is_valid(allocator)) {
    set_error(function, allocator == nullptr ? "allocator is null" : "allocator is not valid");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}

rmw_ret_t check_output(const void* out, bool zero_initialized, const char* function,
                       const char* what) {
  if (out == nullptr || !zero_initialized) {
    set_error(function, std::string(what) +
                            (out == nullptr ? " is null" : " is not a zero-initialized array"));
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}

rmw_ret_t check_output(rmw_names_and_types_t* out, const char* function, const char* what) {
  // rmw_names_and_types_check_zero sets its own error: reset, ours names the function.
  const bool zero = out != nullptr && rmw_names_and_types_check_zero(out) == RMW_RET_OK;
  rmw_reset_error();
  return check_output(out, zero, function, what);
}

rmw_ret_t check_output(rmw_topic_endpoint_info_array_t* out, const char* function,
                       const char* what) {
  const bool zero = out != nullptr && rmw_topic_endpoint_info_array_check_zero(out) == RMW_RET_OK;
  rmw_reset_error();
  return check_output(out, zero, function, what);
}

rmw_ret_t check_output(const rcutils_string_array_t* out, const char* function, const char* what) {
  const bool zero = out != nullptr && out->size == 0 && out->data == nullptr;
  return check_output(out, zero, function, what);
}

rmw_ret_t count_kind(const rmw_node_t* node, const char* name, EndpointKind kind, size_t* count,
                     const char* function) {
  if (const rmw_ret_t ret = check_handle(node, function, "node"); ret != RMW_RET_OK) return ret;
  const bool service = kind == EndpointKind::Service || kind == EndpointKind::Client;
  if (const rmw_ret_t ret =
          check_topic_name(name, function, service ? "service name" : "topic name");
      ret != RMW_RET_OK)
    return ret;
  if (const rmw_ret_t ret = check_argument(count, function, "count"); ret != RMW_RET_OK) return ret;
  GraphView g;
  if (!graph_view_of(node, function, g)) return RMW_RET_ERROR;
  *count = 0;
  for (const auto& e : g.endpoints)
    if (e.kind == kind && e.ros && e.name == name) ++*count;
  return RMW_RET_OK;
}

// get_topic_names_and_types(no_demangle=true), as rmw_dds_common's identity demangling: every
// DDS topic by its DDS name and type ("rt/chatter", "rq/addRequest", "ros_discovery_info");
// baton's own endpoints by the names their DDS endpoints have.
NamesAndTypes dds_names_and_types(const GraphView& g) {
  NamesAndTypes out;
  for (const auto& e : g.endpoints) {
    if (!e.dds_topic.empty()) {
      out[e.dds_topic].insert(e.dds_type);
    } else if (e.kind == EndpointKind::Publisher || e.kind == EndpointKind::Subscription) {
      out[baton::ros2::dds_topic_name(e.name)].insert(baton::ros2::dds_type_name(e.type));
    } else {  // a service or client: its request and reply topics
      out[baton::ros2::dds_topic_name(e.name, "rq") + "Request"].insert(
          baton::ros2::dds_type_name(e.type + "_Request"));
      out[baton::ros2::dds_topic_name(e.name, "rr") + "Reply"].insert(
          baton::ros2::dds_type_name(e.type + "_Response"));
    }
  }
  return out;
}

// Names and types of the endpoints of the given kinds of one node (`by_node`: node_name and
// node_namespace checked and looked up), or of every node; with `no_demangle` (topics of every
// node only) DDS names, as above.
rmw_ret_t names_and_types(const rmw_node_t* node, rcutils_allocator_t* allocator, bool by_node,
                          const char* node_name, const char* node_namespace,
                          std::initializer_list<EndpointKind> kinds, rmw_names_and_types_t* out,
                          const char* function, bool no_demangle = false) {
  if (const rmw_ret_t ret = check_handle(node, function, "node"); ret != RMW_RET_OK) return ret;
  if (const rmw_ret_t ret = check_allocator(allocator, function); ret != RMW_RET_OK) return ret;
  if (by_node) {
    if (const rmw_ret_t ret = check_node_name(node_name, function, "node_name"); ret != RMW_RET_OK)
      return ret;
    if (const rmw_ret_t ret = check_namespace(node_namespace, function, "node_namespace");
        ret != RMW_RET_OK)
      return ret;
  }
  if (const rmw_ret_t ret = check_output(out, function, "names and types"); ret != RMW_RET_OK)
    return ret;
  GraphView g;
  if (!graph_view_of(node, function, g)) return RMW_RET_ERROR;
  if (no_demangle) return fill_names_and_types(dds_names_and_types(g), allocator, out, function);
  std::set<int> wanted;  // every node of that name (ROS allows duplicates, with a warning)
  if (by_node) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].name == node_name && g.nodes[i].namespace_ == node_namespace)
        wanted.insert(static_cast<int>(i));
    if (wanted.empty()) {
      set_error(function, std::string("node '") + node_namespace + "' '" + node_name +
                              "' is not in the graph");
      return RMW_RET_NODE_NAME_NON_EXISTENT;
    }
  }
  NamesAndTypes found;
  for (const auto& e : g.endpoints) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) continue;
    if (!e.ros) continue;  // "rr/…Reply", bare DDS topics: listed with no_demangle only
    if (by_node && !wanted.contains(e.node)) continue;
    found[e.name].insert(e.type);
  }
  return fill_names_and_types(found, allocator, out, function);
}

// With `no_mangle`, a DDS endpoint matches by its DDS topic ("rq/addRequest"); baton's own
// endpoints have only their ROS name.
rmw_ret_t endpoints_info(const rmw_node_t* node, rcutils_allocator_t* allocator,
                         const char* topic_name, EndpointKind kind, bool no_mangle,
                         rmw_topic_endpoint_info_array_t* out, const char* function) {
  if (const rmw_ret_t ret = check_handle(node, function, "node"); ret != RMW_RET_OK) return ret;
  if (const rmw_ret_t ret = check_allocator(allocator, function); ret != RMW_RET_OK) return ret;
  if (const rmw_ret_t ret = check_argument(topic_name, function, "topic_name"); ret != RMW_RET_OK)
    return ret;
  if (const rmw_ret_t ret = check_output(out, function, "endpoint info array"); ret != RMW_RET_OK)
    return ret;
  GraphView g;
  if (!graph_view_of(node, function, g)) return RMW_RET_ERROR;
  const bool writers = kind == EndpointKind::Publisher;
  std::vector<const GraphViewEndpoint*> found;
  for (const auto& e : g.endpoints) {
    const bool match = no_mangle && !e.dds_topic.empty()
                           ? e.dds_topic == topic_name && e.writer == writers
                           : e.kind == kind && e.ros && e.name == topic_name;
    if (match) found.push_back(&e);
  }
  if (found.empty()) return RMW_RET_OK;
  rmw_ret_t ret = rmw_topic_endpoint_info_array_init_with_size(out, found.size(), allocator);
  if (ret != RMW_RET_OK) return ret;
  for (size_t i = 0; i < found.size(); ++i) {
    const GraphViewEndpoint& e = *found[i];
    rmw_topic_endpoint_info_t& info = out->info_array[i];
    info = rmw_get_zero_initialized_topic_endpoint_info();
    ret = rmw_topic_endpoint_info_set_node_name(&info, e.node_name.c_str(), allocator);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_node_namespace(&info, e.node_namespace.c_str(), allocator);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_topic_type(&info, e.type.c_str(), allocator);
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_topic_type_hash(&info, &e.hash);
    if (ret == RMW_RET_OK)
      ret = rmw_topic_endpoint_info_set_endpoint_type(
          &info, writers ? RMW_ENDPOINT_PUBLISHER : RMW_ENDPOINT_SUBSCRIPTION);
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_gid(&info, e.gid.data(), e.gid.size());
    if (ret == RMW_RET_OK) ret = rmw_topic_endpoint_info_set_qos_profile(&info, &e.qos);
    if (ret != RMW_RET_OK) {
      (void)rmw_topic_endpoint_info_array_fini(out, allocator);
      return ret;
    }
  }
  return RMW_RET_OK;
}

rmw_ret_t list_nodes(const rmw_node_t* node, rcutils_string_array_t* names,
                     rcutils_string_array_t* namespaces, rcutils_string_array_t* enclaves,
                     const char* function, bool with_enclaves = false) {
  if (const rmw_ret_t ret = check_handle(node, function, "node"); ret != RMW_RET_OK) return ret;
  rmw_ret_t ret = check_output(names, function, "node_names");
  if (ret == RMW_RET_OK) ret = check_output(namespaces, function, "node_namespaces");
  if (ret == RMW_RET_OK && with_enclaves) ret = check_output(enclaves, function, "enclaves");
  if (ret != RMW_RET_OK) return ret;
  GraphView g;
  if (!graph_view_of(node, function, g)) return RMW_RET_ERROR;
  std::vector<std::string> n, ns, enc;
  for (const auto& info : g.nodes) {
    if (info.name.empty()) continue;  // baton's service plumbing (graph_view.cpp)
    n.push_back(info.name);
    ns.push_back(info.namespace_);
    enc.push_back(info.enclave);
  }
  const rcutils_allocator_t allocator = rcutils_get_default_allocator();
  ret = fill_string_array(n, names, allocator, function);
  if (ret == RMW_RET_OK) ret = fill_string_array(ns, namespaces, allocator, function);
  if (ret == RMW_RET_OK && with_enclaves)
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
  return list_nodes(node, node_names, node_namespaces, enclaves, __func__, /*with_enclaves=*/true);
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
  return names_and_types(node, allocator, /*by_node=*/false, nullptr, nullptr,
                         {EndpointKind::Publisher, EndpointKind::Subscription},
                         topic_names_and_types, __func__, no_demangle);
}

rmw_ret_t rmw_get_service_names_and_types(const rmw_node_t* node, rcutils_allocator_t* allocator,
                                          rmw_names_and_types_t* service_names_and_types) {
  return names_and_types(node, allocator, /*by_node=*/false, nullptr, nullptr,
                         {EndpointKind::Service, EndpointKind::Client}, service_names_and_types,
                         __func__);
}

rmw_ret_t rmw_get_publisher_names_and_types_by_node(const rmw_node_t* node,
                                                    rcutils_allocator_t* allocator,
                                                    const char* node_name,
                                                    const char* node_namespace, bool no_demangle,
                                                    rmw_names_and_types_t* topic_names_and_types) {
  (void)no_demangle;
  return names_and_types(node, allocator, /*by_node=*/true, node_name, node_namespace,
                         {EndpointKind::Publisher}, topic_names_and_types, __func__);
}

rmw_ret_t rmw_get_subscriber_names_and_types_by_node(const rmw_node_t* node,
                                                     rcutils_allocator_t* allocator,
                                                     const char* node_name,
                                                     const char* node_namespace, bool no_demangle,
                                                     rmw_names_and_types_t* topic_names_and_types) {
  (void)no_demangle;
  return names_and_types(node, allocator, /*by_node=*/true, node_name, node_namespace,
                         {EndpointKind::Subscription}, topic_names_and_types, __func__);
}

rmw_ret_t rmw_get_service_names_and_types_by_node(const rmw_node_t* node,
                                                  rcutils_allocator_t* allocator,
                                                  const char* node_name, const char* node_namespace,
                                                  rmw_names_and_types_t* service_names_and_types) {
  return names_and_types(node, allocator, /*by_node=*/true, node_name, node_namespace,
                         {EndpointKind::Service}, service_names_and_types, __func__);
}

rmw_ret_t rmw_get_client_names_and_types_by_node(const rmw_node_t* node,
                                                 rcutils_allocator_t* allocator,
                                                 const char* node_name, const char* node_namespace,
                                                 rmw_names_and_types_t* service_names_and_types) {
  return names_and_types(node, allocator, /*by_node=*/true, node_name, node_namespace,
                         {EndpointKind::Client}, service_names_and_types, __func__);
}

rmw_ret_t rmw_get_publishers_info_by_topic(const rmw_node_t* node, rcutils_allocator_t* allocator,
                                           const char* topic_name, bool no_mangle,
                                           rmw_topic_endpoint_info_array_t* publishers_info) {
  return endpoints_info(node, allocator, topic_name, EndpointKind::Publisher, no_mangle,
                        publishers_info, __func__);
}

rmw_ret_t rmw_get_subscriptions_info_by_topic(const rmw_node_t* node,
                                              rcutils_allocator_t* allocator,
                                              const char* topic_name, bool no_mangle,
                                              rmw_topic_endpoint_info_array_t* subscriptions_info) {
  return endpoints_info(node, allocator, topic_name, EndpointKind::Subscription, no_mangle,
                        subscriptions_info, __func__);
}

}  // extern "C"
