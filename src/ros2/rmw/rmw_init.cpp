// rmw_baton_cpp: identity, init options, context (init / shutdown / fini), features, logging.
#include <rcutils/logging.h>
#include <rcutils/strdup.h>
#include <rmw/features.h>
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>

#include <chrono>
#include <cstring>
#include <new>

#include "baton/common/thread_name.hpp"
#include "domain.hpp"
#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

const char* const IDENTIFIER = "rmw_baton_cpp";

void set_error(const char* function, const std::string& what) {
  const std::string msg = std::string(function) + ": " + what;
  RMW_SET_ERROR_MSG(msg.c_str());
}

char* copy_string(const std::string& s) {
  char* out = new (std::nothrow) char[s.size() + 1];
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

ContextImpl::~ContextImpl() { release_orphans(); }

namespace {

std::array<uint8_t, RMW_GID_STORAGE_SIZE> gid_key(const uint8_t* gid_data) {
  std::array<uint8_t, RMW_GID_STORAGE_SIZE> key{};
  std::memcpy(key.data(), gid_data, key.size());
  return key;
}

}  // namespace

void ContextImpl::add_publisher(const rmw_gid_t& gid) {
  std::lock_guard<std::mutex> lock(publishers_mutex);
  publishers.insert(gid_key(gid.data));
}

void ContextImpl::remove_publisher(const rmw_gid_t& gid) {
  std::lock_guard<std::mutex> lock(publishers_mutex);
  publishers.erase(gid_key(gid.data));
}

bool ContextImpl::has_publisher(const uint8_t* gid_data) {
  std::lock_guard<std::mutex> lock(publishers_mutex);
  return publishers.contains(gid_key(gid_data));
}

void ContextImpl::release_orphans() {
  for (auto& node : orphans) {
    std::lock_guard<std::mutex> lock(node->services_mutex);
    for (auto& [impl, leaked] : node->services) leaked.release();
  }
  orphans.clear();
}

CallbackListener& ContextImpl::callbacks() {
  std::lock_guard<std::mutex> lock(listener_mutex);
  if (!listener_owner) {
    listener_owner = std::make_unique<CallbackListener>(*this);
    listener.store(listener_owner.get(), std::memory_order_release);
  }
  return *listener_owner;
}

void ContextImpl::start_watcher() {
  watcher = std::thread([this] {
    name_this_thread("rmw-graph");
    std::uint64_t seen = 0, seen_dds = 0;
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
      // 100 ms: graph changes reach rcl's graph waits within that (the registry has no wake-up;
      // the DDS graph cache is pulled, so no rmw code runs on CycloneDDS's threads).
      stop_cv.wait_for(lock, std::chrono::milliseconds(100));
      if (stopping) break;
      lock.unlock();
      std::uint64_t epoch = seen;
      if (auto g = context->graph()) epoch = (*g)->epoch();
      const std::uint64_t dds = wire_graph_generation(wire.get());  // wire: DDS peers' graph
      lock.lock();
      if (epoch != seen || dds != seen_dds) {
        seen = epoch;
        seen_dds = dds;
        for (NodeImpl* n : nodes) n->graph_guard.guard->trigger();
        shutdown_wake->graph_changed();  // incompatible-QoS events of any wait
      }
    }
  });
}

void ContextImpl::stop_watcher() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  stop_cv.notify_all();
  if (watcher.joinable()) watcher.join();
}

void ContextImpl::trigger_graph_guards() {
  std::lock_guard<std::mutex> lock(mutex);
  for (NodeImpl* n : nodes) n->graph_guard.guard->trigger();
  shutdown_wake->graph_changed();
}

}  // namespace baton::ros2::rmw

namespace {

// A context rmw_init made: a zero-initialized one is INVALID_ARGUMENT (not another
// implementation's), as init.h documents for rmw_shutdown and rmw_context_fini.
rmw_ret_t check_context(const rmw_context_t* context, const char* function) {
  if (context != nullptr && context->implementation_identifier == nullptr) {
    baton::ros2::rmw::set_error(function, "context is zero-initialized (never passed to rmw_init)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  const rmw_ret_t ret = baton::ros2::rmw::check_handle(context, function, "context");
  if (ret == RMW_RET_OK && context->impl == nullptr) {
    baton::ros2::rmw::set_error(function, "context has no implementation data");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return ret;
}

}  // namespace

using baton::ros2::rmw::ContextImpl;
using baton::ros2::rmw::IDENTIFIER;
using baton::ros2::rmw::set_error;

extern "C" {

const char* rmw_get_implementation_identifier(void) { return IDENTIFIER; }

const char* rmw_get_serialization_format(void) { return "cdr"; }

bool rmw_feature_supported(rmw_feature_t feature) {
  // Sequence numbers: publication_sequence_number is the baton ring sequence of the sample.
  return feature == RMW_FEATURE_MESSAGE_INFO_PUBLICATION_SEQUENCE_NUMBER;
}

rmw_ret_t rmw_set_log_severity(rmw_log_severity_t severity) {
  // baton logs nothing on its own; the rmw's own messages go through rcutils.
  return rcutils_logging_set_logger_level("rmw_baton_cpp", static_cast<int>(severity)) ==
                 RCUTILS_RET_OK
             ? RMW_RET_OK
             : RMW_RET_ERROR;
}

rmw_ret_t rmw_init_options_init(rmw_init_options_t* init_options, rcutils_allocator_t allocator) {
  RMW_CHECK_ARGUMENT_FOR_NULL(init_options, RMW_RET_INVALID_ARGUMENT);
  if (!rcutils_allocator_is_valid(&allocator)) {
    set_error(__func__, "invalid allocator");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (init_options->implementation_identifier != nullptr) {
    set_error(__func__, "init options already initialized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  init_options->instance_id = 0;
  init_options->implementation_identifier = IDENTIFIER;
  init_options->allocator = allocator;
  init_options->impl = nullptr;
  init_options->enclave = nullptr;
  init_options->domain_id = RMW_DEFAULT_DOMAIN_ID;
  init_options->security_options = rmw_get_default_security_options();
  init_options->discovery_options = rmw_get_zero_initialized_discovery_options();
  return rmw_discovery_options_init(&init_options->discovery_options, 0, &allocator);
}

rmw_ret_t rmw_init_options_copy(const rmw_init_options_t* src, rmw_init_options_t* dst) {
  RMW_CHECK_ARGUMENT_FOR_NULL(src, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(dst, RMW_RET_INVALID_ARGUMENT);
  if (src->implementation_identifier == nullptr) {
    set_error(__func__, "source options are not initialized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (src->implementation_identifier != IDENTIFIER) {
    set_error(__func__, "source options belong to another rmw implementation");
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION;
  }
  if (dst->implementation_identifier != nullptr) {
    set_error(__func__, "destination options already initialized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  rcutils_allocator_t alloc = src->allocator;
  rcutils_allocator_t* allocator = &alloc;
  rmw_init_options_t tmp = *src;
  tmp.enclave = nullptr;
  tmp.security_options = rmw_get_zero_initialized_security_options();
  tmp.discovery_options = rmw_get_zero_initialized_discovery_options();
  if (src->enclave != nullptr) {
    tmp.enclave = rcutils_strdup(src->enclave, *allocator);
    if (tmp.enclave == nullptr) {
      set_error(__func__, "out of memory copying the enclave");
      return RMW_RET_BAD_ALLOC;
    }
  }
  rmw_ret_t ret =
      rmw_security_options_copy(&src->security_options, allocator, &tmp.security_options);
  if (ret == RMW_RET_OK)
    ret = rmw_discovery_options_copy(&src->discovery_options, allocator, &tmp.discovery_options);
  if (ret != RMW_RET_OK) {
    allocator->deallocate(tmp.enclave, allocator->state);
    (void)rmw_security_options_fini(&tmp.security_options, allocator);
    return ret;
  }
  *dst = tmp;
  return RMW_RET_OK;
}

rmw_ret_t rmw_init_options_fini(rmw_init_options_t* init_options) {
  RMW_CHECK_ARGUMENT_FOR_NULL(init_options, RMW_RET_INVALID_ARGUMENT);
  if (init_options->implementation_identifier == nullptr) {
    set_error(__func__, "options are not initialized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (init_options->implementation_identifier != IDENTIFIER) {
    set_error(__func__, "options belong to another rmw implementation");
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION;
  }
  rcutils_allocator_t* allocator = &init_options->allocator;
  allocator->deallocate(init_options->enclave, allocator->state);
  rmw_ret_t ret = rmw_security_options_fini(&init_options->security_options, allocator);
  if (ret == RMW_RET_OK) ret = rmw_discovery_options_fini(&init_options->discovery_options);
  *init_options = rmw_get_zero_initialized_init_options();
  return ret;
}

rmw_ret_t rmw_init(const rmw_init_options_t* options, rmw_context_t* context) {
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(context, RMW_RET_INVALID_ARGUMENT);
  if (options->implementation_identifier == nullptr) {
    set_error(__func__, "options are zero-initialized (call rmw_init_options_init first)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (const rmw_ret_t ret = baton::ros2::rmw::check_handle(options, __func__, "options");
      ret != RMW_RET_OK)
    return ret;
  if (options->enclave == nullptr) {
    set_error(__func__, "options have no enclave (rcl sets \"/\" by default)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (context->implementation_identifier != nullptr) {
    set_error(__func__, "context already initialized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  rmw_context_t tmp = rmw_get_zero_initialized_context();
  tmp.instance_id = options->instance_id;
  tmp.implementation_identifier = IDENTIFIER;
  tmp.actual_domain_id = options->domain_id == RMW_DEFAULT_DOMAIN_ID ? 0u : options->domain_id;
  rmw_ret_t ret = rmw_init_options_copy(options, &tmp.options);
  if (ret != RMW_RET_OK) return ret;
  auto* impl = new (std::nothrow) ContextImpl();
  if (impl == nullptr) {
    (void)rmw_init_options_fini(&tmp.options);
    set_error(__func__, "out of memory");
    return RMW_RET_BAD_ALLOC;
  }
  // The domain is a baton namespace (domain.hpp): joined before the context names any segment.
  auto joined = baton::ros2::rmw::join_domain(tmp.actual_domain_id,
                                              options->discovery_options.automatic_discovery_range);
  if (!joined) {
    delete impl;
    (void)rmw_init_options_fini(&tmp.options);
    set_error(__func__, joined.error());
    return RMW_RET_ERROR;
  }
  impl->context = baton::Context::create();
  impl->wire = baton::ros2::rmw::open_context_wire(tmp.actual_domain_id,  // wire
                                                   tmp.options.discovery_options);
  impl->start_watcher();
  tmp.impl = reinterpret_cast<rmw_context_impl_t*>(impl);
  *context = tmp;
  return RMW_RET_OK;
}

rmw_ret_t rmw_shutdown(rmw_context_t* context) {
  if (const rmw_ret_t ret = check_context(context, __func__); ret != RMW_RET_OK) return ret;
  auto* impl = reinterpret_cast<ContextImpl*>(context->impl);
  if (impl->shut_down) return RMW_RET_OK;  // documented: a second shutdown is a no-op
  impl->stop_watcher();
  if (baton::ros2::rmw::CallbackListener* l = impl->listener.load(std::memory_order_acquire))
    l->stop();
  impl->shut_down = true;
  impl->context->shutdown();
  impl->shutdown_wake->shut_down();  // last: a woken wait finds the shutdown complete
  return RMW_RET_OK;
}

rmw_ret_t rmw_context_fini(rmw_context_t* context) {
  if (const rmw_ret_t ret = check_context(context, __func__); ret != RMW_RET_OK) return ret;
  auto* impl = reinterpret_cast<ContextImpl*>(context->impl);
  if (!impl->shut_down) {
    set_error(__func__, "context must be shut down (rmw_shutdown) before it is finalized");
    return RMW_RET_INVALID_ARGUMENT;
  }
  delete impl;  // before leaving: the context's last segments go by the domain's names
  baton::ros2::rmw::leave_domain();
  rmw_ret_t ret = rmw_init_options_fini(&context->options);
  *context = rmw_get_zero_initialized_context();
  return ret;
}

}  // extern "C"
