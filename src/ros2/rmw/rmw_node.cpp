// rmw_baton_cpp: nodes, their graph guard conditions, and guard conditions.
#include <rmw/rmw.h>
#include <rmw/validate_full_topic_name.h>
#include <rmw/validate_namespace.h>
#include <rmw/validate_node_name.h>

#include <algorithm>
#include <new>

#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

namespace {

// One of librmw's validators: `validate(name, &result, &index)`, `VALID` its valid result,
// `describe(result)` the reason.
template <typename Validate, typename Describe>
rmw_ret_t check_name(const char* name, const char* function, const char* what, Validate validate,
                     int valid, Describe describe) {
  if (name == nullptr) {
    set_error(function, std::string(what) + " is null");
    return RMW_RET_INVALID_ARGUMENT;
  }
  int result = valid;
  size_t index = 0;
  if (validate(name, &result, &index) != RMW_RET_OK) {
    set_error(function, std::string(what) + " '" + name + "' could not be validated");
    return RMW_RET_ERROR;
  }
  if (result == valid) return RMW_RET_OK;
  const char* why = describe(result);
  set_error(function, std::string(what) + " '" + name +
                          "' is invalid: " + (why != nullptr ? why : "unknown reason") +
                          " (at index " + std::to_string(index) + ")");
  return RMW_RET_INVALID_ARGUMENT;
}

}  // namespace

rmw_ret_t check_topic_name(const char* name, const char* function, const char* what) {
  return check_name(name, function, what, rmw_validate_full_topic_name, RMW_TOPIC_VALID,
                    rmw_full_topic_name_validation_result_string);
}

rmw_ret_t check_node_name(const char* name, const char* function, const char* what) {
  return check_name(name, function, what, rmw_validate_node_name, RMW_NODE_NAME_VALID,
                    rmw_node_name_validation_result_string);
}

rmw_ret_t check_namespace(const char* namespace_, const char* function, const char* what) {
  return check_name(namespace_, function, what, rmw_validate_namespace, RMW_NAMESPACE_VALID,
                    rmw_namespace_validation_result_string);
}

}  // namespace baton::ros2::rmw

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

ContextImpl* context_impl(const rmw_context_t* context) {
  return reinterpret_cast<ContextImpl*>(context->impl);
}

}  // namespace

extern "C" {

rmw_node_t* rmw_create_node(rmw_context_t* context, const char* name, const char* namespace_) {
  if (check_handle(context, __func__, "context") != RMW_RET_OK) return nullptr;
  ContextImpl* ctx = context_impl(context);
  if (ctx == nullptr || ctx->shut_down) {
    set_error(__func__, "context is shut down");
    return nullptr;
  }
  if (check_node_name(name, __func__, "node name") != RMW_RET_OK ||
      check_namespace(namespace_, __func__, "node namespace") != RMW_RET_OK)
    return nullptr;
  auto* impl = new (std::nothrow) NodeImpl();
  auto* node = new (std::nothrow) rmw_node_t();
  if (impl == nullptr || node == nullptr) {
    delete impl;
    delete node;
    set_error(__func__, "out of memory");
    return nullptr;
  }
  impl->context = ctx;
  impl->node = std::make_unique<baton::Node>(ctx->context, name, namespace_);
  impl->wire = open_node_wire(*ctx, namespace_, name);  // wire: ros_discovery_info
  impl->graph_guard_handle.implementation_identifier = IDENTIFIER;
  impl->graph_guard_handle.data = &impl->graph_guard;
  impl->graph_guard_handle.context = context;
  node->implementation_identifier = IDENTIFIER;
  node->data = impl;
  node->name = copy_string(name);
  node->namespace_ = copy_string(namespace_);
  node->context = context;
  {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    ctx->nodes.push_back(impl);
  }
  ctx->trigger_graph_guards();
  return node;
}

rmw_ret_t rmw_destroy_node(rmw_node_t* node) {
  auto impl = checked_impl<NodeImpl>(node, __func__, "node");
  if (!impl) return impl.ret;
  ContextImpl* ctx = impl->context;
  bool orphaned = false;
  {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    std::erase(ctx->nodes, impl.impl);
    std::lock_guard<std::mutex> services_lock(impl->services_mutex);
    if (!impl->services.empty()) {
      // Services or clients outlive their node (a client-library leak): they leave the graph
      // now, and the context releases their shared memory when it is finalized
      // (ContextImpl::orphans).
      for (auto& [endpoint, leaked] : impl->services) leaked.leave_graph();
      orphaned = true;
    }
  }
  if (orphaned) {
    impl->node.reset();  // the node leaves the graph
    std::lock_guard<std::mutex> lock(ctx->mutex);
    ctx->orphans.emplace_back(impl.impl);
  } else {
    delete impl.impl;
  }
  delete[] node->name;
  delete[] node->namespace_;
  delete node;
  ctx->trigger_graph_guards();
  return RMW_RET_OK;
}

const rmw_guard_condition_t* rmw_node_get_graph_guard_condition(const rmw_node_t* node) {
  if (check_handle(node, __func__, "node") != RMW_RET_OK) return nullptr;
  return &static_cast<NodeImpl*>(node->data)->graph_guard_handle;
}

rmw_guard_condition_t* rmw_create_guard_condition(rmw_context_t* context) {
  if (check_handle(context, __func__, "context") != RMW_RET_OK) return nullptr;
  auto* impl = new (std::nothrow) GuardConditionImpl();
  auto* gc = new (std::nothrow) rmw_guard_condition_t();
  if (impl == nullptr || gc == nullptr) {
    delete impl;
    delete gc;
    set_error(__func__, "out of memory");
    return nullptr;
  }
  gc->implementation_identifier = IDENTIFIER;
  gc->data = impl;
  gc->context = context;
  return gc;
}

rmw_ret_t rmw_destroy_guard_condition(rmw_guard_condition_t* guard_condition) {
  if (const rmw_ret_t ret = check_handle(guard_condition, __func__, "guard condition");
      ret != RMW_RET_OK)
    return ret;
  delete static_cast<GuardConditionImpl*>(guard_condition->data);
  delete guard_condition;
  return RMW_RET_OK;
}

rmw_ret_t rmw_trigger_guard_condition(const rmw_guard_condition_t* guard_condition) {
  if (const rmw_ret_t ret = check_handle(guard_condition, __func__, "guard condition");
      ret != RMW_RET_OK)
    return ret;
  static_cast<GuardConditionImpl*>(guard_condition->data)->guard->trigger();
  return RMW_RET_OK;
}

}  // extern "C"
