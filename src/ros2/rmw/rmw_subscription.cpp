// rmw_baton_cpp: subscriptions. A take reads the CDR sample where it lies in the publisher's
// shared memory and decodes it into rclpy's message; a sample that does not decode (hostile or
// corrupt publisher) is dropped with a warning and the next one is tried.
#include <rcutils/logging_macros.h>
#include <rcutils/time.h>
#include <rmw/rmw.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "endpoint.hpp"
#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "loan_endpoint.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

Checked<SubscriptionImpl> subscription_impl(const rmw_subscription_t* subscription,
                                            const char* function) {
  return checked_impl<SubscriptionImpl>(subscription, function, "subscription");
}

void fill_info(const SubscriptionImpl& s, const baton::RawSample& sample,
               rmw_message_info_t* info) {
  if (info == nullptr) return;
  *info = rmw_get_zero_initialized_message_info();
  rcutils_time_point_value_t now = 0;
  (void)rcutils_system_time_now(&now);
  info->received_timestamp = now;
  info->source_timestamp = sample.source_timestamp_ns();  // 0 from a publisher that does not stamp
  info->publication_sequence_number = sample.sequence();
  info->reception_sequence_number = RMW_MESSAGE_INFO_SEQUENCE_NUMBER_UNSUPPORTED;
  info->publisher_gid.implementation_identifier = IDENTIFIER;
  publisher_gid(s.topic_key, sample.publisher_slot(), sample.publisher_generation(),
                info->publisher_gid.data);
  info->from_intra_process = false;
}

// True if a publisher of the subscription's own context sent `sample` (its gid is the
// publisher's, see gid.hpp). Samples from DDS never are: a context's own samples stay in shared
// memory.
bool from_own_context(const SubscriptionImpl& s, const baton::RawSample& sample) {
  uint8_t gid[RMW_GID_STORAGE_SIZE] = {};
  publisher_gid(s.topic_key, sample.publisher_slot(), sample.publisher_generation(), gid);
  return s.node->context->has_publisher(gid);
}

// The next sample the subscription may hand out, taken from its queue (shared memory first, then
// wire: DDS): one kept by subscription_ready first; samples of its own context (with
// ignore_local_publications), of QoS-incompatible publishers and those its content filter rejects
// are dropped on the way. Runs under s.mutex.
struct Next {
  std::optional<baton::RawSample> sample;    // from shared memory
  std::optional<std::vector<uint8_t>> wire;  // wire: from DDS
  rmw_ret_t error = RMW_RET_OK;              // a take that failed (error set)
  bool found() const { return sample || wire; }
};

Next next_sample(SubscriptionImpl& s) {
  Next n;
  if (s.stashed_sample || s.stashed_wire) {
    n.sample = std::move(s.stashed_sample);
    n.wire = std::move(s.stashed_wire);
    s.stashed_sample.reset();
    s.stashed_wire.reset();
    s.has_stash.store(false, std::memory_order_relaxed);
    return n;
  }
  s.bridge->next(
      [&](baton::RawSample&& sample) {
        if (s.ignore_local && from_own_context(s, sample)) return false;  // back to the pool
        // Not matched (incompatible QoS, qos_peers.hpp): a DDS reader would never see it either.
        if (s.qos_peers->incompatible(sample.publisher_slot(), sample.publisher_generation()))
          return false;
        if (s.filter && !s.filter->matches(std::span<const uint8_t>(
                            reinterpret_cast<const uint8_t*>(sample.data()), sample.size())))
          return false;  // filtered out: back to the pool
        n.sample = std::move(sample);
        return true;
      },
      [&](std::vector<uint8_t>&& bytes) {  // wire: DDS samples of foreign writers
        if (!s.filter || s.filter->matches(std::span<const uint8_t>(bytes))) {
          n.wire = std::move(bytes);
          return true;
        }
        recycle_wire_bytes(std::move(bytes));
        return false;
      },
      [&](baton::TakeError e) {
        set_error("rmw_take", std::string(baton::topic::to_string(e)) + " (at most " +
                                  std::to_string(baton::topic::MAX_LOANS_PER_SUBSCRIBER) +
                                  " loaned messages per subscription: return one first)");
        n.error = RMW_RET_ERROR;
        return true;  // the take reports it
      });
  return n;
}

// Takes samples until one is accepted by `use(bytes, sample)` (true) or none is left; `sample`
// is the shared-memory sample the bytes lie in (`use` may keep it), null for a DDS sample. A
// sample `use` rejects is dropped (it logged why); what next_sample drops, `use` never sees.
// Runs under s.mutex.
template <typename Use>
rmw_ret_t take_one(SubscriptionImpl& s, bool* taken, rmw_message_info_t* info, Use use) {
  const RearmAfterTake rearm{*s.node->context, &s};
  std::lock_guard<std::mutex> lock(s.mutex);
  *taken = false;
  while (true) {
    Next next = next_sample(s);
    if (next.error != RMW_RET_OK) return next.error;
    if (!next.found()) return RMW_RET_OK;
    if (next.wire) {  // wire
      const bool used = use(std::span<const uint8_t>(*next.wire), nullptr);
      recycle_wire_bytes(std::move(*next.wire));
      if (!used) continue;
      sample_arrived(s.events, 0);  // a DDS sample has no source timestamp yet: now
      fill_wire_info(info);
      *taken = true;
      return RMW_RET_OK;
    }
    baton::RawSample& sample = *next.sample;
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(sample.data()),
                                         sample.size());
    fill_info(s, sample, info);  // before `use`, which may move the sample away
    const int64_t published_at = sample.source_timestamp_ns();
    if (!use(bytes, &sample)) continue;
    sample_arrived(s.events, published_at);  // renews a finite deadline
    *taken = true;
    return RMW_RET_OK;
  }
}

}  // namespace

namespace baton::ros2::rmw {

bool subscription_ready(SubscriptionImpl& s) {
  if (s.has_stash.load(std::memory_order_relaxed)) return true;
  if (!s.filter_set.load(std::memory_order_relaxed)) return s.bridge->has_data();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.stashed_sample || s.stashed_wire) return true;
  Next next = next_sample(s);
  if (next.error != RMW_RET_OK) {
    rcutils_reset_error();  // the take will report it
    return true;
  }
  if (!next.found()) return false;
  s.stashed_sample = std::move(next.sample);
  s.stashed_wire = std::move(next.wire);
  s.has_stash.store(true, std::memory_order_relaxed);
  return true;
}

}  // namespace baton::ros2::rmw

namespace {

// Hands out the struct of one sample of a loanable type: in place in shared memory when it sits
// aligned (what rmw_baton_cpp publishers and native ros2::Publishers arrange), else as an aligned
// private copy, counted (a raw baton publisher may put the sample at offset 0; a DDS sample is in
// private memory anyway).
// Shared memory is not trusted: size, encapsulation and every bool are checked first. A struct of
// a loanable type holds no pointer, so a publisher that scribbles on it after these checks can
// change values, never make the reader touch memory outside the chunk.
// A loan of a viewable type (loan_layout.hpp): the C struct is decoded into private memory,
// except its primitive sequences, which point into the held chunk where they sit aligned
// (introspection_decode_view; a DDS sample is decoded in full). The decoder checks every length
// against the sample, which the port checked against the chunk.
rmw_ret_t take_viewed(SubscriptionImpl& s, const char* topic, void** loaned_message, bool* taken,
                      rmw_message_info_t* info, const char* function) {
  const IntrospectionType& type = s.type.members;
  bool out_of_memory = false;
  rmw_ret_t ret =
      take_one(s, taken, info, [&](std::span<const uint8_t> bytes, baton::RawSample* sample) {
        constexpr size_t ALIGN = alignof(std::max_align_t);
        void* msg = std::aligned_alloc(ALIGN, (type.size_of() + ALIGN - 1) / ALIGN * ALIGN);
        if (msg != nullptr && !type.init(msg)) {
          std::free(msg);
          msg = nullptr;
        }
        if (msg == nullptr) {
          out_of_memory = true;
          return true;  // stop; reported below
        }
        auto borrowed = std::make_shared<std::vector<void*>>();
        SubscriptionLoans::Held held;
        held.decoded = {msg, [type, borrowed](void* m) {
                          unborrow(*borrowed);
                          type.fini(m);
                          std::free(m);
                        }};
        auto st = sample != nullptr ? introspection_decode_view(type, bytes, msg, *borrowed)
                                    : introspection_decode(type, bytes, msg);
        if (!st) {
          RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "dropped a sample on '%s': %s", topic,
                                 st.error().detail.c_str());
          return false;  // `held` frees the struct
        }
        if (!borrowed->empty()) held.sample = std::move(*sample);  // the chunk the views point into
        held.message = msg;
        ++s.loans.viewed;
        *loaned_message = msg;
        s.loans.outstanding.push_back(std::move(held));
        return true;
      });
  if (out_of_memory) {
    *taken = false;
    set_error(function, "out of memory for a loaned message");
    return RMW_RET_BAD_ALLOC;
  }
  return ret;
}

rmw_ret_t take_loaned(const rmw_subscription_t* subscription, void** loaned_message, bool* taken,
                      rmw_message_info_t* info, const char* function) {
  if (taken != nullptr) *taken = false;
  rmw_ret_t ret;
  SubscriptionImpl* s = loaning_endpoint<SubscriptionImpl>(subscription, function, "subscription",
                                                           &ret, /*viewable_too=*/true);
  if (s == nullptr) return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  if (*loaned_message != nullptr) {
    set_error(function, "loaned_message must point to a null pointer");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (!s->type.loan->loanable)
    return take_viewed(*s, subscription->topic_name, loaned_message, taken, info, function);
  const LoanLayout& layout = *s->type.loan;
  bool out_of_memory = false;
  auto drop = [&](const char* why) {
    RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "dropped a sample on '%s': %s",
                           subscription->topic_name, why);
    return false;
  };
  ret = take_one(*s, taken, info, [&](std::span<const uint8_t> bytes, baton::RawSample* sample) {
    if (bytes.size() < 4 + layout.cdr_size) return drop("shorter than the type's CDR size");
    if (bytes[0] != 0x00 || bytes[1] != 0x01) return drop("not little-endian CDR (00 01 header)");
    const uint8_t* body = bytes.data() + 4;
    SubscriptionLoans::Held held;
    if (sample != nullptr && sample->capacity() >= 4 + layout.c_size &&
        reinterpret_cast<uintptr_t>(body) % layout.align == 0) {
      if (!bools_valid(layout, body)) return drop("a bool member is neither 0 nor 1");
      held.message = const_cast<uint8_t*>(body);  // read-only by contract (rmw_take_loaned_message)
      held.sample = std::move(*sample);
      ++s->loans.in_place;
    } else {
      const size_t align = std::max<size_t>(layout.align, alignof(std::max_align_t));
      void* copy = std::aligned_alloc(align, (layout.c_size + align - 1) / align * align);
      if (copy == nullptr) {
        out_of_memory = true;
        return true;  // stop; reported below
      }
      held.copy.reset(copy);
      std::memset(copy, 0, layout.c_size);
      std::memcpy(copy, body, layout.cdr_size);
      if (!bools_valid(layout, static_cast<uint8_t*>(copy)))
        return drop("a bool member is neither 0 nor 1");
      held.message = copy;
      if (s->loans.copies++ == 0)
        RCUTILS_LOG_INFO_NAMED("rmw_baton_cpp",
                               "loaned messages on '%s' are copied when a sample is not aligned "
                               "in shared memory (from a non-rmw publisher or DDS)",
                               subscription->topic_name);
    }
    *loaned_message = held.message;
    s->loans.outstanding.push_back(std::move(held));
    return true;
  });
  if (out_of_memory) {
    *taken = false;
    set_error(function, "out of memory for a loaned message copy");
    return RMW_RET_BAD_ALLOC;
  }
  return ret;
}

rmw_ret_t take_message(const rmw_subscription_t* subscription, void* ros_message, bool* taken,
                       rmw_message_info_t* info, const char* function) {
  auto s = subscription_impl(subscription, function);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return take_one(*s, taken, info, [&](std::span<const uint8_t> bytes, baton::RawSample*) {
    auto st = introspection_decode(s->type.members, bytes, ros_message);
    if (!st)
      RCUTILS_LOG_WARN_NAMED("rmw_baton_cpp", "dropped a sample on '%s': %s",
                             subscription->topic_name, st.error().detail.c_str());
    return static_cast<bool>(st);
  });
}

rmw_ret_t take_serialized(const rmw_subscription_t* subscription,
                          rmw_serialized_message_t* serialized, bool* taken,
                          rmw_message_info_t* info, const char* function) {
  auto s = subscription_impl(subscription, function);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  bool failed = false;
  rmw_ret_t ret = take_one(*s, taken, info, [&](std::span<const uint8_t> bytes, baton::RawSample*) {
    if (serialized->buffer_capacity < bytes.size() &&
        rcutils_uint8_array_resize(serialized, bytes.size()) != RCUTILS_RET_OK) {
      failed = true;
      return true;  // stop; reported below
    }
    std::memcpy(serialized->buffer, bytes.data(), bytes.size());
    serialized->buffer_length = bytes.size();
    return true;
  });
  if (failed) {
    *taken = false;
    set_error(function, "out of memory for a serialized message");
    return RMW_RET_BAD_ALLOC;
  }
  return ret;
}

}  // namespace

extern "C" {

rmw_subscription_t* rmw_create_subscription(
    const rmw_node_t* node, const rosidl_message_type_support_t* type_support,
    const char* topic_name, const rmw_qos_profile_t* qos_policies,
    const rmw_subscription_options_t* subscription_options) {
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription_options, nullptr);
  auto impl =
      new_endpoint<SubscriptionImpl>(node, type_support, topic_name, qos_policies, __func__);
  if (!impl) return nullptr;
  // A bad filter fails the creation before anything is opened (as rmw_fastrtps_cpp does).
  const auto* cft = subscription_options->content_filter_options;
  if (cft != nullptr && set_content_filter(*impl, *cft, __func__) != RMW_RET_OK) return nullptr;
  NodeImpl* node_impl = impl->node;
  impl->topic_key = topic_key(topic_name);
  impl->ignore_local = subscription_options->ignore_local_publications;
  auto sub =
      open_subscription(*node_impl->context->context, topic_name, impl->type.info, impl->qos.port);
  if (!sub) {
    set_error(__func__, sub.error());
    return nullptr;
  }
  impl->subscription = std::move(*sub);
  auto& port = impl->subscription->port();
  uint8_t gid[RMW_GID_STORAGE_SIZE] = {};
  subscription_gid(impl->topic_key, port.slot(),
                   port.topic().subscriber_slot(port.slot())->generation.load(), gid);
  impl->graph_handle = register_endpoint(*node_impl, baton::graph::EndpointKind::Subscription,
                                         topic_name, impl->type.info, impl->qos.graph, gid);
  impl->qos_peers = open_qos_peers(*node_impl, baton::graph::EndpointKind::Subscription, topic_name,
                                   qos_in_effect(impl->qos.actual));
  start_qos_clocks(impl->events, qos_in_effect(impl->qos.actual), /*slot=*/nullptr);
  auto bridge = open_subscription_bridge(*impl, topic_name);  // wire: + the DDS reader
  if (!bridge) {
    set_error(__func__, bridge.error());
    return nullptr;
  }
  impl->bridge = std::move(*bridge);
  const bool filtered = impl->filter != nullptr;
  auto* handle = new_handle(std::move(impl), &rmw_subscription_t::topic_name, topic_name, __func__);
  if (handle == nullptr) return nullptr;
  handle->options = *subscription_options;
  // rcl's options, which it may free: rmw_subscription_get_content_filter answers instead.
  handle->options.content_filter_options = nullptr;
  const LoanLayout& loan = *static_cast<SubscriptionImpl*>(handle->data)->type.loan;
  handle->can_loan_messages = loan.loanable || loan.viewable;
  handle->is_cft_enabled = filtered;
  return handle;
}

rmw_ret_t rmw_destroy_subscription(rmw_node_t* node, rmw_subscription_t* subscription) {
  if (const rmw_ret_t ret = check_handle(node, __func__, "node"); ret != RMW_RET_OK) return ret;
  auto s = subscription_impl(subscription, __func__);
  if (!s) return s.ret;
  delete_handle(subscription, s.impl, &rmw_subscription_t::topic_name);
  return RMW_RET_OK;
}

rmw_ret_t rmw_take(const rmw_subscription_t* subscription, void* ros_message, bool* taken,
                   rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  return take_message(subscription, ros_message, taken, nullptr, __func__);
}

rmw_ret_t rmw_take_with_info(const rmw_subscription_t* subscription, void* ros_message, bool* taken,
                             rmw_message_info_t* message_info,
                             rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  return take_message(subscription, ros_message, taken, message_info, __func__);
}

rmw_ret_t rmw_take_sequence(const rmw_subscription_t* subscription, size_t count,
                            rmw_message_sequence_t* message_sequence,
                            rmw_message_info_sequence_t* message_info_sequence, size_t* taken,
                            rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  RMW_CHECK_ARGUMENT_FOR_NULL(message_sequence, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info_sequence, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  if (count == 0 || count > message_sequence->capacity || count > message_info_sequence->capacity) {
    set_error(__func__, "count is 0 or larger than the sequences' capacity");
    return RMW_RET_INVALID_ARGUMENT;
  }
  *taken = 0;
  for (size_t i = 0; i < count; ++i) {
    bool one = false;
    rmw_ret_t ret = take_message(subscription, message_sequence->data[i], &one,
                                 &message_info_sequence->data[i], __func__);
    if (ret != RMW_RET_OK) return ret;
    if (!one) break;
    ++*taken;
  }
  message_sequence->size = *taken;
  message_info_sequence->size = *taken;
  return RMW_RET_OK;
}

rmw_ret_t rmw_take_serialized_message(const rmw_subscription_t* subscription,
                                      rmw_serialized_message_t* serialized_message, bool* taken,
                                      rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  return take_serialized(subscription, serialized_message, taken, nullptr, __func__);
}

rmw_ret_t rmw_take_serialized_message_with_info(const rmw_subscription_t* subscription,
                                                rmw_serialized_message_t* serialized_message,
                                                bool* taken, rmw_message_info_t* message_info,
                                                rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  return take_serialized(subscription, serialized_message, taken, message_info, __func__);
}

rmw_ret_t rmw_subscription_count_matched_publishers(const rmw_subscription_t* subscription,
                                                    size_t* publisher_count) {
  auto s = subscription_impl(subscription, __func__);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(publisher_count, RMW_RET_INVALID_ARGUMENT);
  // Publishers with an incompatible QoS are not matched (qos_peers.hpp).
  *publisher_count = without(s->subscription->publisher_count(), s->qos_peers->incompatible_now()) +
                     s->bridge->foreign_writers();  // wire
  return RMW_RET_OK;
}

rmw_ret_t rmw_subscription_get_actual_qos(const rmw_subscription_t* subscription,
                                          rmw_qos_profile_t* qos) {
  auto s = subscription_impl(subscription, __func__);
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = qos_in_effect(s->qos.actual);
  return RMW_RET_OK;
}

// --- loans (fixed-size types only: see loan_layout.hpp) --------------------------------------

rmw_ret_t rmw_take_loaned_message(const rmw_subscription_t* subscription, void** loaned_message,
                                  bool* taken, rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  return take_loaned(subscription, loaned_message, taken, nullptr, __func__);
}

rmw_ret_t rmw_take_loaned_message_with_info(const rmw_subscription_t* subscription,
                                            void** loaned_message, bool* taken,
                                            rmw_message_info_t* message_info,
                                            rmw_subscription_allocation_t* allocation) {
  (void)allocation;
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  return take_loaned(subscription, loaned_message, taken, message_info, __func__);
}

rmw_ret_t rmw_return_loaned_message_from_subscription(const rmw_subscription_t* subscription,
                                                      void* loaned_message) {
  rmw_ret_t ret;
  SubscriptionImpl* s = loaning_endpoint<SubscriptionImpl>(subscription, __func__, "subscription",
                                                           &ret, /*viewable_too=*/true);
  if (s == nullptr) return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  std::lock_guard<std::mutex> lock(s->mutex);
  auto& loans = s->loans.outstanding;
  for (auto it = loans.begin(); it != loans.end(); ++it) {
    if (it->message == loaned_message) {
      loans.erase(it);  // releases the sample (or frees the copy)
      return RMW_RET_OK;
    }
  }
  set_error(__func__, std::string("not a message loaned by this subscription on '") +
                          subscription->topic_name + "' (already returned?)");
  return RMW_RET_ERROR;  // rmw.h: INVALID_ARGUMENT is for a null argument only
}

}  // extern "C"
