// rmw_baton_cpp: publishers. A message is CDR-encoded straight into a baton loan (one pass to
// size it, one to write it) and published on the baton topic of the same name.
#include <rcutils/logging_macros.h>
#include <rmw/rmw.h>

#include <new>

#include "endpoint.hpp"
#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

// Loans `size` bytes, lets `fill` write them, publishes. Sets the rmw error on failure.
template <typename Fill>
rmw_ret_t publish_bytes(PublisherImpl& p, uint64_t size, const char* function, Fill fill) {
  std::lock_guard<std::mutex> lock(p.mutex);
  auto loan = p.publisher.loan(size);
  if (!loan) {
    set_error(function, "no loan of " + std::to_string(size) + " bytes on '" +
                            p.publisher.topic_name() +
                            "': " + std::string(baton::topic::to_string(loan.error())));
    return RMW_RET_ERROR;
  }
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(loan->data()), size);
  if (!fill(bytes)) return RMW_RET_ERROR;
  // wire: the DDS copy, taken before publish consumes the loan (only for foreign readers).
  auto wired = p.wire ? wire_write(*p.wire, bytes) : baton::Status<std::string>(baton::Ok{});
  auto r = p.publisher.publish(std::move(*loan), size);
  if (!r) {
    set_error(function, "publish on '" + p.publisher.topic_name() +
                            "': " + std::string(baton::topic::to_string(r.error())));
    return RMW_RET_ERROR;
  }
  if (!wired) {
    set_error(function, p.publisher.topic_name() + ": " + wired.error());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

PublisherImpl* publisher_impl(const rmw_publisher_t* publisher, const char* function) {
  if (!check_handle(publisher, function, "publisher")) return nullptr;
  return static_cast<PublisherImpl*>(publisher->data);
}

}  // namespace

extern "C" {

rmw_publisher_t* rmw_create_publisher(const rmw_node_t* node,
                                      const rosidl_message_type_support_t* type_support,
                                      const char* topic_name, const rmw_qos_profile_t* qos_profile,
                                      const rmw_publisher_options_t* publisher_options) {
  RMW_CHECK_ARGUMENT_FOR_NULL(publisher_options, nullptr);
  auto impl = new_endpoint<PublisherImpl>(node, type_support, topic_name, qos_profile, __func__);
  if (!impl) return nullptr;
  NodeImpl* node_impl = impl->node;
  auto pub =
      open_publisher(*node_impl->context->context, topic_name, impl->type.info, impl->qos.port);
  if (!pub) {
    set_error(__func__, pub.error());
    return nullptr;
  }
  impl->publisher = std::move(*pub);
  const auto& port = impl->publisher.port();
  impl->gid.implementation_identifier = IDENTIFIER;
  publisher_gid(topic_key(topic_name), port.slot(), port.generation(), impl->gid.data);
  impl->graph_handle =
      register_endpoint(*node_impl, baton::graph::EndpointKind::Publisher, topic_name,
                        impl->type.info, impl->qos.graph, impl->gid.data);
  auto wire = open_publisher_wire(*impl, topic_name);  // wire: DDS writer
  if (!wire) {
    set_error(__func__, wire.error());
    return nullptr;
  }
  impl->wire = std::move(*wire);
  auto* handle = new_handle(std::move(impl), &rmw_publisher_t::topic_name, topic_name, __func__);
  if (handle == nullptr) return nullptr;
  handle->options = *publisher_options;
  handle->can_loan_messages = false;
  return handle;
}

rmw_ret_t rmw_destroy_publisher(rmw_node_t* node, rmw_publisher_t* publisher) {
  if (!check_handle(node, __func__, "node")) return RMW_RET_INVALID_ARGUMENT;
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  delete_handle(publisher, p, &rmw_publisher_t::topic_name);
  return RMW_RET_OK;
}

rmw_ret_t rmw_publish(const rmw_publisher_t* publisher, const void* ros_message,
                      rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  auto size = introspection_encoded_size(*p->type.members, ros_message);
  if (!size) {
    set_error(__func__, size.error().detail);
    return RMW_RET_ERROR;
  }
  return publish_bytes(*p, *size, __func__, [&](std::span<uint8_t> out) {
    auto used = introspection_encode(*p->type.members, ros_message, out);
    if (!used) set_error(__func__, used.error().detail);
    return static_cast<bool>(used);
  });
}

rmw_ret_t rmw_publish_serialized_message(const rmw_publisher_t* publisher,
                                         const rmw_serialized_message_t* serialized_message,
                                         rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  const size_t n = serialized_message->buffer_length;
  // Subscribers decode (and validate) every sample; refuse here only what no one could read.
  if (n < 4 || serialized_message->buffer == nullptr || serialized_message->buffer[0] != 0 ||
      serialized_message->buffer[1] != 1) {
    set_error(__func__, "not a little-endian CDR sample (needs the 00 01 xx xx header)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return publish_bytes(*p, n, __func__, [&](std::span<uint8_t> out) {
    std::memcpy(out.data(), serialized_message->buffer, n);
    return true;
  });
}

rmw_ret_t rmw_get_gid_for_publisher(const rmw_publisher_t* publisher, rmw_gid_t* gid) {
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  RMW_CHECK_ARGUMENT_FOR_NULL(gid, RMW_RET_INVALID_ARGUMENT);
  *gid = p->gid;
  return RMW_RET_OK;
}

rmw_ret_t rmw_compare_gids_equal(const rmw_gid_t* gid1, const rmw_gid_t* gid2, bool* result) {
  RMW_CHECK_ARGUMENT_FOR_NULL(gid1, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(gid2, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(result, RMW_RET_INVALID_ARGUMENT);
  if (gid1->implementation_identifier != IDENTIFIER ||
      gid2->implementation_identifier != IDENTIFIER) {
    set_error(__func__, "gid belongs to another rmw implementation");
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION;
  }
  *result = std::memcmp(gid1->data, gid2->data, RMW_GID_STORAGE_SIZE) == 0;
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_count_matched_subscriptions(const rmw_publisher_t* publisher,
                                                    size_t* subscription_count) {
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription_count, RMW_RET_INVALID_ARGUMENT);
  *subscription_count =
      p->publisher.subscription_count() + wire_foreign_readers(p->wire.get());  // wire
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_get_actual_qos(const rmw_publisher_t* publisher, rmw_qos_profile_t* qos) {
  PublisherImpl* p = publisher_impl(publisher, __func__);
  if (p == nullptr) return RMW_RET_INVALID_ARGUMENT;
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = p->qos.actual;
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_assert_liveliness(const rmw_publisher_t* publisher) {
  // Liveliness is not enforced (see qos_map.hpp): asserting it always succeeds.
  return publisher_impl(publisher, __func__) != nullptr ? RMW_RET_OK : RMW_RET_INVALID_ARGUMENT;
}

rmw_ret_t rmw_publisher_wait_for_all_acked(const rmw_publisher_t* publisher,
                                           rmw_time_t wait_timeout) {
  (void)wait_timeout;
  // A published sample is in shared memory, readable by every matched subscription at once:
  // there is nothing left to acknowledge.
  return publisher_impl(publisher, __func__) != nullptr ? RMW_RET_OK : RMW_RET_INVALID_ARGUMENT;
}

}  // extern "C"
