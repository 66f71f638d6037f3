// rmw_baton_cpp: publishers. A message is CDR-encoded straight into a baton loan (one pass to
// size it, one to write it) and published on the baton topic of the same name.
#include <rcutils/logging_macros.h>
#include <rmw/rmw.h>

#include <cstring>
#include <new>

#include "endpoint.hpp"
#include "gid.hpp"
#include "introspection_cdr.hpp"
#include "loan_endpoint.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

// Publishes the `size` bytes at `offset` in `loan` (consumed either way) on shared memory and,
// for foreign readers, on DDS. Sets the rmw error on failure. The caller holds p.mutex.
rmw_ret_t publish_loan(PublisherImpl& p, baton::RawLoan&& loan, uint64_t size, uint64_t offset,
                       const char* function) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(loan.data()) + offset,
                                       size);
  // wire: the DDS copy (only for foreign readers) is taken before publish consumes the loan.
  const auto done = baton::wire::publish_bridged(
      p.wire.get(), [&] { return std::optional(bytes); },
      [&]() -> std::string {
        auto r = p.publisher.publish(std::move(loan), size, offset);
        if (r) return {};
        return "publish on '" + p.publisher.topic_name() +
               "': " + std::string(baton::topic::to_string(r.error()));
      });
  if (!done.shm_error.empty()) {
    set_error(function, done.shm_error);
    return RMW_RET_ERROR;
  }
  published(p.events);  // on shared memory: renews the deadline, asserts liveliness
  if (!done.wire_error.empty()) {
    set_error(function, p.publisher.topic_name() + ": " + done.wire_error);
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

// Where a CDR sample of this publisher's type starts in its chunk: LOAN_SAMPLE_OFFSET for a
// loanable type (so every subscriber can loan the struct in place, see loan_layout.hpp) and for a
// type with primitive sequences, published from C or C++ (the CDR body is then 8-aligned, so every
// primitive sequence lies aligned for its C type and a loaning C subscriber points it in place),
// else 0 (LoanLayout::aligned_sample).
uint64_t sample_offset(const PublisherImpl& p) {
  return p.type.loan->aligned_sample ? LOAN_SAMPLE_OFFSET : 0;
}

// Loans `size` bytes, lets `fill` write them, publishes. Sets the rmw error on failure.
template <typename Fill>
rmw_ret_t publish_bytes(PublisherImpl& p, uint64_t size, const char* function, Fill fill) {
  std::lock_guard<std::mutex> lock(p.mutex);
  const uint64_t offset = sample_offset(p);
  auto loan = p.publisher.loan(offset + size);
  if (!loan) {
    set_error(function, "no loan of " + std::to_string(size) + " bytes on '" +
                            p.publisher.topic_name() +
                            "': " + std::string(baton::topic::to_string(loan.error())));
    return RMW_RET_ERROR;
  }
  std::memset(loan->data(), 0, offset);
  if (!fill(std::span<uint8_t>(reinterpret_cast<uint8_t*>(loan->data()) + offset, size)))
    return RMW_RET_ERROR;
  return publish_loan(p, std::move(*loan), size, offset, function);
}

Checked<PublisherImpl> publisher_impl(const rmw_publisher_t* publisher, const char* function) {
  return checked_impl<PublisherImpl>(publisher, function, "publisher");
}

// The loan whose C struct is at `message`, taken out of the table; an invalid loan if there is
// none (the error is set). The caller holds p.mutex.
baton::RawLoan take_out_loan(PublisherImpl& p, void* message, const char* function) {
  auto& loans = p.loans.outstanding;
  for (auto it = loans.begin(); it != loans.end(); ++it) {
    if (reinterpret_cast<std::byte*>(message) == it->data() + LOAN_STRUCT_OFFSET) {
      baton::RawLoan loan = std::move(*it);
      loans.erase(it);
      return loan;
    }
  }
  set_error(function, "not a message loaned by this publisher on '" + p.publisher.topic_name() +
                          "' (already published or returned?)");
  return {};
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
  node_impl->context->add_publisher(impl->gid);  // before any sample: ignore_local_publications
  impl->graph_handle =
      register_endpoint(*node_impl, baton::graph::EndpointKind::Publisher, topic_name,
                        impl->type.info, impl->qos.graph, impl->gid.data);
  impl->qos_peers = open_qos_peers(*node_impl, baton::graph::EndpointKind::Publisher, topic_name,
                                   qos_in_effect(impl->qos.actual));
  start_qos_clocks(impl->events, qos_in_effect(impl->qos.actual),
                   port.topic().publisher_slot(port.slot()));
  auto wire = open_publisher_wire(*impl, topic_name);  // wire: DDS writer
  if (!wire) {
    node_impl->context->remove_publisher(impl->gid);
    set_error(__func__, wire.error());
    return nullptr;
  }
  impl->wire = std::move(*wire);
  const rmw_gid_t gid = impl->gid;
  auto* handle = new_handle(std::move(impl), &rmw_publisher_t::topic_name, topic_name, __func__);
  if (handle == nullptr) {
    node_impl->context->remove_publisher(gid);
    return nullptr;
  }
  handle->options = *publisher_options;
  handle->can_loan_messages = static_cast<PublisherImpl*>(handle->data)->type.loan->loanable;
  return handle;
}

rmw_ret_t rmw_destroy_publisher(rmw_node_t* node, rmw_publisher_t* publisher) {
  if (const rmw_ret_t ret = check_handle(node, __func__, "node"); ret != RMW_RET_OK) return ret;
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
  p->node->context->remove_publisher(p->gid);
  delete_handle(publisher, p.impl, &rmw_publisher_t::topic_name);
  return RMW_RET_OK;
}

rmw_ret_t rmw_publish(const rmw_publisher_t* publisher, const void* ros_message,
                      rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  auto size = introspection_encoded_size(p->type.members, ros_message);
  if (!size) {
    set_error(__func__, size.error().detail);
    return RMW_RET_ERROR;
  }
  return publish_bytes(*p, *size, __func__, [&](std::span<uint8_t> out) {
    auto used = introspection_encode(p->type.members, ros_message, out);
    if (!used) set_error(__func__, used.error().detail);
    return static_cast<bool>(used);
  });
}

rmw_ret_t rmw_publish_serialized_message(const rmw_publisher_t* publisher,
                                         const rmw_serialized_message_t* serialized_message,
                                         rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
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
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
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
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription_count, RMW_RET_INVALID_ARGUMENT);
  // Subscriptions with an incompatible QoS are not matched (qos_peers.hpp).
  *subscription_count =
      without(p->publisher.subscription_count(), p->qos_peers->incompatible_now()) +
      baton::wire::foreign_readers(p->wire.get());  // wire
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_get_actual_qos(const rmw_publisher_t* publisher, rmw_qos_profile_t* qos) {
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = qos_in_effect(p->qos.actual);
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_assert_liveliness(const rmw_publisher_t* publisher) {
  auto p = publisher_impl(publisher, __func__);
  if (!p) return p.ret;
  liveliness_asserted(p->events);  // the lease of manual liveliness (event_state.hpp) restarts
  return RMW_RET_OK;
}

rmw_ret_t rmw_publisher_wait_for_all_acked(const rmw_publisher_t* publisher,
                                           rmw_time_t wait_timeout) {
  (void)wait_timeout;
  // A published sample is in shared memory, readable by every matched subscription at once:
  // there is nothing left to acknowledge.
  return publisher_impl(publisher, __func__).ret;
}

// --- loans (fixed-size types only: see loan_layout.hpp) --------------------------------------

rmw_ret_t rmw_borrow_loaned_message(const rmw_publisher_t* publisher,
                                    const rosidl_message_type_support_t* type_support,
                                    void** ros_message) {
  rmw_ret_t ret;
  PublisherImpl* p = loaning_endpoint<PublisherImpl>(publisher, __func__, "publisher", &ret);
  if (p == nullptr) return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  if (*ros_message != nullptr) {
    set_error(__func__, "ros_message must point to a null pointer");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (introspection_members(type_support) != p->type.members) {
    set_error(__func__, "type support is not the publisher's (" + p->type.name + ")");
    return RMW_RET_INVALID_ARGUMENT;
  }
  const LoanLayout& layout = *p->type.loan;
  std::lock_guard<std::mutex> lock(p->mutex);
  auto loan = p->publisher.loan(LOAN_STRUCT_OFFSET + layout.c_size);
  if (!loan) {
    set_error(__func__, "no loan on '" + p->publisher.topic_name() +
                            "': " + std::string(baton::topic::to_string(loan.error())));
    return RMW_RET_ERROR;
  }
  // A valid message without a pass over all its bytes (zeroing a 4K frame would cost more than
  // the whole loaned exchange): the type's defaults (init, defaults only; a fixed-size type's
  // init allocates nothing, so nothing needs a fini when the loan goes back); every other field
  // keeps what the chunk held, as Fast DDS's loans (NO_LOAN_INITIALIZATION), the caller writes
  // what it publishes. Any bytes are a valid value of a loanable type but a bool's: those are
  // zeroed first, so a loan published as borrowed is never refused.
  std::memset(loan->data(), 0, LOAN_STRUCT_OFFSET);
  auto* msg = reinterpret_cast<uint8_t*>(loan->data() + LOAN_STRUCT_OFFSET);
  for (uint32_t at : layout.bool_offsets) msg[at] = 0;
  if (!p->type.members.init(msg, /*defaults_only=*/true)) {
    set_error(__func__, p->type.name + ": the message could not be initialised in the loan");
    return RMW_RET_ERROR;  // `loan` goes back to the pool
  }
  p->loans.outstanding.push_back(std::move(*loan));
  *ros_message = msg;
  return RMW_RET_OK;
}

rmw_ret_t rmw_return_loaned_message_from_publisher(const rmw_publisher_t* publisher,
                                                   void* loaned_message) {
  rmw_ret_t ret;
  PublisherImpl* p = loaning_endpoint<PublisherImpl>(publisher, __func__, "publisher", &ret);
  if (p == nullptr) return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  std::lock_guard<std::mutex> lock(p->mutex);
  baton::RawLoan loan = take_out_loan(*p, loaned_message, __func__);
  // rmw.h: INVALID_ARGUMENT is for a null argument only; a pointer that is not an outstanding
  // loan is the catch-all RMW_RET_ERROR (as rmw_fastrtps_cpp answers).
  return loan.valid() ? RMW_RET_OK : RMW_RET_ERROR;  // the loan's destructor returns it
}

rmw_ret_t rmw_publish_loaned_message(const rmw_publisher_t* publisher, void* ros_message,
                                     rmw_publisher_allocation_t* allocation) {
  (void)allocation;
  rmw_ret_t ret;
  PublisherImpl* p = loaning_endpoint<PublisherImpl>(publisher, __func__, "publisher", &ret);
  if (p == nullptr) return ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  const LoanLayout& layout = *p->type.loan;
  std::lock_guard<std::mutex> lock(p->mutex);
  baton::RawLoan loan = take_out_loan(*p, ros_message, __func__);
  if (!loan.valid()) return RMW_RET_INVALID_ARGUMENT;
  // The loan is consumed from here on (published, or back in the pool on error), as rcl assumes.
  auto* chunk = reinterpret_cast<uint8_t*>(loan.data());
  if (!bools_valid(layout, chunk + LOAN_STRUCT_OFFSET)) {
    set_error(__func__, p->type.name + ": a bool member holds a value other than 0 or 1");
    return RMW_RET_ERROR;
  }
  // The struct is the CDR body already; only the encapsulation header is missing.
  const uint8_t header[4] = {0x00, 0x01, 0x00, 0x00};  // CDR little endian, no options
  std::memcpy(chunk + LOAN_SAMPLE_OFFSET, header, sizeof header);
  return publish_loan(*p, std::move(loan), sizeof header + layout.cdr_size, LOAN_SAMPLE_OFFSET,
                      __func__);
}

}  // extern "C"
